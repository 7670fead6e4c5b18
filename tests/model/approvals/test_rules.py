"""Which rows may be answered, and what a batch action answers, with plain calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.model.app_state import AppState
from desktop.model.approvals import rules, texts
from desktop.model.approvals.layout import ApprovalBoard, BatchGroup, RowEntry
from tests.model.approvals.factory import approval, resolved, sending, update
from tests.model.approvals.test_layout import put


def batch_of(*approvals: object) -> BatchGroup:
    board = ApprovalBoard(AppState())
    rows = [put(board, "g", a) for a in approvals]  # type: ignore[arg-type]
    return rows[0].batch


def intent_for(batch: BatchGroup, choice: Choice) -> rules.BatchIntent:
    """What a click covers when every row was read long ago and none is high risk."""
    return rules.BatchIntent.for_batch(
        batch, choice, shown_since=lambda row: 0.0, now=60.0, assess=None
    )


def test_can_decide_only_waiting_answerable_offered_and_not_already_sent() -> None:
    batch = batch_of(approval("a", choices=(Choice.ONCE, Choice.DENY)))
    row = batch.rows[0]
    assert rules.can_decide(row, Choice.ONCE)
    assert not rules.can_decide(row, Choice.ALWAYS)  # not offered by the server
    row.awaiting_core = True
    assert not rules.can_decide(row, Choice.ONCE)
    row.awaiting_core = False
    for phase in (ApprovalPhase.SENDING, ApprovalPhase.RESOLVED):
        update(row, replace(row.approval, phase=phase))
        assert not rules.can_decide(row, Choice.DENY)
    update(row, replace(row.approval, phase=ApprovalPhase.WAITING, answerable=False))
    assert not rules.can_decide(row, Choice.ONCE)


def test_stale_rows_need_a_reconfirmation_first() -> None:
    row = batch_of(approval("a", phase=ApprovalPhase.STALE)).rows[0]
    assert rules.needs_reconfirm(row)
    assert not rules.can_decide(row, Choice.ONCE)
    row.reconfirming = True
    assert not rules.needs_reconfirm(row)
    assert rules.can_decide(row, Choice.ONCE)


def test_batch_targets_are_waiting_answerable_rows_in_arrival_order() -> None:
    batch = batch_of(
        approval("third", position=2),
        approval("first", position=0),
        approval("done", position=3, phase=ApprovalPhase.RESOLVED),
        approval("stale", position=4, phase=ApprovalPhase.STALE),
        approval("second", position=1),
        approval("no-once", position=5, choices=(Choice.DENY,)),
    )
    assert [r.approval.key for r in rules.batch_targets(batch, Choice.ONCE)] == [
        "first",
        "second",
        "third",
    ]
    assert [r.approval.key for r in rules.batch_targets(batch, Choice.DENY)] == [
        "first",
        "second",
        "third",
        "no-once",
    ]


def test_in_order_badge_when_a_later_row_waits_behind_an_open_one() -> None:
    head = approval("a")
    blocked = approval("b", position=1, answerable=False, blocked_reason="answer a first")
    assert rules.answers_in_order(batch_of(head, blocked))
    assert not rules.answers_in_order(batch_of(head, approval("b", position=1)))
    lone_blocked = approval("x", answerable=False, blocked_reason="too long")
    assert not rules.answers_in_order(batch_of(lone_blocked))


def test_intent_answers_covered_rows_as_they_become_answerable() -> None:
    batch = batch_of(
        approval("a"),
        approval("b", position=1, answerable=False),
        approval("c", position=2, answerable=False),
    )
    intent = intent_for(batch, Choice.ONCE)
    assert [r.approval.key for r in intent.due(batch)] == ["a"]
    intent.sent.add("a")
    a, b, _c = batch.rows
    update(a, sending(a.approval))
    assert intent.due(batch) == []
    update(a, resolved(a.approval, OutcomeKind.APPROVED, Choice.ONCE))
    update(b, replace(b.approval, answerable=True))
    assert intent.still_valid(batch)
    assert intent.due(batch) == [b]


def test_intent_never_covers_late_rows_and_stops_on_anything_unexpected() -> None:
    batch = batch_of(approval("a"), approval("b", position=1, answerable=False))
    intent = intent_for(batch, Choice.ONCE)
    board_row = put(ApprovalBoard(AppState()), "g", approval("late", position=2))
    batch.rows.append(board_row)
    assert "late" not in {r.approval.key for r in intent.due(batch)}
    a = batch.rows[0]
    update(a, resolved(a.approval, OutcomeKind.WITHDRAWN, reason="interrupted"))
    assert not intent.still_valid(batch)
    fresh = batch_of(approval("a"), approval("b", position=1))
    stale_intent = intent_for(fresh, Choice.DENY)
    update(fresh.rows[1], replace(fresh.rows[1].approval, phase=ApprovalPhase.STALE))
    assert not stale_intent.still_valid(fresh)


def test_intent_ends_when_every_covered_row_is_resolved() -> None:
    batch = batch_of(approval("a"))
    intent = intent_for(batch, Choice.DENY)
    update(batch.rows[0], resolved(batch.rows[0].approval, OutcomeKind.DENIED, Choice.DENY))
    assert not intent.still_valid(batch)


def test_counts_down_only_while_open_with_an_expiry() -> None:
    batch = batch_of(approval("a", expires_at=5.0), approval("b", position=1))
    a, b = batch.rows
    assert rules.counts_down(a)
    assert not rules.counts_down(b)
    update(a, sending(a.approval))
    assert not rules.counts_down(a)


def test_core_state_replaces_the_dialogs_expectations() -> None:
    row = batch_of(approval("a", phase=ApprovalPhase.STALE)).rows[0]
    rules.refuse(row, "refused")  # given while STALE
    row.reconfirming, row.awaiting_core = True, True
    assert rules.absorb_core_state(row, row.approval)  # same stale state: keep reconfirming
    assert (row.awaiting_core, row.reconfirming, row.notice) == (False, True, "refused")
    assert rules.absorb_core_state(row, approval("a"))  # WAITING now
    assert (row.reconfirming, row.notice) == (False, "")
    assert not rules.absorb_core_state(row, approval("a"))


def test_a_refusal_names_itself_and_lasts_while_the_row_keeps_its_action() -> None:
    row = batch_of(approval("a")).rows[0]
    row.awaiting_core = True
    rules.refuse(row, "")
    assert (row.awaiting_core, row.notice) == (False, "the gateway core refused it")
    update(row, replace(row.approval, expires_at=99.0))  # still to answer
    assert not rules.absorb_core_state(row, row.approval)
    assert row.notice == "the gateway core refused it"
    update(row, replace(row.approval, answerable=False))  # now it must wait
    assert rules.absorb_core_state(row, row.approval)
    assert (row.notice, row.notice_action) == ("", None)


def seen_at(**times: float | None) -> Callable[[RowEntry], float | None]:
    """When each row (by key) came on screen; a key not named was never on screen."""
    return lambda row: times.get(row.key)


class Level:
    def __init__(self, name: str) -> None:
        self.name = name


def high_if_rm(command: str, cwd: str) -> object:
    """A stand-in for ``desktop.risk.assess``: anything starting ``rm`` is high risk."""
    return SimpleNamespace(level=Level("HIGH" if command.startswith("rm") else "LOW"))


def test_approve_all_covers_only_rows_on_screen_for_the_dwell() -> None:
    batch = batch_of(*(approval(k, position=i, command=f"make {k}") for i, k in enumerate("abcd")))
    now = rules.BATCH_DWELL_S  # b came on screen exactly the dwell ago, c 0.79 s ago
    shown = seen_at(a=-5.0, b=0.0, c=0.01)  # d: not on screen
    intent = rules.BatchIntent.for_batch(
        batch, Choice.ONCE, shown_since=shown, now=now, assess=high_if_rm
    )
    assert intent.keys == {"a", "b"}
    assert (intent.unseen, intent.high) == (2, ())
    assert [r.key for r in intent.due(batch)] == ["a", "b"]
    assert texts.batch_left_out(intent) == (
        "Approve all answered 2 commands. 2 still wait: not on screen long enough to be read "
        "(scroll to them, look, and answer again)."
    )
    longer = rules.BatchIntent.for_batch(
        batch, Choice.ONCE, shown_since=shown, now=now, assess=None, dwell=10.0
    )
    assert (longer.keys, longer.unseen) == (frozenset(), 4)


def test_approve_all_never_covers_a_high_risk_row_and_names_it() -> None:
    batch = batch_of(
        approval("a", command="ls"),
        approval("b", position=1, command="rm -rf /srv"),
        approval("c", position=2, command="pwd"),
    )
    everything_read = seen_at(a=0.0, b=0.0, c=0.0)
    intent = rules.BatchIntent.for_batch(
        batch, Choice.ONCE, shown_since=everything_read, now=60.0, assess=high_if_rm
    )
    assert intent.keys == {"a", "c"}
    assert [r.key for r in intent.high] == ["b"]
    assert texts.batch_left_out(intent) == (
        "Approve all answered 2 commands. High risk, answer each on its own: "
        "Command 2: rm -rf /srv."
    )

    def broken(command: str, cwd: str) -> object:
        raise RuntimeError("the judge broke")

    unjudged = rules.BatchIntent.for_batch(
        batch, Choice.ONCE, shown_since=everything_read, now=60.0, assess=broken
    )
    assert (unjudged.keys, len(unjudged.high)) == (frozenset(), 3)  # a broken judge says no


def test_deny_all_covers_every_waiting_row_read_or_not_high_risk_or_not() -> None:
    batch = batch_of(
        approval("a", command="rm -rf /srv"),
        approval("b", position=1, command="ls"),
        approval("c", position=2, command="pwd", answerable=False),  # waits its turn
    )
    intent = rules.BatchIntent.for_batch(
        batch, Choice.DENY, shown_since=seen_at(), now=60.0, assess=high_if_rm
    )
    assert intent.keys == {"a", "b", "c"}
    assert (intent.unseen, intent.high) == (0, ())
    assert [r.key for r in intent.due(batch)] == ["a", "b"]  # c once it may be answered
    assert texts.batch_left_out(intent) == ""


def test_a_batch_action_never_covers_rows_it_cannot_answer() -> None:
    batch = batch_of(
        approval("ok"),
        approval("stale", position=1, phase=ApprovalPhase.STALE),  # needs its own re-confirm
        approval("done", position=2, phase=ApprovalPhase.RESOLVED),
        approval("sending", position=3, phase=ApprovalPhase.SENDING),
        approval("no-once", position=4, choices=(Choice.DENY,)),
        approval("clicked", position=5),
    )
    batch.rows[-1].awaiting_core = True  # its answer was just emitted
    for choice in (Choice.ONCE, Choice.DENY):
        intent = rules.BatchIntent.for_batch(
            batch, choice, shown_since=lambda row: 0.0, now=60.0, assess=None
        )
        expected = {"ok", "no-once"} if choice is Choice.DENY else {"ok"}
        assert (intent.keys, intent.unseen, intent.high) == (expected, 0, ())
