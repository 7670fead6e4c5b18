"""Dialect B batches: asked together, run in order, re-gated after a failure, withdrawn."""

from __future__ import annotations

from tests.gateway.fake.support import (
    BATCH_ABC,
    FAILS,
    A,
    B,
    C,
    executed_commands,
    fake_and_client,
    open_b,
    run,
    settled,
    submit_turn,
)
from tests.gatewaymodel import Batch, Command, ManualClock, SetYolo, Turn


def test_batch_asks_everything_first_and_runs_in_call_order_whatever_the_answer_order():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
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
            assert executed_commands(fake) == [A.command]
            await client.answer(second["id"], {"choice": "once"})
            await settled(fake, client, sid)
            assert executed_commands(fake) == [A.command, B.command, C.command]
            assert client.events("request.cancel") == []
            starts = [e["payload"]["args"]["command"] for e in client.events("tool.start")]
            assert starts == [A.command, B.command, C.command]

    run(body)


def test_a_failed_command_re_asks_every_later_command_with_new_ids_and_no_cancel():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, Turn([Batch((FAILS, A, B))]))
            originals = await client.requests(3)
            for request in originals:
                await client.answer(request["id"], {"choice": "once"})
            reask_a = (await client.requests(4))[3]
            assert reask_a["params"]["command"] == A.command
            assert reask_a["id"] not in {r["id"] for r in originals}
            assert reask_a["params"]["request_id"] != originals[1]["params"]["request_id"]
            assert executed_commands(fake) == [FAILS.command]  # it ran, and failed
            await client.answer(reask_a["id"], {"choice": "once"})
            reask_b = (await client.requests(5))[4]
            assert reask_b["params"]["command"] == B.command
            await client.answer(reask_b["id"], {"choice": "once"})
            await settled(fake, client, sid)
            assert executed_commands(fake) == [FAILS.command, A.command, B.command]
            assert client.events("request.cancel") == []
            assert [r.reask for r in fake.requests] == [False, False, False, True, True]

    run(body)


def test_after_a_failure_a_still_open_request_stays_open_and_its_re_ask_follows_its_answer():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, Turn([Batch((FAILS, A, B))]))
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
            assert executed_commands(fake) == [FAILS.command, A.command]
            assert client.events("request.cancel") == []

    run(body)


def test_a_denied_command_re_gates_the_rest_but_a_session_answer_still_covers_them():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
            first, second, third = await client.requests(3)
            await client.answer(third["id"], {"choice": "session"})
            await client.answer(first["id"], {"choice": "once"})
            await client.answer(second["id"], {"choice": "deny"})
            await settled(fake, client, sid)
            assert executed_commands(fake) == [A.command, C.command]
            assert fake.executed[1].approved_by == "allowlisted"  # no re-ask for C
            denied = client.events("tool.complete")[1]["payload"]["result"]
            assert denied["status"] == "blocked"
            assert denied["user_summary"] == "approval.summary.denied"
            assert len(client.server_requests()) == 3

    run(body)


def test_interrupt_withdraws_every_open_request_with_reason_interrupted():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
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
        async with fake_and_client("B", clock=clock, approval_timeout=5) as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
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


def test_respond_all_deny_resolves_the_rest_and_the_next_command_is_re_asked():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, BATCH_ABC)
            await client.requests(3)
            stale = {"session_id": "gone1234", "choice": "once"}
            stale["request_id"] = fake.open_requests()[0].request_id
            head = await client.result("approval.respond", stale)  # found by its request_id
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
            assert executed_commands(fake) == [A.command]

    run(body)


def test_yolo_on_keeps_open_requests_but_yolo_off_mid_batch_makes_later_commands_ask():
    async def body() -> None:
        clock = ManualClock()
        slow = Command("rm -rf /tmp/hermes-scratch/slow", "delete in root path", duration=10)
        async with fake_and_client("B", clock=clock) as (fake, client):
            sid = await open_b(client)
            await submit_turn(fake, client, sid, Turn([SetYolo(True), Batch((slow, B))]))
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


def test_a_tui_session_asks_one_command_at_a_time():
    async def body() -> None:
        async with fake_and_client("B") as (fake, client):
            sid = await open_b(client, source="tui")
            await submit_turn(fake, client, sid, BATCH_ABC)
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
