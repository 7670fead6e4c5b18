"""The window: no focus stealing, focus_batch, stability on screen, counts and clearing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.model import ApprovalPhase, OutcomeKind
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    catch_up,
    look_away,
    row_card,
    row_cards,
    store_of,
    tap,
    upsert,
)

pytestmark = OFFSCREEN_WINDOWS


class Spy:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


def test_arrivals_do_not_show_the_window(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    assert not dialog.isVisible()


def test_present_without_activation_never_raises_or_activates(
    dialog: ApprovalDialog, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    raise_spy, activate_spy = Spy(), Spy()
    monkeypatch.setattr(dialog, "raise_", raise_spy)
    monkeypatch.setattr(dialog, "activateWindow", activate_spy)
    upsert(dialog, "g", "G", approval("a"), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    assert dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    upsert(dialog, "g", "G", approval("b", position=1), "")
    dialog.present(activate=False)  # a second arrival while shown: still nothing
    assert (raise_spy.calls, activate_spy.calls) == (0, 0)


def test_present_with_activation_raises_and_focuses_the_list(
    dialog: ApprovalDialog, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    activate_spy = Spy()
    monkeypatch.setattr(dialog, "activateWindow", activate_spy)
    dialog.present(activate=False)
    dialog.present(activate=True)
    qtbot.waitExposed(dialog)
    assert not dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert activate_spy.calls == 1


def test_focus_batch_selects_its_first_waiting_row(dialog: ApprovalDialog, qtbot: QtBot) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", resolved(approval("x", batch="b2"), OutcomeKind.DENIED), "")
    upsert(dialog, "g", "G", approval("y", batch="b2", position=1), "")
    dialog.focus_batch("g", "b2")
    qtbot.waitExposed(dialog)
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "y"
    assert dialog.isVisible()


def test_focus_batch_of_a_gone_batch_still_opens_the_window(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    dialog.focus_batch("g", "no-such-batch")
    qtbot.waitExposed(dialog)
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "a"


def test_rows_above_coming_and_going_do_not_move_the_selected_row_on_screen(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    dialog.resize(700, 420)
    upsert(dialog, "g", "G", approval("done", batch="b0"), "")
    for i in range(3):
        upsert(dialog, "g", "G", approval(f"early{i}", batch="b1", position=i), "")
    for i in range(4):
        upsert(dialog, "g", "G", approval(f"late{i}", batch="b2", position=i), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    for _ in range(6):  # down to the third of the last batch, scrolled to as it goes
        tap(dialog.list_view, Qt.Key.Key_Down)
    target = row_card(dialog, "g", "late2")
    assert target is not None
    bar = dialog.list_view.verticalScrollBar()
    assert dialog.selected_row() is target.entry
    viewport = dialog.list_view.viewport()

    def y() -> int:
        return target.mapTo(viewport, QPoint(0, 0)).y()

    qtbot.waitUntil(lambda: bar.value() > 0 and 0 <= y() < viewport.height())

    before, bar_before = y(), bar.value()
    upsert(dialog, "g", "G", approval("early-late", batch="b1", position=3), "")  # above it
    assert y() == before
    qtbot.waitUntil(lambda: bar.value() > bar_before)  # laid out once, in the next turn:
    assert y() == before  # the content above grew out of sight instead
    bar_before = bar.value()
    hints = dialog.findChild(QLabel, "keyHints")
    assert hints is not None
    upsert(dialog, "g", "G", resolved(approval("done", batch="b0"), OutcomeKind.DENIED), "")
    qtbot.waitUntil(lambda: y() == before)
    bar_before = bar.value()
    look_away(dialog, qtbot)
    clock.advance(60)  # the answered batch at the top leaves once the person left
    catch_up(dialog)
    assert dialog.board.row(("g", "done")) is None
    qtbot.waitUntil(lambda: bar.value() < bar_before)  # laid out in the next turn
    assert y() == before
    assert dialog.selected_row() is target.entry


def test_pending_count_and_window_title(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1, phase=ApprovalPhase.STALE), "")
    upsert(dialog, "g", "G", approval("c", position=2, phase=ApprovalPhase.SENDING), "")
    upsert(dialog, "h", "H", resolved(approval("d"), OutcomeKind.DENIED), "")
    assert dialog.pending_count() == 2  # waiting + stale: both need the person
    assert "2 commands waiting" in dialog.windowTitle()


def test_clear_gateway_removes_only_that_gateway(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", resolved(approval("done", batch="b0"), OutcomeKind.DENIED), "")
    upsert(dialog, "h", "H", approval("b"), "")
    dialog.clear_gateway("g")
    dialog.clear_gateway("unknown")  # harmless
    assert store_of(dialog).row("g", "done") is None  # released with its gateway
    assert row_card(dialog, "g", "a") is None
    assert row_card(dialog, "h", "b") is not None
    assert dialog.pending_count() == 1
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "b"  # the selection moved off the removed row


def test_an_unattended_window_closes_itself_when_nothing_is_left(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not dialog.isActiveWindow())
    dialog.clear_gateway("g")
    assert not dialog.isVisible()


def test_the_window_the_person_works_in_stays_open_and_says_so(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    dialog.show()
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.clear_gateway("g")
    assert dialog.isVisible()
    assert dialog.list_view.empty.isVisible()
    assert dialog.list_view.empty.text() == "Nothing is waiting for you."


def test_selection_left_on_an_answered_row_follows_new_work_while_nobody_types_here(
    dialog: ApprovalDialog,
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED), "")
    upsert(dialog, "g", "G", approval("new", batch="b2"), "")  # the dialog is not active
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "new"


def test_cards_exist_only_while_the_dialog_is_shown(dialog: ApprovalDialog, qtbot: QtBot) -> None:
    for i in range(3):
        upsert(dialog, "g", "G", approval(f"r{i}", position=i), "")
    assert dialog.list_view.findChildren(QWidget, "rowCard") == []  # hidden: the model only
    assert dialog.pending_count() == 3
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    assert len(row_cards(dialog.list_view)) == 3
    upsert(dialog, "g", "G", approval("r3", position=3), "")  # while shown: one more card
    card = row_card(dialog, "g", "r3")
    assert card is not None
    qtbot.waitUntil(card.isVisible)
    dialog.hide()
    assert row_cards(dialog.list_view) == []  # dropped with the window
    upsert(dialog, "g", "G", approval("r4", position=4), "")
    assert dialog.pending_count() == 5
    dialog.present(activate=False)
    keys = [c.entry.approval.key for c in row_cards(dialog.list_view)]
    assert keys == ["r0", "r1", "r2", "r3", "r4"]


def test_clicking_a_command_selects_its_row(dialog: ApprovalDialog, qtbot: QtBot) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    dialog.present(activate=True)
    qtbot.waitUntil(dialog.isActiveWindow)
    card = row_card(dialog, "g", "b")
    assert card is not None
    qtbot.waitUntil(card.command.isVisible)
    qtbot.mouseClick(card.command.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert dialog.selected_row() is card.entry


def test_clicking_a_label_selects_its_row_even_before_the_window_is_active(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    card = row_card(dialog, "g", "b")
    assert card is not None
    qtbot.waitUntil(card.state.isVisible)
    qtbot.mouseClick(card.state, Qt.MouseButton.LeftButton)
    assert dialog.selected_row() is card.entry
