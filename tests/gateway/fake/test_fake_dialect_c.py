"""Dialect C (canonical gateway): prompt ids + generations, settled, closed keys, replay gaps."""

from __future__ import annotations

from typing import Any

from tests.gateway.fake.support import (
    A,
    B,
    RawClient,
    caught_up,
    dial,
    fake_and_client,
    fake_and_clients,
    ready,
    run,
    settled,
    submit_turn,
)
from tests.gatewaymodel import Batch, FakeGateway, ManualClock, Todo, Turn, UsageTick

BATCH = Turn([Batch((A, B))], reply="done")
INVALID = {"code": 4001, "message": "invalid_params", "data": {"reason": "invalid_params"}}


async def _create(client: RawClient) -> dict[str, Any]:
    await ready(client)
    snapshot: dict[str, Any] = await client.result("session.create", {"source": "gui"})
    return snapshot


def _respond(prompt: dict[str, Any], sid: str, choice: str) -> dict[str, Any]:
    payload = prompt.get("payload", prompt)
    return {
        "session_id": sid,
        "execution_generation": payload["execution_generation"],
        "prompt_id": payload["prompt_id"],
        "choice": choice,
    }


def test_create_returns_a_canonical_snapshot_and_checks_its_closed_key_set():
    async def body() -> None:
        async with fake_and_client("C") as (fake, client):
            snap = await _create(client)
            assert snap["session_id"] == snap["stored_session_id"]
            assert snap["subscription_id"].startswith("sub-")
            assert snap["prompts"] == []
            assert snap["todo_state"] is None
            assert snap["info"]["desktop_protocol"] == "hermes-gateway-v1"
            assert "yolo" not in snap["info"]
            assert snap["authority_epoch"] == fake.world.authority_epoch
            extra = await client.call("session.create", {"source": "gui", "scope": "x"})
            assert extra["error"] == INVALID
            desktop = await client.call("session.create", {"source": "desktop"})
            assert desktop["error"] == INVALID  # canonical sources: cli, tui, gui, acp
            gone = await client.call("session.resume", {"session_id": "nope"})
            assert gone["error"] == {
                "code": 4001,
                "message": "not_found",
                "data": {"reason": "not_found"},
            }
            unknown = await client.call("session.active_list")
            assert unknown["error"]["data"] == {"reason": "unknown_method"}

    run(body)


def test_approvals_are_events_with_prompt_id_generation_and_canonical_choice_order():
    async def body() -> None:
        async with fake_and_client("C") as (fake, client):
            sid = (await _create(client))["session_id"]
            await submit_turn(fake, client, sid, BATCH)
            await fake.wait_for_requests(2)
            await caught_up(fake, client)
            first, second = client.events("approval.request")
            payload = first["payload"]
            assert set(payload) == {
                "kind",
                "prompt_id",
                "execution_generation",
                "command",
                "description",
                "choices",
            }
            assert payload["kind"] == "approval"
            assert payload["choices"] == ["once", "deny", "session", "always"]
            assert payload["execution_generation"] == 1
            for key in ("seq", "authority_epoch", "execution_generation", "replay_epoch"):
                assert key in first
            assert client.events("tool.start") == []  # a gui session batches like desktop
            reply = await client.result("approval.respond", _respond(first, sid, "once"))
            assert reply == {"status": "resolved", "prompt_id": payload["prompt_id"]}
            settled_event = await client.event("approval.settled")
            assert settled_event["payload"] == {
                "prompt_id": payload["prompt_id"],
                "execution_generation": 1,
            }
            again = await client.result("approval.respond", _respond(first, sid, "once"))
            assert again == {"status": "already_resolved", "prompt_id": payload["prompt_id"]}
            with_all = {**_respond(second, sid, "once"), "all": True}
            assert (await client.call("approval.respond", with_all))["error"] == INVALID
            missing = _respond(second, sid, "once")
            del missing["execution_generation"]
            assert (await client.call("approval.respond", missing))["error"] == INVALID
            bad_choice = await client.call("approval.respond", _respond(second, sid, "yes"))
            assert bad_choice["error"] == INVALID
            stale = {**_respond(second, sid, "once"), "execution_generation": 0}
            assert (await client.call("approval.respond", stale))["error"]["message"] == "not_found"
            await client.result("approval.respond", _respond(second, sid, "deny"))
            await settled(fake, client, sid)
            assert [e.command for e in fake.executed] == [A.command]
            assert len(client.events("approval.settled")) == 2

    run(body)


def test_only_subscribers_get_events_and_the_first_answer_wins_across_viewers():
    async def body() -> None:
        async with fake_and_clients("C", 3) as (fake, [one, two, bystander]):
            snap = await _create(one)
            sid = snap["session_id"]
            await ready(two)
            await ready(bystander)
            other = await two.result("session.resume", {"session_id": sid})
            assert other["subscription_id"] != snap["subscription_id"]
            await submit_turn(fake, one, sid, Turn([A]))
            prompt_one = await one.event("approval.request")
            prompt_two = await two.event("approval.request")
            assert prompt_one["payload"] == prompt_two["payload"]
            assert await two.result("approval.respond", _respond(prompt_two, sid, "once")) == {
                "status": "resolved",
                "prompt_id": prompt_two["payload"]["prompt_id"],
            }
            for viewer in (one, two):
                await viewer.event("approval.settled")
            late = await one.result("approval.respond", _respond(prompt_one, sid, "deny"))
            assert late["status"] == "already_resolved"
            await settled(fake, one, sid)
            assert len(fake.executed) == 1
            await bystander.result("ping")
            assert bystander.events("approval.request") == []
            assert [e["type"] for e in bystander.events()] == ["gateway.ready"]

    run(body)


