"""Approval policy: approvals.mode off, `always` across sessions, smart mode, reclaimed sessions."""

from __future__ import annotations

from tests.gateway.fake.support import RawClient, open_b, ready, run, settled, submit_turn
from tests.gatewaymodel import Batch, Command, FakeGateway, Turn

RM = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path", duration=0)
FIND = Command("find /tmp/hermes-scratch/b -delete", "find -delete", duration=0)


def test_approvals_mode_off_runs_everything_until_it_is_switched_back_to_manual():
    async def body() -> None:
        async with (
            FakeGateway("B", speed=0, approvals_mode="off") as fake,
            RawClient.connect(fake.url) as client,
        ):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, Turn([Batch((RM, FIND))]))
            await settled(fake, client, sid)
            assert client.server_requests() == []
            assert [e.approved_by for e in fake.executed] == ["bypass", "bypass"]
            info = client.events("session.info")[-1]["payload"]
            assert (info["yolo"], info["approval_mode"]) == (True, "off")
            mode = {"key": "approvals.mode", "value": "manual"}
            assert await client.result("config.set", mode) == mode
            fake.queue_turn(Turn([RM]))
            await client.result("prompt.submit", {"session_id": sid, "text": "again"})
            (request,) = await client.requests(1)
            assert request["params"]["command"] == RM.command

    run(body)


def test_always_covers_the_pattern_in_every_session_and_smart_still_asks():
    async def body() -> None:
        async with (
            FakeGateway("A", speed=0, approvals_mode="smart") as fake,
            RawClient.connect(fake.url) as client,
        ):
            await ready(client)
            first = (await client.result("session.create", {}))["session_id"]
            second = (await client.result("session.create", {}))["session_id"]
            await submit_turn(fake, client, first, Turn([RM]))
            await fake.wait_for_requests(1)  # smart mode escalates to the human here
            await client.result("approval.respond", {"session_id": first, "choice": "always"})
            await fake.wait_for_idle(first)
            await submit_turn(fake, client, second, Turn([RM, FIND]))
            (asked,) = await fake.wait_for_requests(1)
            assert asked.command == FIND  # RM's pattern is on the permanent allowlist now
            assert [e.approved_by for e in fake.executed] == ["human", "allowlisted"]
            assert fake.world.permanent_allow == {"delete in root path"}

    run(body)


def test_a_reclaimed_session_is_announced_to_everyone_and_forgotten():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            stored = fake.session(sid).stored_id
            await submit_turn(fake, client, sid, Turn([RM]))
            (request,) = await client.requests(1)
            fake.reclaim(sid, "idle_timeout")
            event = await client.event("session.reclaimed")
            assert event["session_id"] == ""
            assert event["payload"] == {
                "session_id": sid,
                "stored_session_id": stored,
                "reason": "idle_timeout",
            }
            assert sid not in fake.sessions
            assert client.events("request.cancel") == []
            assert fake.requests[0].outcome is not None
            assert fake.requests[0].outcome.kind == "closed"
            assert request["id"] == fake.requests[0].srq_id

    run(body)
