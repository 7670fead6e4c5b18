"""Dialect B (main tui_gateway): srq approvals, batches, re-gate, cancels, fan-out, reconnect."""

from __future__ import annotations

from desktop.gateway.fake import Batch, Command, FakeGateway, ManualClock, SetYolo, Turn
from tests.gateway.fake.support import RawClient, caught_up, open_b, ready, run, settled

A = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path")
B = Command("find /tmp/hermes-scratch/b -delete", "find -delete")
C = Command("rm -rf /tmp/hermes-scratch/c", "delete in root path")
FAILS = Command("rm -rf /tmp/hermes-scratch/r1 && false", "delete in root path", exit_code=1)
BATCH = Turn([Batch((A, B, C))], reply="batch: done.")


def _commands(fake: FakeGateway) -> list[str]:
    return [e.command for e in fake.executed]


def test_batch_asks_everything_first_and_runs_in_call_order_whatever_the_answer_order():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            first, second, third = await client.requests(3)
            assert [r["params"]["command"] for r in (first, second, third)] == [
                A.command,
                B.command,
                C.command,
            ]
            assert client.events("tool.start") == []  # nothing started before the answers
            assert first["id"].startswith("srq-")
            assert len(first["id"]) == 16
            assert set(first["params"]) == {
                "session_id",
                "command",
                "pattern_key",
                "pattern_keys",
                "description",
                "allow_permanent",
                "allow_session",
                "request_id",
                "choices",
            }
            await client.answer(third["id"], {"choice": "once"})
            await fake.wait_for(lambda: len(fake.open_requests()) == 2)
            assert fake.executed == []
            assert client.events("tool.start") == []
            await client.answer(first["id"], {"choice": "once"})
            await fake.wait_for(lambda: len(fake.executed) == 1)
            assert _commands(fake) == [A.command]
            await client.answer(second["id"], {"choice": "once"})
            await settled(fake, client, sid)
            assert _commands(fake) == [A.command, B.command, C.command]
            assert client.events("request.cancel") == []
            starts = [e["payload"]["args"]["command"] for e in client.events("tool.start")]
            assert starts == [A.command, B.command, C.command]

    run(body)


def test_a_failed_command_re_asks_every_later_command_with_new_ids_and_no_cancel():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(Turn([Batch((FAILS, A, B))]))
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            originals = await client.requests(3)
            for request in originals:
                await client.answer(request["id"], {"choice": "once"})
            reask_a = (await client.requests(4))[3]
            assert reask_a["params"]["command"] == A.command
            assert reask_a["id"] not in {r["id"] for r in originals}
            assert reask_a["params"]["request_id"] != originals[1]["params"]["request_id"]
            assert _commands(fake) == [FAILS.command]  # it ran, and failed
            await client.answer(reask_a["id"], {"choice": "once"})
            reask_b = (await client.requests(5))[4]
            assert reask_b["params"]["command"] == B.command
            await client.answer(reask_b["id"], {"choice": "once"})
            await settled(fake, client, sid)
            assert _commands(fake) == [FAILS.command, A.command, B.command]
            assert client.events("request.cancel") == []
            assert [r.reask for r in fake.requests] == [False, False, False, True, True]

    run(body)


def test_after_a_failure_a_still_open_request_stays_open_and_its_re_ask_follows_its_answer():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(Turn([Batch((FAILS, A, B))]))
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            first, second, third = await client.requests(3)
            await client.answer(first["id"], {"choice": "once"})
            await client.event("tool.complete")
            assert {r.srq_id for r in fake.open_requests()} == {second["id"], third["id"]}
            assert len(client.events("tool.start")) == 1  # A waits for its own answer first
            await client.answer(second["id"], {"choice": "once"})
            reask = (await client.requests(4))[3]
            assert reask["params"]["command"] == A.command
            assert fake.open_requests()[0].srq_id == third["id"]  # superseded, not cancelled
            await client.answer(third["id"], {"choice": "once"})  # the old card, answered late
            await client.answer(reask["id"], {"choice": "once"})
            reask_b = (await client.requests(5))[4]
            await client.answer(reask_b["id"], {"choice": "deny"})
            await settled(fake, client, sid)
            assert _commands(fake) == [FAILS.command, A.command]
            assert client.events("request.cancel") == []

    run(body)


def test_a_denied_command_re_gates_the_rest_but_a_session_answer_still_covers_them():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            first, second, third = await client.requests(3)
            await client.answer(third["id"], {"choice": "session"})
            await client.answer(first["id"], {"choice": "once"})
            await client.answer(second["id"], {"choice": "deny"})
            await settled(fake, client, sid)
            assert _commands(fake) == [A.command, C.command]
            assert fake.executed[1].approved_by == "allowlisted"  # no re-ask for C
            denied = client.events("tool.complete")[1]["payload"]["result"]
            assert denied["status"] == "blocked"
            assert denied["user_summary"] == "approval.summary.denied"
            assert len(client.server_requests()) == 3

    run(body)


def test_interrupt_withdraws_every_open_request_with_reason_interrupted():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            requests = await client.requests(3)
            await client.answer(requests[1]["id"], {"choice": "once"})
            await fake.wait_for(lambda: len(fake.open_requests()) == 2)
            await client.result("session.interrupt", {"session_id": sid})
            end = await client.event("message.complete")
            assert end["payload"]["status"] == "interrupted"
            cancels = [e["payload"] for e in client.events("request.cancel")]
            assert cancels == [
                {"id": requests[0]["id"], "method": "approval", "reason": "interrupted"},
                {"id": requests[2]["id"], "method": "approval", "reason": "interrupted"},
            ]
            completes = client.events("tool.complete")
            assert len(completes) == 1
            assert "preparation cancelled" in completes[0]["payload"]["result"]
            assert fake.executed == []
            assert await client.result("approval.pending", {"session_id": sid}) == {"approvals": []}
            mark = client.mark()
            await client.answer(requests[0]["id"], {"choice": "once"})  # too late: no reply
            await fake.wait_for(lambda: len(fake.late_answers) == 1)
            assert client.frames[mark:] == []

    run(body)