def test_a_replay_gap_retires_the_subscription_until_the_viewer_resumes():
    async def body() -> None:
        async with fake_and_client("C") as (fake, client):
            sid = (await _create(client))["session_id"]
            await submit_turn(fake, client, sid, BATCH)
            await fake.wait_for_requests(2)
            assert fake.replay_gap(sid) == 1
            gap = await client.event("session.replay_gap")
            assert gap["payload"]["replay_epoch"] == fake.world.replay_epoch
            assert gap["payload"]["latest_seq"] == fake.session(sid).seq
            mark = client.mark()
            first = fake.open_requests()[0]
            fake.world.reqs.answer(first, "once", via="test")
            await fake.wait_for(lambda: len(fake.executed) == 1)
            await client.result("ping")
            assert client.events(since=mark) == []  # retired: nothing arrives any more
            snap = await client.result("session.resume", {"session_id": sid})
            assert [p["command"] for p in snap["prompts"]] == [B.command]
            await client.result("approval.respond", _respond(snap["prompts"][0], sid, "once"))
            await client.event("message.complete", since=mark)
            assert len(fake.executed) == 2

    run(body)


def test_reconnect_needs_a_new_ticket_and_resume_returns_the_open_prompts():
    async def body() -> None:
        async with FakeGateway("C", speed=0) as fake:
            async with dial(fake) as client:
                sid = (await _create(client))["session_id"]
                await submit_turn(fake, client, sid, BATCH)
                await fake.wait_for_requests(2)
            async with dial(fake) as again:
                await ready(again)
                snap = await again.result("session.resume", {"session_id": sid})
                assert snap["running"] is True
                assert [p["command"] for p in snap["prompts"]] == [A.command, B.command]
                since = await again.result(
                    "session.events.since",
                    {"session_id": sid, "last_sequence": 0, "replay_epoch": "old-epoch"},
                )
                assert since["snapshot_required"] is True
                assert since["events"] == []
                for prompt in snap["prompts"]:
                    await again.result("approval.respond", _respond(prompt, sid, "once"))
                await settled(fake, again, sid, conn=1)
                assert len(fake.executed) == 2

    run(body)


def test_config_has_closed_keys_and_no_approvals_mode_setter():
    async def body() -> None:
        async with fake_and_client("C") as (fake, client):
            sid = (await _create(client))["session_id"]
            on = await client.result(
                "config.set", {"session_id": sid, "key": "yolo", "value": "on"}
            )
            assert on == {"key": "yolo", "value": "1", "scope": "session"}
            scoped = {"session_id": sid, "key": "yolo", "value": "0", "scope": "session"}
            assert (await client.call("config.set", scoped))["error"] == INVALID
            mode = {"session_id": sid, "key": "approvals.mode", "value": "off"}
            assert (await client.call("config.set", mode))["error"] == INVALID
            got = await client.result("config.get", {"session_id": sid, "key": "yolo"})
            assert got == {"key": "yolo", "value": "1"}
            assert (await client.result("config.get", {"key": "approvals.mode"}))[
                "value"
            ] == "manual"
            toggled = await client.result("config.set", {"session_id": sid, "key": "yolo"})
            assert toggled["value"] == "0"
            assert fake.session(sid).yolo is False

    run(body)


def test_interrupt_needs_the_current_generation_and_settles_open_prompts():
    async def body() -> None:
        async with fake_and_client("C") as (fake, client):
            sid = (await _create(client))["session_id"]
            await submit_turn(fake, client, sid, BATCH)
            await fake.wait_for_requests(2)
            stale = await client.call(
                "session.interrupt", {"session_id": sid, "execution_generation": 7}
            )
            assert stale["error"]["data"] == {"reason": "stale_generation"}
            ok = await client.result(
                "session.interrupt", {"session_id": sid, "execution_generation": 1}
            )
            assert ok == {"status": "interrupted"}
            end = await client.event("message.complete")
            assert end["payload"]["status"] == "interrupted"
            assert len(client.events("approval.settled")) == 2
            assert fake.executed == []

    run(body)


def test_timeout_settles_the_prompt_then_blocks_the_command():
    async def body() -> None:
        clock = ManualClock()
        async with fake_and_client("C", clock=clock, approval_timeout=300) as (fake, client):
            sid = (await _create(client))["session_id"]
            await submit_turn(fake, client, sid, Turn([A]))
            prompt = await client.event("approval.request")
            await clock.advance(300)
            await settled(fake, client, sid)
            types = [e["type"] for e in client.events()]
            assert types.index("approval.settled") < types.index("tool.complete")
            result = client.events("tool.complete")[0]["payload"]["result"]
            assert "timed out" in result["error"]
            late = await client.result("approval.respond", _respond(prompt, sid, "once"))
            assert late["status"] == "already_resolved"

    run(body)


def test_usage_and_todo_events_and_snapshot_todo_state():
    async def body() -> None:
        plan = ({"id": "1", "content": "Ship", "status": "in_progress"},)
        turn = Turn([Todo(plan), UsageTick(input=500, output=20)], reply="ok")
        async with fake_and_client("C") as (fake, client):
            sid = (await _create(client))["session_id"]
            await submit_turn(fake, client, sid, turn)
            usage = await client.event("session.usage")
            assert usage["payload"]["api_calls"] == 1
            assert usage["payload"]["usage"]["total"] == 520
            todo = await client.event("todo.updated")
            assert todo["payload"] == {"todos": [dict(plan[0])], "revision": 1}
            await settled(fake, client, sid)
            snap = await client.result("session.resume", {"session_id": sid})
            assert snap["todo_state"] == {"todos": [dict(plan[0])], "revision": 1}

    run(body)
