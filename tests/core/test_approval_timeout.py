"""The server's real approval timeout, learned after the handshake (desktop.core.settings).

The hazard on 0.19.0: ``approval.respond`` resolves whatever the session waits on *now*. A row
that outlives Hermes' own timeout could send an answer that lands on the next command; a row
that gives up long before Hermes does keeps a person from approving what Hermes still waits on.
"""

from __future__ import annotations

import math

import pytest

from desktop.core import decisions, outcomes
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import ApprovalPhase, Choice, Dialect, OutcomeKind
from tests.core.frames import (
    SID,
    Driver,
    a_approval,
    b_approval,
    event,
    result,
    tool_start,
)

SETTINGS = CoreSettings(a_approval_timeout=60.0, staleness_margin=5.0)


def connected(dialect: Dialect = Dialect.A) -> Driver:
    return Driver(settings=SETTINGS).connect(dialect)


def learn(drv: Driver, seconds: float) -> None:
    drv.core.set_approval_timeout(seconds)
    drv.flush()


def test_until_it_is_learned_the_dialect_default_is_assumed() -> None:
    drv = connected().feed(a_approval())
    row = drv.row()
    assert drv.core.lifecycle.learned_timeout is None
    assert row.expires_at == row.arrived_at + 60.0


def test_learned_before_rows_arrive_new_rows_count_from_it() -> None:
    drv = connected()
    learn(drv, 300.0)
    drv.feed(a_approval())
    row = drv.row()
    assert drv.core.lifecycle.learned_timeout == 300.0
    assert row.expires_at == row.arrived_at + 300.0
    assert drv.core.next_deadline() == row.arrived_at + 295.0
    drv.advance(61.0)  # past the old assumption: Hermes still waits, so may the person
    assert drv.approval(row.key).answerable
    sent, _, frames = drv.decide(row.key, Choice.ONCE)
    assert sent
    assert drv.decisions() == [
        {
            "jsonrpc": "2.0",
            "id": frames[0].rpc_id,
            "method": "approval.respond",
            "params": {"session_id": SID, "choice": "once"},
        }
    ]


def test_learned_after_a_row_arrived_re_times_it_and_says_so() -> None:
    drv = connected().feed(a_approval())
    key, arrived = drv.row().key, drv.row().arrived_at
    drv.advance(30.0)
    before = len(drv.changes(key))
    learn(drv, 300.0)
    changed = drv.changes(key)[before:]
    assert [a.expires_at for a in changed] == [arrived + 300.0]
    assert drv.core.next_deadline() == arrived + 295.0
    drv.advance(31.0)  # 61 s after arrival: the assumed 60 s would have expired it
    row = drv.approval(key)
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, True)


def test_a_shorter_learned_timeout_stops_answers_at_once_when_inside_the_margin() -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    drv.advance(27.0)
    learn(drv, 30.0)  # 3 s left, inside the 5 s margin
    row = drv.approval(key)
    assert (row.answerable, row.blocked_reason) == (False, decisions.TOO_CLOSE)
    assert drv.decide(key, Choice.ONCE)[:2] == (False, decisions.TOO_CLOSE)
    learn(drv, 20.0)  # already past: the row ends now, without waiting for a tick
    outcome = drv.approval(key).outcome
    assert outcome is not None
    assert (outcome.kind, outcome.reason) == (OutcomeKind.EXPIRED, outcomes.LOCAL_TIMEOUT)
    assert drv.decisions() == []


def test_the_margin_counts_back_from_the_learned_timeout() -> None:
    drv = connected()
    learn(drv, 120.0)
    drv.feed(a_approval())
    key = drv.row().key
    drv.advance(114.9)
    assert drv.approval(key).answerable
    drv.advance(0.1)
    row = drv.approval(key)
    assert (row.answerable, row.blocked_reason) == (False, decisions.TOO_CLOSE)
    assert drv.decide(key, Choice.ONCE)[:2] == (False, decisions.TOO_CLOSE)
    drv.advance(5.0)
    outcome = drv.approval(key).outcome
    assert outcome is not None
    assert (outcome.kind, outcome.reason) == (OutcomeKind.EXPIRED, outcomes.LOCAL_TIMEOUT)