def test_timeouts_cancel_with_reason_timeout_and_each_re_ask_times_out_again():
    async def body() -> None:
        clock = ManualClock()
        async with (
            FakeGateway("B", clock=clock, approval_timeout=5) as fake,
            RawClient.connect(fake.url) as client,
        ):
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            await client.requests(3)
            await clock.advance(5)
            await fake.wait_for(lambda: len(client.events("request.cancel")) == 3)
            reasons = {e["payload"]["reason"] for e in client.events("request.cancel")}
            assert reasons == {"timeout"}
            reask = (await client.requests(4))[3]  # B after A timed out (a failure)
            assert reask["params"]["command"] == B.command
            await clock.advance(5)
            await client.requests(5)
            await clock.advance(5)
            await settled(fake, client, sid)
            results = [e["payload"]["result"] for e in client.events("tool.complete")]
            assert all("timed out" in r["error"] for r in results)
            assert len(results) == 3
            assert len(client.events("request.cancel")) == 5
            assert fake.executed == []

    run(body)


def test_without_capabilities_approvals_are_withdrawn_at_once_and_nothing_is_sent():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client, caps=False)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            await settled(fake, client, sid)
            assert client.server_requests() == []
            results = [e["payload"]["result"] for e in client.events("tool.complete")]
            assert len(results) == 3
            assert all("cannot answer approval requests" in r["error"] for r in results)
            assert fake.executed == []

    run(body)


def test_an_error_response_withdraws_the_request_without_a_cancel():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(Turn([A]))
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
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
        async with (
            FakeGateway("B", speed=0) as fake,
            RawClient.connect(fake.url) as one,
            RawClient.connect(fake.url) as two,
        ):
            sid = await open_b(one)
            await ready(two)
            await two.result("client.capabilities", {"server_requests": True})
            stored = fake.session(sid).stored_id
            snap = await two.result("session.resume", {"session_id": stored})
            assert snap["session_id"] == sid
            fake.queue_turn(BATCH)
            await one.result("prompt.submit", {"session_id": sid, "text": "go"})
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
            assert _commands(fake) == [A.command, B.command, C.command]
            late_ids = [f.get("id") for f in two.frames[mark:] if isinstance(f, dict)]
            assert seen_two[0]["id"] not in late_ids  # the late answer got no reply

    run(body)


def test_respond_all_deny_resolves_the_rest_and_the_next_command_is_re_asked():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            await client.requests(3)
            head = await client.result("approval.respond", {"session_id": sid, "choice": "once"})
            assert head == {"resolved": 1}
            await fake.wait_for(lambda: len(fake.executed) == 1)
            both = {"session_id": sid, "choice": "deny", "all": True}
            assert await client.result("approval.respond", both) == {"resolved": 2}
            reask = (await client.requests(4))[3]
            assert reask["params"]["command"] == C.command
            reasons = [e["payload"]["reason"] for e in client.events("request.cancel")]
            assert reasons == ["resolved", "resolved", "resolved"]
            await client.answer(reask["id"], {"choice": "deny"})
            await settled(fake, client, sid)
            assert _commands(fake) == [A.command]

    run(body)


def test_reconnect_resume_reports_open_requests_and_the_old_ids_still_answer():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                fake.queue_turn(BATCH)
                await client.result("prompt.submit", {"session_id": sid, "text": "go"})
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
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
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


def test_close_withdraws_with_session_closed_and_prompt_during_a_turn_is_redirected():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
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


def test_yolo_on_keeps_open_requests_but_yolo_off_mid_batch_makes_later_commands_ask():
    async def body() -> None:
        clock = ManualClock()
        slow = Command("rm -rf /tmp/hermes-scratch/slow", "delete in root path", duration=10)
        async with FakeGateway("B", clock=clock) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client)
            fake.queue_turn(Turn([SetYolo(True), Batch((slow, B))]))
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            await fake.wait_for(lambda: clock.sleepers == 1)  # slow is "running", B prepared
            assert client.server_requests() == []
            off = {"session_id": sid, "key": "yolo", "value": "0"}
            await client.result("config.set", off)
            await clock.advance(10)
            (request,) = await client.requests(1)
            assert request["params"]["command"] == B.command  # asked live after all
            on = {"session_id": sid, "key": "yolo", "value": "1"}
            await client.result("config.set", on)
            assert fake.open_requests(), "YOLO does not release an open request"
            await client.answer(request["id"], {"choice": "once"})
            await fake.wait_for(lambda: clock.sleepers == 1)
            await clock.advance(1)
            await settled(fake, client, sid)
            assert [e.approved_by for e in fake.executed] == ["bypass", "human"]

    run(body)


def test_todo_updated_and_usage_events_carry_a_monotonic_seq():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
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


def test_a_tui_session_asks_one_command_at_a_time():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            sid = await open_b(client, source="tui")
            fake.queue_turn(BATCH)
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            (first,) = await client.requests(1)
            assert len(fake.open_requests()) == 1
            assert len(client.events("tool.start")) == 1  # tool.start comes before the ask
            await client.answer(first["id"], {"choice": "once"})
            second = (await client.requests(2))[1]
            await client.answer(second["id"], {"choice": "once"})
            third = (await client.requests(3))[2]
            await client.answer(third["id"], {"choice": "once"})
            await settled(fake, client, sid)
            assert len(fake.executed) == 3

    run(body)
