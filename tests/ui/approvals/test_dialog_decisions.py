"""Decisions: one DecisionRequest per click, batch order, "Always" confirmation, stale rows."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core import decisions as core_decisions
from desktop.core.model import Approval, ApprovalPhase, Choice, OutcomeKind
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved, sending
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    Recorder,
    batch_card,
    look,
    row_card,
    upsert,
)

pytestmark = OFFSCREEN_WINDOWS


@pytest.fixture
def shown(dialog: ApprovalDialog, qtbot: QtBot) -> ApprovalDialog:
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    return dialog


def button(dialog: ApprovalDialog, key: str, choice: Choice) -> QPushButton:
    card = row_card(dialog, "g", key)
    assert card is not None
    return card.buttons[choice]


def click(qtbot: QtBot, widget: QPushButton) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def test_a_click_emits_one_request_and_disables_the_row_until_the_core_answers(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    with qtbot.waitSignal(shown.decision_requested) as emitted:
        click(qtbot, button(shown, "a", Choice.ONCE))
    assert emitted.args == [DecisionRequest("g", "a", Choice.ONCE, Surface.DIALOG_BUTTON, False)]
    click(qtbot, button(shown, "a", Choice.ONCE))  # a double click sends nothing more
    assert len(decisions.requests) == 1
    card = row_card(shown, "g", "a")
    assert card is not None
    assert card.state.text() == "Waiting for you"  # "Sending…" only when the core says so
    assert not any(b.isEnabled() for b in card.buttons.values())
    upsert(shown, "g", "G", sending(approval("a")), "")
    assert card.state.text() == "Sending…"


def test_a_command_too_long_to_show_can_be_denied_but_not_approved(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    cut = approval("a", command="x" * 200, answerable=False, blocked_reason=core_decisions.TOO_LONG)
    upsert(shown, "g", "G", cut, "")
    assert not button(shown, "a", Choice.ONCE).isEnabled()
    assert button(shown, "a", Choice.DENY).isEnabled()  # before: disabled with the rest
    click(qtbot, button(shown, "a", Choice.DENY))
    assert decisions.keys == ["a"]


def test_buttons_come_back_when_the_core_says_waiting_again(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    click(qtbot, button(shown, "a", Choice.DENY))
    upsert(shown, "g", "G", approval("a"), "")  # refused: the core re-publishes WAITING
    assert button(shown, "a", Choice.DENY).isEnabled()
    click(qtbot, button(shown, "a", Choice.DENY))
    assert decisions.keys == ["a", "a"]


def test_decision_refused_re_enables_and_says_why(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    click(qtbot, button(shown, "a", Choice.ONCE))
    shown.decision_refused("g", "a", "inside the <b>safety</b> margin")
    card = row_card(shown, "g", "a")
    assert card is not None
    assert card.notes.text() == "Not sent: inside the <b>safety</b> margin"
    assert button(shown, "a", Choice.ONCE).isEnabled()


def batch_of_three(dialog: ApprovalDialog, *, fifo: bool) -> None:
    """Arrives out of display order on purpose: positions decide the answer order.

    Low-risk commands: "Approve all" never covers a high-risk one (test_dialog_seen).
    """
    for key, position in (("first", 0), ("second", 1), ("third", 2)):
        blocked = fifo and position > 0
        a = approval(key, position=position, answerable=not blocked, command=f"make {key}")
        if blocked:
            a = replace(a, blocked_reason="Hermes 0.19 answers oldest first")
        upsert(dialog, "g", "G", a, "")


def test_approve_all_answers_every_waiting_row_once_in_arrival_order(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder, clock: FakeClock
) -> None:
    batch_of_three(shown, fifo=False)
    upsert(shown, "g", "G", approval("done", position=3, phase=ApprovalPhase.RESOLVED), "")
    upsert(shown, "g", "G", approval("stale", position=4, phase=ApprovalPhase.STALE), "")
    look(shown, clock)
    click(qtbot, batch_card(shown, "first").approve_all)
    assert decisions.requests == [
        DecisionRequest("g", k, Choice.ONCE, Surface.DIALOG_BATCH)
        for k in ("first", "second", "third")
    ]
    assert not batch_card(shown, "first").approve_all.isEnabled()


def test_deny_all_in_arrival_order(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("later", position=1), "")
    upsert(shown, "g", "G", approval("earlier", position=0), "")  # arrived second, queued first
    click(qtbot, batch_card(shown, "later").deny_all)
    assert [(r.key, r.choice) for r in decisions.requests] == [
        ("earlier", Choice.DENY),
        ("later", Choice.DENY),
    ]


class FifoCore:
    """Plays 0.19.0's core: only the head is answerable; answering it promotes the next."""

    def __init__(self, dialog: ApprovalDialog, rows: list[Approval]) -> None:
        self.dialog, self.rows = dialog, rows

    def __call__(self, request: DecisionRequest) -> None:
        head = next(a for a in self.rows if a.phase is ApprovalPhase.WAITING)
        assert request.key == head.key, "answered out of FIFO order"
        kind = OutcomeKind.APPROVED if request.choice is Choice.ONCE else OutcomeKind.DENIED
        self.publish(head, resolved(head, kind, request.choice))
        following = next((a for a in self.rows if a.phase is ApprovalPhase.WAITING), None)
        if following is not None:
            self.publish(following, replace(following, answerable=True, blocked_reason=""))

    def publish(self, old: Approval, new: Approval) -> None:
        self.rows[self.rows.index(old)] = new
        upsert(self.dialog, "g", "G", new, "")


