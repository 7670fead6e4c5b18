"""Dialect C (canonical gateway): prompt ids, generations, approval.settled, snapshots."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core import outcomes
from desktop.core.events import NoticeReceived, ProtocolErrorReceived, SessionRemoved
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import (
    ApprovalPhase,
    Choice,
    Dialect,
    OutcomeKind,
    TodoItem,
    TodoList,
    TodoStatus,
    YoloSource,
    YoloState,
)
from tests.core.frames import SID, Driver, c_approval, error, event, result, settled, wire_of

PLAN = {"todos": [{"id": "1", "content": "Remove t1", "status": "completed"}], "revision": 4}


def connected(settings: CoreSettings | None = None) -> Driver:
    return Driver(settings=settings or CoreSettings()).connect(Dialect.C)


def test_a_prompt_is_answered_with_exactly_the_four_canonical_keys() -> None:
    drv = connected().feed(c_approval("p-1", generation=7))
    row = drv.row()
    assert row.choices == (Choice.ONCE, Choice.DENY, Choice.SESSION, Choice.ALWAYS)  # server order
    wire = wire_of(drv.core, row.key)
    assert (wire.request_id, wire.execution_generation) == ("p-1", 7)
    sent, _, frames = drv.decide(row.key, Choice.SESSION)
    assert sent
    body = json.loads(frames[0].text)
    assert body["method"] == "approval.respond"
    assert body["params"] == {
        "session_id": SID,
        "execution_generation": 7,
        "prompt_id": "p-1",
        "choice": "session",
    }


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            lambda rpc: result(rpc, {"status": "resolved", "prompt_id": "p-1"}),
            outcomes.decided(Choice.ONCE),
        ),
        (
            lambda rpc: result(rpc, {"status": "already_resolved", "prompt_id": "p-1"}),
            outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE),
        ),
        (
            lambda rpc: error(rpc, 4001, "not_found", "not_found"),
            outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE),
        ),
        (lambda rpc: error(rpc, 4001, "invalid_params", "invalid_params"), outcomes.unknown()),
        (lambda rpc: result(rpc, {"status": "queued"}), outcomes.unknown()),
    ],
)
def test_the_respond_result_decides_the_outcome(answer: Any, expected: Any) -> None:
    drv = connected().feed(c_approval("p-1"))
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.ONCE)
    drv.feed(answer(frames[0].rpc_id))
    assert drv.approval(key).outcome == expected


def test_approval_settled_withdraws_a_waiting_prompt() -> None:
    drv = connected().feed(c_approval("p-1"), c_approval("p-2", command="other"))
    drv.feed(settled("p-1"))
    assert drv.row(0).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
    assert drv.row(1).phase is ApprovalPhase.WAITING


def test_approval_settled_saying_it_expired_is_an_expiry() -> None:
    drv = connected().feed(c_approval("p-1"), settled("p-1", reason="expired"))
    outcome = drv.row().outcome
    assert outcome is not None
    assert outcome.kind is OutcomeKind.EXPIRED


def test_approval_settled_while_our_answer_is_in_flight_resolves_it_with_our_decision() -> None:
    drv = connected().feed(c_approval("p-1"))
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.DENY)
    drv.feed(settled("p-1"))
    assert drv.approval(key).outcome == outcomes.decided(Choice.DENY)
    drv.feed(result(frames[0].rpc_id, {"status": "resolved"}))  # the late answer changes nothing
    assert drv.approval(key).outcome == outcomes.decided(Choice.DENY)


def test_approval_settled_before_our_answer_left_takes_the_answer_back() -> None:
    drv = connected().feed(c_approval("p-1"))
    key = drv.row().key
    drv.core.decide(key, Choice.ONCE)
    drv.core.receive_text(json.dumps(settled("p-1")))
    assert drv.core.data_to_send() == []
    assert drv.approval(key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({"kind": "approval", "command": "x", "execution_generation": 1}, True),  # no prompt_id
        ({"kind": "approval", "command": "x", "prompt_id": "p"}, True),  # no generation
        ({"kind": "clarify", "prompt_id": "p", "execution_generation": 1, "question": "?"}, False),
    ],
)
def test_prompts_that_are_not_answerable_approvals_make_no_row(
    payload: dict[str, Any], problem: bool
) -> None:
    drv = connected().feed(event("approval.request", SID, payload))
    assert drv.rows() == []
    assert bool(drv.of_type(ProtocolErrorReceived)) is problem


def test_a_file_edit_approval_without_a_command_is_shown_by_its_description() -> None:
    payload = {
        "kind": "approval",
        "prompt_id": "p",
        "execution_generation": 2,
        "edit": {"path": "a"},
    }
    drv = connected().feed(event("approval.request", SID, {**payload, "choices": ["once", "deny"]}))
    assert drv.row().command == "file edit"


def test_event_stamps_keep_the_current_generation_for_interrupts() -> None:
    drv = connected().feed(event("message.start", SID, execution_generation=5))
    assert drv.core.session(SID).execution_generation == 5  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("resume_source", "params"),
    [("", {"session_id": SID}), ("gui", {"session_id": SID, "source": "gui"})],
)
def test_resume_after_reconnect_uses_the_durable_id_and_closed_keys(
    resume_source: str, params: dict[str, str]
) -> None:
    drv = connected(CoreSettings(canonical_resume_source=resume_source))
    drv.core.watch_session(SID)
    drv.lose()
    drv.connect(Dialect.C)
    assert drv.request("session.resume")["params"] == params


def test_the_snapshot_reconciles_prompts_and_carries_plan_generation_and_usage() -> None:
    drv = connected().feed(c_approval("p-1", command="a"), c_approval("p-2", command="b"))
    kept, gone = drv.rows()
    drv.lose()
    drv.connect(Dialect.C)
    resume = drv.request("session.resume")
    snapshot = {
        "session_id": SID,
        "stored_session_id": SID,
        "running": True,
        "execution_generation": 4,
        "prompts": [c_approval("p-1", command="a")["params"]["payload"]],
        "todo_state": PLAN,
        "info": {"desktop_protocol": "hermes-gateway-v1", "title": "t", "usage": {"total": 9}},
    }
    drv.feed(result(resume["id"], snapshot))
    assert drv.approval(kept.key).phase is ApprovalPhase.WAITING
    assert drv.approval(gone.key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
    session = drv.core.session(SID)
    assert session is not None
    assert (session.execution_generation, session.title, session.usage.total) == (4, "t", 9)
    assert session.todos == TodoList((TodoItem("1", "Remove t1", TodoStatus.COMPLETED),), 4)


@pytest.mark.parametrize(("todo_state", "kept"), [(None, False), ("missing", True)])
def test_todo_state_null_clears_and_a_missing_key_keeps(todo_state: object, kept: bool) -> None:
    drv = connected()
    drv.core.watch_session(SID)
    drv.feed(event("todo.updated", SID, PLAN))
    rpc = drv.core.resume_session(SID)
    drv.flush()
    snapshot: dict[str, Any] = {"session_id": SID, "running": False}
    if todo_state != "missing":
        snapshot["todo_state"] = todo_state
    drv.feed(result(rpc, snapshot))
    assert bool(drv.core.session(SID).todos.items) is kept  # type: ignore[union-attr]
    assert drv.responded()[-1].rpc_id == rpc


def test_a_replay_gap_asks_for_the_session_again() -> None:
    drv = connected()
    drv.core.watch_session(SID)
    drv.feed(event("session.replay_gap", SID, {"replay_epoch": "e", "latest_seq": 99}))
    assert drv.request("session.resume")["params"] == {"session_id": SID}


@pytest.mark.parametrize(
    ("reason", "removed"),
    [
        ("not_found", True),
        ("permission_denied", True),
        ("profile_mismatch", True),
        ("session_busy", False),
    ],
)
def test_a_resume_refusal_drops_the_session_only_when_it_is_gone(
    reason: str, removed: bool
) -> None:
    drv = connected()
    drv.core.watch_session(SID)
    drv.feed(c_approval("p-1"))
    drv.lose()
    drv.connect(Dialect.C)
    drv.feed(error(drv.request("session.resume")["id"], 4001, reason, reason))
    assert (drv.core.session(SID) is None) is removed
    if removed:
        assert drv.of_type(SessionRemoved)[-1].session_id == SID
        assert drv.row().outcome == outcomes.withdrawn(outcomes.SESSION_GONE)
    else:
        assert drv.of_type(NoticeReceived)[-1].level == "warning"
        assert drv.row().phase is ApprovalPhase.STALE


def test_canonical_window_requests_get_nothing_and_their_cancels_are_ignored() -> None:
    """C says nothing about counting declines, so any error could beat the window's answer."""
    drv = connected()
    sent = len(drv.sent_json())
    drv.feed({"jsonrpc": "2.0", "id": "srq-v1", "method": "tour", "params": {"session_id": SID}})
    drv.feed(event("request.cancel", SID, {"id": "srq-v1", "method": "tour", "reason": "timeout"}))
    assert drv.sent_json()[sent:] == []
    assert drv.rows() == []


