"""Dialect B viewers and lifecycle: capabilities, fan-out, reconnect, window requests, close."""

from __future__ import annotations

from tests.gateway.fake.support import (
    BATCH_ABC,
    A,
    B,
    C,
    RawClient,
    caught_up,
    executed_commands,
    fake_and_client,
    fake_and_clients,
    open_b,
    ready,
    run,
    settled,
    submit_turn,
)
from tests.gatewaymodel import FakeGateway, Turn


def test_without_capabilities_approvals_are_withdrawn_at_once_and_nothing_is_sent():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client, caps=False)
            await submit_turn(fake, client, sid, BATCH_ABC)
            await settled(fake, client, sid)
            assert client.server_requests() == []
            results = [e["payload"]["result"] for e in client.events("tool.complete")]
            assert len(results) == 3
            assert all("cannot answer approval requests" in r["error"] for r in results)
            assert fake.executed == []

    run(body)


def test_an_error_response_withdraws_the_request_without_a_cancel():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, Turn([A]))
            (request,) = await client.requests(1)
            await client.send(
                {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no"}}
            )
            done = await client.event("tool.complete")
            assert "withdrawn" in done["payload"]["result"]["error"]
            assert client.events("request.cancel") == []

    run(body)


def test_fan_out_first_answer_wins_and_the_late_one_gets_no_reply():
    async def body() -> None:
        async with fake_and_clients("B", 2) as (fake, [one, two]):
            sid = await open_b(one)
            await ready(two)
            await two.result("client.capabilities", {"server_requests": True})
            stored = fake.session(sid).stored_id
            snap = await two.result("session.resume", {"session_id": stored})
            assert snap["session_id"] == sid
            await submit_turn(fake, one, sid, BATCH_ABC)
            seen_one, seen_two = await one.requests(3), await two.requests(3)
            assert [r["id"] for r in seen_one] == [r["id"] for r in seen_two]
            await one.answer(seen_one[0]["id"], {"choice": "once"})
            await two.event("tool.complete")
            mark = two.mark()
            await two.answer(seen_two[0]["id"], {"choice": "deny"})  # late: dropped
            await fake.wait_for(lambda: len(fake.late_answers) == 1)
            assert fake.late_answers[0]["conn"] == 1
            assert two.events("request.cancel") == []  # frame answers cancel nothing
            params = {"session_id": sid, "choice": "once"}
            params["request_id"] = seen_two[1]["params"]["request_id"]
            assert await two.result("approval.respond", params) == {"resolved": 1}
            for viewer in (one, two):
                cancel = await viewer.event("request.cancel")
                assert cancel["payload"] == {
                    "id": seen_one[1]["id"],
                    "method": "approval",
                    "reason": "resolved",
                }
            await two.answer(seen_two[2]["id"], {"choice": "once"})
            await settled(fake, two, sid, conn=1)
            assert executed_commands(fake) == [A.command, B.command, C.command]
            late_ids = [f.get("id") for f in two.frames[mark:] if isinstance(f, dict)]
            assert seen_two[0]["id"] not in late_ids  # the late answer got no reply

    run(body)


def test_reconnect_resume_reports_open_requests_and_the_old_ids_still_answer():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                await submit_turn(fake, client, sid, BATCH_ABC)
                first, second, third = await client.requests(3)
                await client.answer(first["id"], {"choice": "once"})
                await fake.wait_for(lambda: len(fake.executed) == 1)
                await caught_up(fake, client)
                seen = max(e["seq"] for e in client.events() if e.get("session_id") == sid)
            await fake.wait_for(lambda: not fake.session(sid).viewers)
            async with RawClient.connect(fake.url) as again:
                await ready(again)
                await again.result("client.capabilities", {"server_requests": True})
                snap = await again.result(
                    "session.resume", {"session_id": fake.session(sid).stored_id}
                )
                assert snap["status"] == "waiting"
                assert snap["running"] is True
                assert [r["id"] for r in snap["open_requests"]] == [second["id"], third["id"]]
                assert snap["open_requests"][0]["params"] == second["params"]
                assert snap["pending_approval"]["request_id"] == second["params"]["request_id"]
                assert again.server_requests() == []  # not re-sent: re-deliver from the snapshot
                since = await again.result(
                    "session.events.since", {"session_id": sid, "last_seen": seen}
                )
                assert since["events"] == []
                assert since["latest_seq"] == seen
                assert len(since["open_requests"]) == 2
                answered = await again.result(
                    "request.answer", {"id": second["id"], "result": {"choice": "once"}}
                )
                assert answered == {"status": "ok"}
                await again.answer(third["id"], {"choice": "once"})
                await settled(fake, client, sid)
                assert len(fake.executed) == 3
                seqs = [e["seq"] for e in again.events() if e.get("session_id") == sid]
                assert seqs == sorted(seqs)
                assert seqs[0] == seen + 1

    run(body)


def test_window_requests_end_quickly_when_refused():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await client.result(
                "prompt.submit", {"session_id": sid, "text": "[[scenario:readterm]]"}
            )
            (request,) = await client.requests(1, "terminal.read")
            assert request["params"] == {"session_id": sid}
            await client.send(
                {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no"}}
            )
            done = await client.event("tool.complete", lambda p: p["payload"]["name"] != "terminal")
            assert done["payload"]["result"]["error"].startswith("No in-app terminal answered")
            await settled(fake, client, sid)

    run(body)


NOT_SHOWN = {"code": 4404, "message": "not shown here"}


async def read_with_two_viewers(fake: FakeGateway, one: RawClient, two: RawClient) -> str:
    """A session ``one`` created and ``two`` joined asks both ``terminal.read``; its srq id."""
    sid = await open_b(one)
    await ready(two)
    await two.result("client.capabilities", {"server_requests": True})
    await two.result("session.resume", {"session_id": fake.session(sid).stored_id})
    await one.result("prompt.submit", {"session_id": sid, "text": "[[scenario:readterm]]"})
    (request,) = await one.requests(1, "terminal.read")
    await two.requests(1, "terminal.read")
    return str(request["id"])


def test_a_not_shown_decline_waits_for_the_other_viewer_whose_answer_wins():
    async def body() -> None:
        async with fake_and_clients("B", 2, speed=0.2) as (fake, [one, two]):  # 6 s deadline
            srq_id = await read_with_two_viewers(fake, one, two)
            await one.send({"jsonrpc": "2.0", "id": srq_id, "error": NOT_SHOWN})
            [read] = [r for r in fake.requests if r.srq_id == srq_id]
            await fake.wait_for(lambda: read.declined)
            assert read.is_open
            await two.answer(srq_id, {"value": "$ ls"})
            done = await one.event("tool.complete", lambda p: p["payload"]["name"] != "terminal")
            assert done["payload"]["result"] == {"value": "$ ls"}

    run(body)


def test_once_every_viewer_declined_the_agent_hears_no_window_shows_the_chat():
    async def body() -> None:
        async with fake_and_clients("B", 2, speed=0.2) as (fake, [one, two]):  # 6 s deadline
            srq_id = await read_with_two_viewers(fake, one, two)
            for viewer in (one, two):
                await viewer.send({"jsonrpc": "2.0", "id": srq_id, "error": NOT_SHOWN})
            done = await one.event("tool.complete", lambda p: p["payload"]["name"] != "terminal")
            assert done["payload"]["result"]["error"].startswith("No Hermes Desktop window")
            assert fake.late_answers == []

    run(body)


def test_close_withdraws_with_session_closed_and_prompt_during_a_turn_is_redirected():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
            await client.requests(3)
            again = await client.result("prompt.submit", {"session_id": sid, "text": "also"})
            assert again == {"status": "redirected"}
            assert fake.session(sid).steers == ["also"]
            assert (await client.result("session.close", {"session_id": sid}))["closed"] is True
            reasons = [e["payload"]["reason"] for e in client.events("request.cancel")]
            assert reasons == ["session_closed"] * 3
            assert sid not in fake.sessions
            gone = await client.call("session.usage", {"session_id": sid})
            assert gone["error"]["code"] == 4001

    run(body)


def test_todo_updated_and_usage_events_carry_a_monotonic_seq():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            before = await client.result("session.usage", {"session_id": sid})
            assert before["calls"] == 0
            await client.result("prompt.submit", {"session_id": sid, "text": "[[scenario:todo]]"})
            (request,) = await client.requests(1)
            await client.answer(request["id"], {"choice": "once"})
            await settled(fake, client, sid)
            revisions = [e["payload"]["revision"] for e in client.events("todo.updated")]
            assert revisions == [1, 2]
            merged = client.events("todo.updated")[1]["payload"]["todos"]
            assert [t["status"] for t in merged] == ["in_progress", "cancelled"]
            usages = client.events("session.usage")
            assert [u["payload"]["usage"]["calls"] for u in usages] == [1, 2]
            seqs = [e["seq"] for e in client.events() if e.get("session_id") == sid]
            assert seqs == list(range(1, len(seqs) + 1))
            snap = await client.result(
                "session.resume", {"session_id": fake.session(sid).stored_id}
            )
            assert snap["todo_state"]["revision"] == 2

    run(body)