def test_a_late_click_after_the_learned_timeout_never_resolves_the_next_command() -> None:
    drv = connected()
    learn(drv, 300.0)
    drv.feed(event("message.start", SID), tool_start("call_1_0"), a_approval("rm -rf old"))
    old = drv.row().key
    drv.advance(300.0)
    assert drv.approval(old).outcome is not None
    assert drv.approval(old).outcome.kind is OutcomeKind.EXPIRED  # type: ignore[union-attr]
    drv.feed(tool_start("call_1_1"), a_approval("rm -rf next"))  # Hermes moved on at once
    nxt = drv.row().key
    for choice in Choice:
        assert drv.decide(old, choice, confirm_stale=True)[0] is False
    assert drv.decisions() == []
    row = drv.approval(nxt)
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, True)
    assert row.expires_at == row.arrived_at + 300.0


def test_a_later_learned_value_only_ever_shortens_rows_counted_from_a_learned_one() -> None:
    drv = connected()
    learn(drv, 100.0)
    drv.feed(a_approval("rm -rf a"))
    first = drv.row()
    learn(drv, 300.0)  # config.yaml edited: Hermes may have read 100 s when it started waiting
    assert drv.approval(first.key).expires_at == first.arrived_at + 100.0
    drv.feed(a_approval("rm -rf b"))
    second = drv.row()
    assert second.expires_at == second.arrived_at + 300.0  # new waits count from the new value
    learn(drv, 50.0)  # shortening is always safe, for every row
    assert drv.approval(first.key).expires_at == first.arrived_at + 50.0
    assert drv.approval(second.key).expires_at == second.arrived_at + 50.0


def test_the_learned_value_is_forgotten_with_the_connection() -> None:
    drv = connected()
    learn(drv, 300.0)
    drv.feed(a_approval("rm -rf a"))
    first = drv.row()
    drv.lose()
    assert drv.core.lifecycle.learned_timeout is None
    assert drv.approval(first.key).expires_at == first.arrived_at + 300.0  # kept, now stale
    drv.connect(Dialect.A)
    drv.feed(a_approval("rm -rf b"))
    second = drv.row()
    assert second.expires_at == second.arrived_at + 60.0  # a new server: assumed until learned


def test_an_assumed_deadline_ends_the_row_expired_and_says_the_timeout_was_assumed() -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    drv.advance(60.0)
    row = drv.approval(key)
    assert row.outcome is not None
    assert (row.outcome.kind, row.outcome.reason) == (
        OutcomeKind.EXPIRED,
        outcomes.ASSUMED_TIMEOUT,
    )
    assert drv.decide(key, Choice.ONCE, confirm_stale=True)[0] is False
    learn(drv, 300.0)  # learning too late never revives a row
    assert drv.approval(key).phase is ApprovalPhase.RESOLVED
    assert drv.decisions() == []


def test_zero_is_a_timeout_hermes_accepts_and_ends_rows_at_once() -> None:
    drv = connected().feed(a_approval())
    learn(drv, 0.0)
    assert drv.row().phase is ApprovalPhase.RESOLVED


@pytest.mark.parametrize("seconds", [-1.0, math.nan, math.inf])
def test_impossible_timeouts_are_refused_and_change_nothing(seconds: float) -> None:
    drv = connected().feed(a_approval())
    row = drv.row()
    with pytest.raises(ValueError, match="finite and >= 0"):
        drv.core.set_approval_timeout(seconds)
    assert drv.core.lifecycle.learned_timeout is None
    assert drv.approval(row.key) == row


def test_b_rows_take_the_learned_value_for_their_countdown_but_never_expire_locally() -> None:
    drv = connected(Dialect.B).feed(b_approval("srq-1"))
    key, arrived = drv.row().key, drv.row().arrived_at
    assert drv.row().expires_at == arrived + 300.0
    learn(drv, 600.0)
    assert drv.approval(key).expires_at == arrived + 600.0
    drv.advance(700.0)
    row = drv.approval(key)
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, True)
    assert drv.core.lifecycle.next_deadline() is None  # only the pending list's poll is due


def test_a_sending_row_keeps_its_answer_while_it_is_re_timed() -> None:
    drv = connected().feed(a_approval())
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.DENY)
    learn(drv, 300.0)
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    drv.feed(result(frames[0].rpc_id, {"resolved": 1}))
    outcome = drv.approval(key).outcome
    assert outcome is not None
    assert outcome.kind is OutcomeKind.DENIED
