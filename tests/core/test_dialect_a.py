"""Dialect A (hermes-agent 0.19.0): FIFO answers, silent withdrawals, local timeouts.

The hazard this file guards: ``approval.respond`` resolves the session's *oldest* pending
approval, so any answer sent while the tray's view is stale resolves whatever comes next.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from desktop.core import decisions, outcomes
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import ApprovalPhase, Choice, Dialect, OutcomeKind
from tests.core.frames import (
    DENIED,
    SID,
    STORED,
    TIMED_OUT,
    Driver,
    a_approval,
    error,
    event,
    message_complete,
    result,
    tool_complete,
    tool_start,
)

SETTINGS = CoreSettings(a_approval_timeout=60.0, staleness_margin=5.0)


def connected() -> Driver:
    return Driver(settings=SETTINGS).connect(Dialect.A)


def test_only_the_head_of_a_session_fifo_is_answerable() -> None:
    drv = connected().feed(a_approval("rm -rf a"), a_approval("rm -rf b"))
    first, second = drv.rows()
    assert (first.answerable, first.blocked_reason) == (True, "")
    assert (second.answerable, second.blocked_reason) == (False, decisions.NOT_HEAD)
    assert second.blocked_reason == (
        "answer the earlier command first (Hermes 0.19 answers in arrival order)"
    )
    sent, reason, frames = drv.decide(second.key, Choice.ONCE)
    assert (sent, frames) == (False, [])
    assert reason == decisions.NOT_HEAD


def test_the_head_is_answered_with_exactly_session_id_and_choice() -> None:
    drv = connected().feed(a_approval())
    sent, _, frames = drv.decide(drv.row().key, Choice.SESSION)
    assert sent
    (frame,) = frames
    body = json.loads(frame.text)
    assert frame.is_decision
    assert frame.rpc_id == body["id"]
    assert body["method"] == "approval.respond"
    assert body["params"] == {"session_id": SID, "choice": "session"}


def test_a_newer_build_request_id_is_passed_on_but_the_fifo_rule_stays() -> None:
    drv = connected().feed(a_approval("one", request_id="r1"), a_approval("two", request_id="r2"))
    assert not drv.row(1).answerable
    _, _, frames = drv.decide(drv.row(0).key, Choice.ONCE)
    assert json.loads(frames[0].text)["params"] == {
        "session_id": SID,
        "choice": "once",
        "request_id": "r1",
    }


@pytest.mark.parametrize(
    ("choice", "answer", "kind", "reason"),
    [
        (Choice.ONCE, result, {"resolved": 1}, (OutcomeKind.APPROVED, Choice.ONCE, "")),
        (Choice.ALWAYS, result, {"resolved": 2}, (OutcomeKind.APPROVED, Choice.ALWAYS, "")),
        (Choice.DENY, result, {"resolved": 1}, (OutcomeKind.DENIED, Choice.DENY, "")),
        (
            Choice.ONCE,
            result,
            {"resolved": 0},
            (OutcomeKind.WITHDRAWN, None, outcomes.NOTHING_WAITING),
        ),
        (
            Choice.ONCE,
            result,
            {"resolved": "1"},
            (OutcomeKind.UNKNOWN, None, outcomes.SENT_UNKNOWN),
        ),
        (Choice.ONCE, error, 4009, (OutcomeKind.WITHDRAWN, None, outcomes.NOTHING_WAITING)),
        (Choice.ONCE, error, 4001, (OutcomeKind.WITHDRAWN, None, outcomes.SESSION_GONE)),
        (Choice.ONCE, error, 5004, (OutcomeKind.UNKNOWN, None, outcomes.SENT_UNKNOWN)),
    ],
)
def test_the_answer_to_approval_respond_decides_the_outcome(
    choice: Choice, answer: Callable[..., Any], kind: Any, reason: tuple[Any, Any, str]
) -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    _, _, frames = drv.decide(key, choice)
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    drv.feed(answer(frames[0].rpc_id, kind))
    outcome = drv.approval(key).outcome
    assert outcome is not None
    assert (outcome.kind, outcome.choice, outcome.reason) == reason
    assert drv.approval(key).phase is ApprovalPhase.RESOLVED


def test_when_the_head_resolves_the_next_row_becomes_answerable() -> None:
    drv = connected().feed(a_approval("a"), a_approval("b"))
    first, second = drv.rows()
    _, _, frames = drv.decide(first.key, Choice.ONCE)
    assert not drv.approval(second.key).answerable  # the head is SENDING, still the head
    drv.feed(result(frames[0].rpc_id, {"resolved": 1}))
    assert drv.approval(second.key).answerable
    assert drv.changes(second.key)[-1].answerable


def test_a_double_decide_sends_one_frame() -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    assert drv.decide(key, Choice.ONCE)[0]
    sent, reason, frames = drv.decide(key, Choice.DENY)
    assert (sent, frames) == (False, [])
    assert "already on its way" in reason
    assert len(drv.decisions()) == 1


def test_margin_before_the_local_timeout_stops_answers_then_the_row_expires() -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    arrived = drv.row().arrived_at
    assert drv.row().expires_at == arrived + 60.0
    assert drv.core.next_deadline() == arrived + 55.0
    drv.advance(55.0)
    row = drv.approval(key)
    assert (row.answerable, row.blocked_reason) == (False, decisions.TOO_CLOSE)
    assert drv.decide(key, Choice.ONCE)[:2] == (False, decisions.TOO_CLOSE)
    assert drv.core.next_deadline() == arrived + 60.0
    drv.advance(5.0)
    row = drv.approval(key)
    assert row.outcome is not None
    assert row.outcome.kind is OutcomeKind.EXPIRED
    assert drv.core.next_deadline() is None
    assert drv.decisions() == []


def test_decide_checks_the_margin_against_the_clock_even_without_a_tick() -> None:
    drv = connected().feed(a_approval())
    drv.now += 57.0  # no tick: the adapter's timer has not fired yet
    sent, reason, frames = drv.decide(drv.row().key, Choice.ONCE)
    assert (sent, reason, frames) == (False, decisions.TOO_CLOSE, [])


def _timeout_locally(drv: Driver) -> None:
    drv.advance(61.0)


def _timeout_learned_locally(drv: Driver) -> None:
    drv.core.set_approval_timeout(300.0)  # learned while the row waited: it now counts from 300
    drv.flush()
    drv.advance(61.0)
    assert drv.approval(drv.row().key).answerable  # Hermes still waits: so does the tray
    drv.advance(240.0)


def _tool_complete_timed_out(drv: Driver) -> None:
    drv.advance(4.0)
    drv.feed(tool_complete("call_1_0", error=TIMED_OUT))


def _tool_complete_denied_elsewhere(drv: Driver) -> None:
    drv.feed(tool_complete("call_1_0", error=DENIED))


def _turn_ended(drv: Driver) -> None:
    drv.feed(message_complete())


def _turn_interrupted(drv: Driver) -> None:
    drv.feed(message_complete(status="interrupted"))


def _session_stopped(drv: Driver) -> None:
    drv.feed(event("session.info", SID, {"running": False}))


def _interrupt_call(drv: Driver) -> None:
    rpc = drv.core.call("session.interrupt", {"session_id": SID})
    drv.flush()
    drv.feed(result(rpc, {"status": "interrupted"}))


@pytest.mark.parametrize(
    ("gone", "kind", "reason"),
    [
        (_timeout_locally, OutcomeKind.EXPIRED, outcomes.ASSUMED_TIMEOUT),
        (_timeout_learned_locally, OutcomeKind.EXPIRED, outcomes.LOCAL_TIMEOUT),
        (_tool_complete_timed_out, OutcomeKind.EXPIRED, outcomes.SERVER_TIMEOUT),
        (_tool_complete_denied_elsewhere, OutcomeKind.WITHDRAWN, outcomes.SETTLED_ELSEWHERE),
        (_turn_ended, OutcomeKind.WITHDRAWN, outcomes.TURN_ENDED),
        (_turn_interrupted, OutcomeKind.WITHDRAWN, outcomes.INTERRUPTED),
        (_session_stopped, OutcomeKind.WITHDRAWN, outcomes.SESSION_STOPPED),
        (_interrupt_call, OutcomeKind.WITHDRAWN, outcomes.INTERRUPTED),
    ],
)
def test_a_late_click_never_resolves_the_next_command(
    gone: Callable[[Driver], None], kind: OutcomeKind, reason: str
) -> None:
    drv = connected().feed(
        event("message.start", SID), tool_start("call_1_0"), a_approval("rm -rf old")
    )
    old = drv.row().key
    gone(drv)
    assert drv.approval(old).outcome is not None
    assert (drv.approval(old).outcome.kind, drv.approval(old).outcome.reason) == (kind, reason)  # type: ignore[union-attr]
    drv.feed(event("message.start", SID), tool_start("call_2_0"), a_approval("rm -rf next"))
    nxt = drv.row().key
    assert nxt != old
    for choice in Choice:
        sent, _, frames = drv.decide(old, choice, confirm_stale=True)
        assert (sent, frames) == (False, [])
    assert drv.decisions() == []
    assert drv.approval(nxt).phase is ApprovalPhase.WAITING
    assert drv.approval(nxt).answerable


def test_a_sending_head_waits_for_its_own_answer_even_if_tool_complete_comes_first() -> None:
    drv = connected().feed(tool_start("call_1_0"), a_approval())
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.ONCE)
    drv.feed(tool_complete("call_1_0"))  # the result raced ahead of the RPC answer
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    drv.feed(result(frames[0].rpc_id, {"resolved": 1}))
    outcome = drv.approval(key).outcome
    assert outcome is not None
    assert outcome.kind is OutcomeKind.APPROVED


@pytest.mark.parametrize(
    ("sign", "outcome"),
    [
        (tool_complete("call_1_0"), outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)),
        (message_complete(), outcomes.withdrawn(outcomes.TURN_ENDED)),
    ],
    ids=["tool.complete", "message.complete"],
)
def test_a_row_that_ended_while_its_answer_was_queued_ends_when_the_answer_never_leaves(
    sign: dict[str, Any], outcome: object
) -> None:
    drv = connected().feed(tool_start("call_1_0"), a_approval())
    key = drv.row().key
    drv.core.decide(key, Choice.ONCE)
    [frame] = drv.core.data_to_send()  # taken by the writer
    drv.feed(sign)  # Hermes says the command is over (another surface answered it)
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    drv.core.frame_failed(frame.frame_id, maybe_sent=False)  # and our answer never left
    drv.flush()
    assert drv.approval(key).outcome == outcome  # not waiting again for a click
    drv.feed(a_approval("next command"))
    assert drv.decide(key, Choice.ONCE)[0] is False


def test_another_tool_finishing_makes_the_row_stale_not_gone() -> None:
    drv = connected().feed(tool_start("call_1_0"), a_approval())
    key = drv.row().key
    drv.feed(tool_complete("call_9_9"))
    row = drv.approval(key)
    assert row.phase is ApprovalPhase.STALE
    assert row.answerable
    assert drv.decide(key, Choice.ONCE)[0] is False
    assert drv.decide(key, Choice.ONCE, confirm_stale=True)[0] is True


def test_reconnect_marks_rows_stale_and_only_a_confirmed_head_may_be_answered() -> None:
    drv = connected().feed(a_approval("a"), a_approval("b"))
    head, tail = drv.rows()
    drv.lose()
    assert all(r.phase is ApprovalPhase.STALE and not r.answerable for r in drv.rows())
    assert drv.decide(head.key, Choice.ONCE, confirm_stale=True)[:2] == (
        False,
        decisions.DISCONNECTED,
    )
    drv.connect(Dialect.A)
    assert drv.approval(head.key).phase is ApprovalPhase.STALE
    sent, reason, _ = drv.decide(head.key, Choice.ONCE)
    assert not sent
    assert "confirm" in reason
    assert drv.decide(tail.key, Choice.ONCE, confirm_stale=True)[:2] == (
        False,
        decisions.NOT_HEAD,
    )
    sent, _, frames = drv.decide(head.key, Choice.DENY, confirm_stale=True)
    assert sent
    assert json.loads(frames[0].text)["params"] == {"session_id": SID, "choice": "deny"}


@pytest.mark.parametrize(("running", "still_open"), [(True, True), (False, False)])
def test_the_resume_snapshot_after_a_reconnect_closes_rows_of_a_stopped_session(
    running: bool, still_open: bool
) -> None:
    drv = connected()
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(a_approval())
    key = drv.row().key
    drv.lose()
    drv.connect(Dialect.A)
    resume = drv.request("session.resume")
    assert resume["params"] == {
        "session_id": STORED,
        "source": "desktop",
        "close_on_disconnect": False,
        "omit_messages": True,
    }
    snapshot = {"session_id": SID, "running": running, "status": "working", "info": {"title": "t"}}
    drv.feed(result(resume["id"], snapshot))
    row = drv.approval(key)
    assert (row.phase is not ApprovalPhase.RESOLVED) is still_open
    if still_open:
        assert row.phase is ApprovalPhase.STALE  # 0.19.0 snapshots list no approvals to confirm
    else:
        assert row.outcome is not None
        assert row.outcome.reason == outcomes.SESSION_STOPPED


def test_rows_on_other_sessions_are_independent_fifos() -> None:
    drv = connected()
    drv.core.watch_session("s1")
    drv.core.watch_session("s2")
    drv.feed(a_approval("a", session_id="s1"), a_approval("b", session_id="s2"))
    assert all(row.answerable for row in drv.rows())
    assert drv.rows()[0].batch_id != drv.rows()[1].batch_id


def test_b_shaped_answers_are_never_sent_for_fifo_rows() -> None:
    drv = connected().feed(a_approval())
    drv.decide(drv.row().key, Choice.ONCE)
    body = drv.decisions()[0]
    assert "method" in body
    assert "result" not in body


def test_a_request_after_a_finished_tool_is_not_bound_to_that_tool() -> None:
    drv = connected().feed(tool_start("call_1_0"), tool_complete("call_1_0"), a_approval())
    key = drv.row().key
    drv.feed(tool_complete("call_2_0", error=DENIED))  # its own tool (no tool.start was sent)
    assert drv.approval(key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
