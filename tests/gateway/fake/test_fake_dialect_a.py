"""Dialect A (hermes-agent 0.19.0): id-less approval events, FIFO answers, silent withdrawals."""

from __future__ import annotations

from tests.gateway.fake.support import (
    RawClient,
    fake_and_client,
    fake_and_clients,
    ready,
    run,
    settled,
    submit_turn,
)
from tests.gatewaymodel import Command, ManualClock, Say, ScenarioBook, Todo, Turn, UsageTick

RM = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path")
FIND = Command("find /tmp/hermes-scratch/b -delete", "find -delete")


async def _session(client: RawClient) -> str:
    await ready(client)
    created = await client.result("session.create", {"source": "desktop"})
    await client.event("session.info")  # the agent builds after the reply
    return str(created["session_id"])


def test_approval_is_an_event_without_any_id_and_runs_after_tool_start():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            started = await submit_turn(fake, client, sid, Turn([RM], reply="done"))
            assert started == {"status": "streaming"}
            request = await client.event("approval.request")
            assert request["session_id"] == sid
            assert "seq" not in request
            assert request["payload"] == {
                "command": RM.command,
                "pattern_key": "delete in root path",
                "pattern_keys": ["delete in root path"],
                "description": "delete in root path",
                "allow_permanent": True,
                "choices": ["once", "session", "always", "deny"],
            }
            types = [e["type"] for e in client.events()]
            assert types.index("tool.start") < types.index("approval.request")
            assert fake.executed == []
            reply = await client.result("approval.respond", {"session_id": sid, "choice": "once"})
            assert reply == {"resolved": 1}
            done = await client.event("tool.complete")
            assert done["payload"]["result"]["exit_code"] == 0
            assert "approved by the user" in done["payload"]["result"]["approval"]
            assert [e.command for e in fake.executed] == [RM.command]

    run(body)


def test_respond_resolves_the_oldest_pending_across_the_session_fifo():
    """Two sessions each have one pending approval; answers go to the session's head only."""

    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            first, second = await _session(client), await _session(client)
            fake.queue_turn(Turn([RM, FIND]))
            fake.queue_turn(Turn([FIND]))
            await client.result("prompt.submit", {"session_id": first, "text": "x"})
            await client.result("prompt.submit", {"session_id": second, "text": "y"})
            await fake.wait_for_requests(2)
            # commands run sequentially: one pending approval per session at a time
            assert [len(fake.open_requests(s)) for s in (first, second)] == [1, 1]
            assert await client.result("approval.respond", {"session_id": second}) == {
                "resolved": 1
            }  # a missing choice denies
            blocked = await client.event("tool.complete", lambda p: p["session_id"] == second)
            assert blocked["payload"]["result"]["status"] == "blocked"
            assert blocked["payload"]["result"]["error"].startswith("BLOCKED: Command denied")
            await client.result("approval.respond", {"session_id": first, "choice": "once"})
            await fake.wait_for(lambda: len(fake.open_requests(first)) == 1)
            assert fake.open_requests(first)[0].command == FIND
            await client.result("approval.respond", {"session_id": first, "choice": "deny"})
            await fake.wait_for_idle(first)
            assert [e.command for e in fake.executed] == [RM.command]
            nothing = await client.result("approval.respond", {"session_id": first, "choice": "x"})
            assert nothing == {"resolved": 0}
            missing = await client.call(
                "approval.respond", {"session_id": "nope", "choice": "once"}
            )
            assert missing["error"] == {"code": 4001, "message": "session not found"}

    run(body)


def test_any_choice_string_but_deny_approves():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            for choice in ("yes", ""):
                fake.queue_turn(Turn([RM]))
                await client.result("prompt.submit", {"session_id": sid, "text": choice})
                await fake.wait_for_requests(1)
                await client.result("approval.respond", {"session_id": sid, "choice": choice})
                await settled(fake, client, sid)
            assert len(fake.executed) == 2

    run(body)


def test_session_choice_approves_the_same_pattern_later_without_asking():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            again = Command("rm -rf /tmp/hermes-scratch/d", "delete in root path")
            await submit_turn(fake, client, sid, Turn([RM, again, FIND]))
            await fake.wait_for_requests(1)
            await client.result("approval.respond", {"session_id": sid, "choice": "session"})
            follow_up = await fake.wait_for_requests(1)
            assert follow_up[0].command == FIND  # `again` ran without a prompt
            assert [e.approved_by for e in fake.executed] == ["human", "allowlisted"]
            await client.result("approval.respond", {"session_id": sid, "choice": "deny"})
            await settled(fake, client, sid)
            assert len(client.events("approval.request")) == 2

    run(body)


def test_interrupt_denies_pending_approvals_silently():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            await submit_turn(fake, client, sid, Turn([RM, FIND]))
            await fake.wait_for_requests(1)
            mark = client.mark()
            assert await client.result("session.interrupt", {"session_id": sid}) == {
                "status": "interrupted"
            }
            end = await client.event("message.complete", since=mark)
            assert end["payload"]["status"] == "interrupted"
            assert end["payload"]["text"] is None
            after = [e["type"] for e in client.events(since=mark)]
            assert "approval.request" not in after
            assert "request.cancel" not in after
            assert after.count("tool.complete") == 1  # FIND never started
            assert fake.executed == []
            assert fake.requests[0].outcome is not None
            assert fake.requests[0].outcome.kind == "interrupted"

    run(body)


