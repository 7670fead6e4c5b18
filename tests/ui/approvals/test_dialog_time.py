"""Countdowns and the grace period, on an injected clock (the QTimer ticks every 5 ms here)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.model.approvals import rules
from desktop.ui.approvals import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import OFFSCREEN_WINDOWS, store_of, upsert

pytestmark = OFFSCREEN_WINDOWS


def next_tick(dialog: ApprovalDialog, qtbot: QtBot) -> None:
    """Wait until the dialog's own timer has fired (its slot runs before ours)."""
    timer = dialog.findChild(QTimer, "countdownTimer")
    assert timer is not None
    assert timer.isActive()
    with qtbot.waitSignal(timer.timeout):
        pass


def countdown(dialog: ApprovalDialog, key: str) -> str:
    card = dialog.card("g", key)
    assert card is not None
    return card.countdown.text()


def test_countdown_follows_the_injected_clock(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("a", expires_at=clock.now + 90), "")
    assert countdown(dialog, "a") == "expires in 1:30"
    clock.advance(80.5)
    qtbot.waitUntil(lambda: countdown(dialog, "a") == "expires in 0:10")
    card = dialog.card("g", "a")
    assert card is not None
    assert card.countdown.property("urgent") is True
    clock.advance(20)
    qtbot.waitUntil(lambda: countdown(dialog, "a") == "expiring…")


def test_timer_runs_only_while_something_counts_down(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("plain"), "")
    assert not dialog.ticking  # no expiry: nothing to count
    upsert(dialog, "g", "G", approval("timed", position=1, expires_at=clock.now + 60), "")
    assert dialog.ticking
    upsert(dialog, "g", "G", resolved(approval("timed", position=1), OutcomeKind.EXPIRED), "")
    assert not dialog.ticking  # "plain" still waits, but nothing counts down
    assert countdown(dialog, "timed") == ""


def test_resolved_batch_stays_greyed_then_leaves_after_the_grace(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE), "")
    assert not dialog.ticking  # b still waits: no grace yet
    upsert(dialog, "g", "G", resolved(approval("b", position=1), OutcomeKind.DENIED), "")
    assert dialog.ticking
    assert dialog.card("g", "a") is not None  # still shown, with its outcome
    clock.advance(4.9)
    next_tick(dialog, qtbot)  # still within the 5 s grace
    assert dialog.card("g", "b") is not None
    clock.advance(0.2)
    qtbot.waitUntil(lambda: dialog.card("g", "a") is None)
    assert dialog.model.board.gateways == []
    assert store_of(dialog).row("g", "a") is None  # released: the store forgets it too
    assert not dialog.ticking
    assert dialog.list_view.empty.isVisibleTo(dialog.list_view)


def test_pointer_on_the_list_holds_the_removal(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    viewport = dialog.list_view.viewport()
    viewport.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, True)  # as Qt sets it on Enter
    clock.advance(60)
    next_tick(dialog, qtbot)
    assert dialog.card("g", "a") is not None
    viewport.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, False)
    qtbot.waitUntil(lambda: dialog.card("g", "a") is None)


def test_dismiss_removes_a_resolved_batch_at_once(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("keep", batch="other"), "")
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE), "")
    card = dialog.card("g", "a")
    assert card is not None
    batch_widget = dialog.list_view.widget_for(card.entry.batch)
    dismiss = getattr(batch_widget, "dismiss", None)
    assert dismiss is not None
    assert not dismiss.isHidden()
    dismiss.click()
    assert dialog.card("g", "a") is None
    assert dialog.card("g", "keep") is not None
    assert store_of(dialog).row("g", "a") is None
    assert store_of(dialog).row("g", "keep") is not None


def test_rows_the_store_forgot_leave_at_once_and_their_batch_with_the_last(
    dialog: ApprovalDialog,
) -> None:
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    upsert(dialog, "g", "G", resolved(approval("c", batch="b2"), OutcomeKind.DENIED), "")
    dialog.forget_rows("g", ["a", "c", "never-shown"])
    assert [r.key for r in dialog.model.board.rows()] == ["b"]
    assert dialog.model.board.batch("g", "s1", "b2") is None
    assert dialog.pending_count() == 1


def test_a_row_the_store_no_longer_holds_reads_resolved_and_answers_nothing(
    dialog: ApprovalDialog,
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    row = dialog.model.board.row(("g", "a"))
    assert row is not None
    store_of(dialog).remove_gateway("g")  # before the dialog hears of it
    assert row.approval.phase is ApprovalPhase.RESOLVED
    assert not any(rules.can_decide(row, choice) for choice in Choice)