def test_approve_all_on_0_19_follows_through_in_fifo_order(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder, clock: FakeClock
) -> None:
    batch_of_three(shown, fifo=True)
    board = shown.board
    core = FifoCore(shown, [r.approval for r in board.rows()])
    shown.decision_requested.connect(core)
    card = batch_card(shown, "first")
    assert not card.badge.isHidden()  # "in order"
    look(shown, clock)
    click(qtbot, card.approve_all)
    assert decisions.keys == ["first", "second", "third"]
    assert all(r.approval.outcome is not None for r in board.rows())
    late = approval("late", position=3)
    upsert(shown, "g", "G", late, "")  # arrived after the click: never answered for the person
    assert decisions.keys == ["first", "second", "third"]


def test_follow_through_stops_when_a_covered_row_ends_unexpectedly(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    batch_of_three(shown, fifo=True)
    click(qtbot, batch_card(shown, "first").deny_all)
    assert decisions.keys == ["first"]
    upsert(shown, "g", "G", resolved(approval("first"), OutcomeKind.WITHDRAWN, reason="x"), "")
    upsert(shown, "g", "G", approval("second", position=1), "")  # now the head, answerable
    assert decisions.keys == ["first"]


def test_always_asks_first_naming_the_pattern_class_then_sends(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    keys = ("recursive_delete", "<b>rm</b>\u202e")
    upsert(shown, "g", "G", approval("a", pattern_keys=keys), "")
    click(qtbot, button(shown, "a", Choice.ALWAYS))
    box = shown.confirmation_box
    assert box is not None
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert "pattern class: recursive_delete, <b>rm</b>⟨U+202E⟩?" in box.text()
    assert all(label.textFormat() != Qt.TextFormat.RichText for label in box.findChildren(QLabel))
    assert box.defaultButton().text() == "Cancel"
    assert decisions.requests == []  # nothing until confirmed
    confirm = box.findChild(QPushButton, "confirmAlways")
    assert confirm is not None
    with qtbot.waitSignal(shown.decision_requested) as emitted:
        click(qtbot, confirm)
    assert emitted.args == [DecisionRequest("g", "a", Choice.ALWAYS, Surface.DIALOG_BUTTON)]
    assert shown.confirmation_box is None


def test_always_cancelled_sends_nothing(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    click(qtbot, button(shown, "a", Choice.ALWAYS))
    box = shown.confirmation_box
    assert box is not None
    with qtbot.waitSignal(box.finished):
        box.reject()
    assert decisions.requests == []
    assert button(shown, "a", Choice.ALWAYS).isEnabled()


def test_always_question_closes_if_the_row_ends_meanwhile(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    click(qtbot, button(shown, "a", Choice.ALWAYS))
    assert shown.confirmation_box is not None
    upsert(shown, "g", "G", resolved(approval("a"), OutcomeKind.EXPIRED), "")
    assert shown.confirmation_box is None
    assert decisions.requests == []


def test_stale_row_needs_reconfirm_then_sends_with_confirm_stale(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    stale = approval("a", phase=ApprovalPhase.STALE, blocked_reason="reconnected")
    upsert(shown, "g", "G", stale, "")
    card = row_card(shown, "g", "a")
    assert card is not None
    assert card.state.text() == "Stale — reconnected"
    assert not card.reconfirm.isHidden()
    assert not any(b.isEnabled() for b in card.buttons.values())
    click(qtbot, card.reconfirm)
    assert "Choose again" in card.state.text()
    assert card.reconfirm.isHidden()
    click(qtbot, card.buttons[Choice.DENY])
    assert decisions.requests == [
        DecisionRequest("g", "a", Choice.DENY, Surface.DIALOG_BUTTON, True)
    ]


def test_stale_rows_are_left_out_of_batch_actions(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder, clock: FakeClock
) -> None:
    upsert(shown, "g", "G", approval("a", phase=ApprovalPhase.STALE, command="make a"), "")
    upsert(shown, "g", "G", approval("b", position=1, command="make b"), "")
    look(shown, clock)
    click(qtbot, batch_card(shown, "a").approve_all)
    assert decisions.requests == [DecisionRequest("g", "b", Choice.ONCE, Surface.DIALOG_BATCH)]