def test_timeout_sends_nothing_for_the_card_then_the_tool_completes_blocked():
    async def body() -> None:
        clock = ManualClock()
        async with fake_and_client("A", clock=clock, approval_timeout=60) as (fake, client):
            sid = await _session(client)
            await submit_turn(fake, client, sid, Turn([RM]))
            await fake.wait_for_requests(1)
            mark = client.mark()
            await clock.advance(59)
            assert fake.open_requests(), "not yet"
            await clock.advance(1)
            blocked = await client.event("tool.complete", since=mark)
            assert "timed out" in blocked["payload"]["result"]["error"]
            assert blocked["payload"]["result"]["status"] == "blocked"
            assert next(e["type"] for e in client.events(since=mark)) == "tool.complete"
            late = await client.result("approval.respond", {"session_id": sid, "choice": "once"})
            assert late == {"resolved": 0}

    run(body)


def test_events_go_only_to_the_last_owner_and_resume_does_not_resend_the_approval():
    async def body() -> None:
        async with fake_and_clients("A", 2) as (fake, [first, second]):
            sid = await _session(first)
            await ready(second)
            await submit_turn(fake, first, sid, Turn([RM]))
            await first.event("approval.request")
            stored = fake.session(sid).stored_id
            snap = await second.result("session.resume", {"session_id": stored})
            assert snap["session_id"] == sid
            assert snap["running"] is True
            assert snap["status"] == "working"  # 0.19.0 never counts approvals as waiting
            assert "open_requests" not in snap
            assert "pending_approval" not in snap
            assert second.events("approval.request") == []
            mark = first.mark()
            await second.result("approval.respond", {"session_id": sid, "choice": "once"})
            await second.event("message.complete")
            assert first.events("tool.complete", since=mark) == []  # the stream moved

    run(body)


def test_todos_come_in_tool_complete_and_usage_in_message_complete():
    async def body() -> None:
        plan = ({"id": "1", "content": "Clean", "status": "in_progress"},)
        turn = Turn([Say("ok"), Todo(plan), UsageTick(input=1000, output=50)], reply="ok")
        async with fake_and_client("A", turns=ScenarioBook(default=turn)) as (_fake, client):
            sid = await _session(client)
            await client.result("prompt.submit", {"session_id": sid, "text": "plan"})
            end = await client.event("message.complete")
            assert end["payload"]["usage"]["total"] == 1050
            todo = await client.event("tool.complete", lambda p: p["payload"]["name"] == "todo")
            assert todo["payload"]["todos"] == [dict(plan[0])]
            assert todo["payload"]["result"]["summary"]["in_progress"] == 1
            assert client.events("todo.updated") == []
            assert client.events("session.usage") == []
            usage = await client.result("session.usage", {"session_id": sid})
            assert usage["calls"] == 1
            assert usage["input"] == 1000

    run(body)


def test_yolo_config_and_approvals_mode():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            on = await client.result("config.set", {"session_id": sid, "key": "yolo", "value": "1"})
            assert on == {"key": "yolo", "value": "1", "scope": "session"}
            info = await client.event("session.info", lambda p: p["payload"]["yolo"] is True)
            assert info["payload"]["approval_mode"] == "manual"
            await submit_turn(fake, client, sid, Turn([RM]))
            await settled(fake, client, sid)
            assert client.events("approval.request") == []
            assert fake.executed[0].approved_by == "bypass"
            toggled = await client.result("config.set", {"session_id": sid, "key": "yolo"})
            assert toggled["value"] == "0"
            no_sid = await client.result("config.set", {"key": "yolo", "value": "1"})
            assert no_sid == {"key": "yolo", "value": "1"}
            assert fake.session(sid).yolo is False
            unknown = await client.call("config.get", {"session_id": sid, "key": "yolo"})
            assert unknown["error"] == {"code": 4002, "message": "unknown config key: yolo"}
            glob = {"session_id": sid, "key": "yolo", "value": "1", "scope": "global"}
            assert (await client.result("config.set", glob))["scope"] == "global"
            assert (await client.result("config.get", {"key": "approvals.mode"})) == {
                "value": "off"
            }
            mode = {"key": "approvals.mode", "value": "manual"}
            assert await client.result("config.set", mode) == mode
            bad = await client.call("config.set", {"key": "approvals.mode", "value": "never"})
            assert bad["error"]["code"] == 4002

    run(body)


def test_respond_without_id_resolves_the_oldest_of_two_pending_and_all_resolves_both():
    async def body() -> None:
        async with fake_and_client("A") as (fake, client):
            sid = await _session(client)
            await submit_turn(fake, client, sid, Turn([RM]))
            await fake.wait_for_requests(1)
            extra = fake.raise_approval(sid, FIND)  # second in the FIFO
            await client.event(
                "approval.request", lambda p: p["payload"]["command"] == FIND.command
            )
            await client.result("approval.respond", {"session_id": sid, "choice": "deny"})
            blocked = await client.event("tool.complete")
            assert blocked["payload"]["args"]["command"] == RM.command  # the head was denied
            assert extra.is_open
            third = fake.raise_approval(sid, RM)
            both = await client.result("approval.respond", {"session_id": sid, "all": True})
            assert both == {"resolved": 2}
            assert (await extra.future).kind == (await third.future).kind == "deny"

    run(body)