@pytest.mark.parametrize(
    ("key", "value", "yolo"),
    [
        ("yolo", "1", YoloState(True, YoloSource.SESSION)),
        ("yolo", "0", YoloState()),
        ("approvals.mode", "off", YoloState(True, YoloSource.MODE_OFF)),
        ("approvals.mode", "manual", YoloState()),
    ],
)
def test_config_results_give_yolo_and_its_source(key: str, value: str, yolo: YoloState) -> None:
    drv = connected()
    drv.core.watch_session(SID)
    rpc = drv.core.call("config.get", {"session_id": SID, "key": key})
    drv.flush()
    drv.feed(result(rpc, {"key": key, "value": value}))
    assert drv.core.session(SID).yolo == yolo  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "payload",
    [{"status": "complete"}, {"status": 3, "usage": [], "text": None}, {"status": "error"}],
)
def test_the_end_of_a_turn_withdraws_no_prompt(payload: dict[str, Any]) -> None:
    drv = connected().feed(c_approval("p1"), c_approval("p2"))
    drv.feed(event("message.complete", SID, payload))  # approval.settled says when, not this
    assert [r.phase for r in drv.rows()] == [ApprovalPhase.WAITING] * 2
    assert drv.decide(drv.row(0).key, Choice.ONCE)[0] is True
