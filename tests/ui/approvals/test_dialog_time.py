"""Countdowns and when answered batches leave, on an injected clock (ticks every 5 ms here)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer
from pytestqt.qtbot import QtBot

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.model.approvals import rules
from desktop.model.bridge_events import RowsForgotten
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    catch_up,
    dialog_on_store,
    look_away,
    row_card,
    store_of,
    ticking,
    upsert,
    widget_for,
)

pytestmark = OFFSCREEN_WINDOWS


def countdown(dialog: ApprovalDialog, key: str) -> str:
    card = row_card(dialog, "g", key)
    assert card is not None
    return card.countdown.text()


def test_countdown_follows_the_injected_clock(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog = shown
    upsert(dialog, "g", "G", approval("a", expires_at=clock.now + 90), "")
    assert countdown(dialog, "a") == "expires in 1:30"
    clock.advance(80.5)
    qtbot.waitUntil(lambda: countdown(dialog, "a") == "expires in 0:10")
    card = row_card(dialog, "g", "a")
    assert card is not None
    assert card.countdown.property("urgent") is True
    clock.advance(20)
    qtbot.waitUntil(lambda: countdown(dialog, "a") == "expiring…")


def test_timer_runs_only_while_something_counts_down(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog = shown
    upsert(dialog, "g", "G", approval("plain"), "")
    assert not ticking(dialog)  # no expiry: nothing to count
    upsert(dialog, "g", "G", approval("timed", position=1, expires_at=clock.now + 60), "")
    assert ticking(dialog)
    upsert(dialog, "g", "G", resolved(approval("timed", position=1), OutcomeKind.EXPIRED), "")
    assert not ticking(dialog)  # "plain" still waits, but nothing counts down
    assert countdown(dialog, "timed") == ""


def answer_both(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE), "")
    upsert(dialog, "g", "G", resolved(approval("b", position=1), OutcomeKind.DENIED), "")


def leave_timer(dialog: ApprovalDialog) -> QTimer:
    timer = dialog.findChild(QTimer, "leaveTimer")
    assert timer is not None
    return timer


def test_an_answered_batch_stays_while_the_person_reads_then_goes_after_they_left(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog.present(activate=True)
    qtbot.waitUntil(dialog.isActiveWindow)
    answer_both(dialog)
    clock.advance(600)  # ten minutes of reading: nothing moves
    catch_up(dialog)
    assert row_card(dialog, "g", "a") is not None  # still shown, with its outcome
    assert not ticking(dialog)
    assert not leave_timer(dialog).isActive()
    look_away(dialog, qtbot)
    catch_up(dialog)
    assert leave_timer(dialog).isSingleShot()
    assert leave_timer(dialog).isActive()
    clock.advance(4.9)
    catch_up(dialog)
    assert row_card(dialog, "g", "b") is not None  # it lingers a moment after the person left
    clock.advance(0.2)
    catch_up(dialog)
    assert dialog.board.gateways == []
    assert store_of(dialog).row("g", "a") is None  # released: the store forgets it too
    assert not leave_timer(dialog).isActive()
    assert dialog.list_view.empty.isVisibleTo(dialog.list_view)


def test_the_pointer_over_the_window_holds_an_answered_batch_without_focus(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog.present(activate=True)
    answer_both(dialog)
    look_away(dialog, qtbot)
    qtbot.mouseMove(dialog.list_view)  # reading again, focus still elsewhere
    qtbot.waitUntil(dialog.underMouse)
    assert not dialog.isActiveWindow()
    clock.advance(60)
    catch_up(dialog)
    assert row_card(dialog, "g", "a") is not None
    assert not leave_timer(dialog).isActive()


def test_the_one_shot_timer_lets_the_batch_go_without_a_tick(
    qtbot: QtBot, clock: FakeClock
) -> None:
    dialog = dialog_on_store(clock=clock, grace_seconds=0.05)
    qtbot.addWidget(dialog)
    answer_both(dialog)  # answered elsewhere while the dialog is closed: nobody reads
    timer = leave_timer(dialog)
    assert timer.isActive()
    assert not ticking(dialog)
    clock.advance(0.05)
    with qtbot.waitSignal(timer.timeout):
        pass
    assert dialog.board.gateways == []


def test_choosing_a_row_of_another_batch_lets_the_answered_batch_go_at_once(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog.present(activate=True)
    answer_both(dialog)
    upsert(dialog, "g", "G", approval("next", batch="b2"), "")
    card = row_card(dialog, "g", "a")
    assert card is not None
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))  # reading it still
    assert row_card(dialog, "g", "a") is not None
    other = row_card(dialog, "g", "next")
    assert other is not None
    qtbot.mousePress(other, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    assert dialog.board.row(("g", "a")) is not None  # nothing moves mid-click
    qtbot.mouseRelease(other, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    qtbot.waitUntil(lambda: dialog.board.row(("g", "a")) is None)
    assert dialog.selected_row() is other.entry


def test_dismiss_removes_a_resolved_batch_at_once(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("keep", batch="other"), "")
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE), "")
    card = row_card(dialog, "g", "a")
    assert card is not None
    batch_widget = widget_for(dialog.list_view, card.entry.batch)
    dismiss = getattr(batch_widget, "dismiss", None)
    assert dismiss is not None
    assert not dismiss.isHidden()
    dismiss.click()
    assert row_card(dialog, "g", "a") is None
    assert row_card(dialog, "g", "keep") is not None
    assert store_of(dialog).row("g", "a") is None
    assert store_of(dialog).row("g", "keep") is not None


def test_rows_the_store_forgot_leave_at_once_and_their_batch_with_the_last(
    dialog: ApprovalDialog,
) -> None:
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    upsert(dialog, "g", "G", resolved(approval("c", batch="b2"), OutcomeKind.DENIED), "")
    dialog.forget_rows(RowsForgotten("g", ("a", "c", "never-shown")))
    assert [r.key for r in dialog.board.rows()] == ["b"]
    assert dialog.board.batch("g", "s1", "b2") is None
    assert dialog.pending_count() == 1


def test_a_row_the_store_no_longer_holds_reads_resolved_and_answers_nothing(
    dialog: ApprovalDialog,
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    row = dialog.board.row(("g", "a"))
    assert row is not None
    store_of(dialog).remove_gateway("g")  # before the dialog hears of it
    assert row.approval.phase is ApprovalPhase.RESOLVED
    assert not any(rules.can_decide(row, choice) for choice in Choice)


def test_the_countdown_rests_while_the_dialog_is_hidden_and_is_current_when_it_shows(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(dialog, "g", "G", approval("a", expires_at=clock.now + 90), "")
    assert not ticking(dialog)  # nobody reads it: nothing wakes the tray every second
    clock.advance(30)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    assert ticking(dialog)
    assert countdown(dialog, "a") == "expires in 1:00"  # current at once, not a second late
    dialog.hide()
    assert not ticking(dialog)
