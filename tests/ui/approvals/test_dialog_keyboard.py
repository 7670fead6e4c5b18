"""Keyboard first: moving, answering, and a held key that can answer only one row."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAccessible, QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.model import NO_CONTEXT, ApprovalPhase, CallContext, Choice, OutcomeKind
from desktop.journal import Surface
from desktop.model.approvals import rules
from desktop.model.bridge_events import DecisionRequest
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    Recorder,
    dialog_on_store,
    look,
    row_card,
    upsert,
)

pytestmark = OFFSCREEN_WINDOWS
SHOP = "/home/ann/src/shop"

K = Qt.Key
M = Qt.KeyboardModifier


def press(
    widget: QWidget, key: K, mods: M = M.NoModifier, *, repeat: bool = False, at_ms: int = 0
) -> None:
    event = QKeyEvent(QEvent.Type.KeyPress, key, mods, "", repeat)
    event.setTimestamp(at_ms)
    QApplication.sendEvent(widget, event)


def release(
    widget: QWidget, key: K, mods: M = M.NoModifier, *, repeat: bool = False, at_ms: int = 0
) -> None:
    event = QKeyEvent(QEvent.Type.KeyRelease, key, mods, "", repeat)
    event.setTimestamp(at_ms)
    QApplication.sendEvent(widget, event)


def tap(widget: QWidget, key: K, mods: M = M.NoModifier) -> None:
    press(widget, key, mods)
    release(widget, key, mods)


@pytest.fixture
def dialog(
    qtbot: QtBot, clock: FakeClock, decisions: Recorder, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ApprovalDialog]:
    """The dialog without the key dwell: these tests are about the map and the repeat gate.

    The dwell (a row must be on screen and selected for a moment) is tested on its own, in
    ``test_dialog_seen``.
    """
    monkeypatch.setattr(rules, "KEY_DWELL_S", 0.0)
    d = dialog_on_store(clock=clock, grace_seconds=5.0, tick_ms=5)
    qtbot.addWidget(d)
    d.decision_requested.connect(decisions)
    yield d
    box = d.confirmation_box
    if box is not None:
        box.reject()
    d.close()


@pytest.fixture
def three(dialog: ApprovalDialog, qtbot: QtBot) -> QWidget:
    """Three waiting rows in two batches; returns the widget that has the keyboard focus."""
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    upsert(dialog, "g", "G", approval("c", batch="b2"), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    return dialog.list_view


def selected(dialog: ApprovalDialog) -> str | None:
    row = dialog.selected_row()
    return row.approval.key if row else None


def test_first_waiting_row_is_selected_and_up_down_move(
    dialog: ApprovalDialog, three: QWidget
) -> None:
    assert selected(dialog) == "a"
    tap(three, K.Key_Down)
    assert selected(dialog) == "b"
    tap(three, K.Key_Down)
    tap(three, K.Key_Down)  # clamps at the bottom
    assert selected(dialog) == "c"
    tap(three, K.Key_Up)
    assert selected(dialog) == "b"
    card = row_card(dialog, "g", "b")
    assert card is not None
    assert card.property("selected") is True


@pytest.mark.parametrize(
    ("key", "mods", "choice"),
    [
        (K.Key_A, M.NoModifier, Choice.ONCE),
        (K.Key_Return, M.ControlModifier, Choice.ONCE),
        (K.Key_D, M.NoModifier, Choice.DENY),
        (K.Key_Backspace, M.ControlModifier, Choice.DENY),
        (K.Key_S, M.NoModifier, Choice.SESSION),
    ],
)
def test_shortcuts_answer_the_selected_row_and_move_on(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder, key: K, mods: M, choice: Choice
) -> None:
    tap(three, key, mods)
    assert decisions.requests == [DecisionRequest("g", "a", choice, Surface.DIALOG_KEYBOARD)]
    assert selected(dialog) == "b"


def test_shortcuts_work_while_a_button_has_focus(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder, qtbot: QtBot
) -> None:
    card = row_card(dialog, "g", "a")
    assert card is not None
    focused_button = card.buttons[Choice.SESSION]
    dialog.activateWindow()  # real focus: the router filters the focus widget, not every child
    qtbot.waitUntil(dialog.isActiveWindow)
    focused_button.setFocus(Qt.FocusReason.TabFocusReason)
    assert focused_button.hasFocus()
    tap(focused_button, K.Key_Down)  # a button would move focus; here it moves the selection
    assert selected(dialog) == "b"
    tap(focused_button, K.Key_D)
    assert decisions.keys == ["b"]


def test_plain_enter_answers_nothing(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    tap(three, K.Key_Return)
    tap(dialog, K.Key_Enter)
    assert decisions.requests == []
    assert dialog.isVisible()


def test_a_held_key_answers_one_row_only(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    press(three, K.Key_A)
    for _ in range(5):  # what a held key sends on X11: auto-repeat release + press pairs
        release(three, K.Key_A, repeat=True)
        press(three, K.Key_A, repeat=True)
    assert decisions.keys == ["a"]
    press(three, K.Key_A)  # even a non-repeat press before the real release
    assert decisions.keys == ["a"]
    release(three, K.Key_A)
    tap(three, K.Key_A)
    assert decisions.keys == ["a", "b"]


def test_a_held_key_whose_repeats_qt_does_not_mark_still_answers_one_row(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    press(three, K.Key_A, at_ms=1000)
    for n in range(1, 40):  # X11 under load: release/press pairs at one timestamp, unmarked
        release(three, K.Key_A, at_ms=1000 + 500 + 33 * n)
        press(three, K.Key_A, at_ms=1000 + 500 + 33 * n)
    assert decisions.keys == ["a"]
    release(three, K.Key_A, at_ms=2900)  # the finger lifts
    press(three, K.Key_A, at_ms=3100)  # and presses again: a fresh press answers
    assert decisions.keys == ["a", "b"]


def test_another_key_while_the_first_is_held_does_not_decide(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    press(three, K.Key_A)
    tap(three, K.Key_D)
    assert decisions.keys == ["a"]
    release(three, K.Key_A)
    tap(three, K.Key_D)
    assert [(r.key, r.choice) for r in decisions.requests] == [
        ("a", Choice.ONCE),
        ("b", Choice.DENY),
    ]


def test_a_key_on_a_row_that_cannot_be_answered_does_nothing_and_does_not_lock(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a", answerable=False, blocked_reason="oldest first"), "")
    assert selected(dialog) == "a"  # still waiting, so the selection stays
    press(three, K.Key_A)
    assert decisions.requests == []
    assert dialog.notice.text() == (
        "A did nothing: this command cannot be answered yet (oldest first)."
    )  # said, not silent
    release(three, K.Key_A)
    tap(three, K.Key_Down)
    tap(three, K.Key_A)  # the earlier press did not lock the gate
    assert decisions.keys == ["b"]


def test_shift_a_asks_before_always(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    press(three, K.Key_A, M.ShiftModifier)  # released in the question, never here
    box = dialog.confirmation_box
    assert box is not None
    assert decisions.requests == []
    tap(box, K.Key_Return)  # Enter in the question picks its default: Cancel
    assert dialog.confirmation_box is None
    assert decisions.requests == []
    tap(three, K.Key_A)  # the gate did not stay locked on the Shift+A it never saw released
    assert decisions.requests == [DecisionRequest("g", "a", Choice.ONCE, Surface.DIALOG_KEYBOARD)]


def test_keys_typed_into_the_always_question_never_answer_rows(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    tap(three, K.Key_A, M.ShiftModifier)
    box = dialog.confirmation_box
    assert box is not None
    for key in (K.Key_D, K.Key_A, K.Key_S, K.Key_Down):
        tap(box, key)
        button = box.focusWidget() or box
        tap(button, key)
    assert decisions.requests == []
    assert dialog.confirmation_box is box  # still asking
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "a"


def test_stale_row_ignores_keys_until_reconfirmed(
    dialog: ApprovalDialog, three: QWidget, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a", phase=ApprovalPhase.STALE), "")
    tap(three, K.Key_A)
    assert decisions.requests == []
    card = row_card(dialog, "g", "a")
    assert card is not None
    card.reconfirm.click()
    tap(three, K.Key_A)
    assert decisions.requests == [
        DecisionRequest("g", "a", Choice.ONCE, Surface.DIALOG_KEYBOARD, True)
    ]


def test_page_keys_scroll_the_selected_command(dialog: ApprovalDialog, three: QWidget) -> None:
    upsert(dialog, "g", "G", approval("a", command="\n".join(f"line {i}" for i in range(200))), "")
    card = row_card(dialog, "g", "a")
    assert card is not None
    bar = card.command.verticalScrollBar()
    assert bar.value() == 0
    tap(three, K.Key_PageDown)
    assert bar.value() > 0


def _heard(widget: QWidget) -> str:
    """What assistive technology is told the focused widget is called."""
    interface = QAccessible.queryAccessibleInterface(widget)
    assert interface is not None
    return interface.text(QAccessible.Text.Name)


def test_a_screen_reader_hears_the_selected_command_its_risk_and_state(
    dialog: ApprovalDialog, clock: FakeClock, qtbot: QtBot
) -> None:
    for i, command in enumerate(("rm -rf build/", "ls -la", "cat notes\u202etxt.sh")):
        a = approval(f"r{i}", position=i, command=command, expires_at=clock.now + 300)
        upsert(dialog, "g", "G", replace(a, context=NO_CONTEXT), "")  # no folder: build/ is high
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    view.flush(overscan=True)
    first = _heard(view)
    assert first.startswith("Command 1. High risk. Waiting for you. ")
    assert "Command: rm -rf build/. Hermes flagged: recursive delete" in first
    tap(view, K.Key_Down)
    view.flush(overscan=True)
    card = row_card(dialog, "g", "r1")
    assert card is not None
    heard = _heard(view)
    assert heard.startswith("Command 2. Low risk. Waiting for you. ")
    assert heard == card.spoken()
    before = card.countdown.text()
    clock.advance(61.0)
    qtbot.waitUntil(lambda: card.countdown.text() != before)  # the tick ran ...
    assert _heard(view) == heard  # ... and was not read out
    tap(view, K.Key_Down)
    view.flush(overscan=True)
    hidden = _heard(view)
    assert "Command: cat notes⟨U+202E⟩txt.sh. ⚠ Hidden characters" in hidden
    assert "U+202E RIGHT-TO-LEFT OVERRIDE. Check the command carefully. Hermes flagged" in hidden


def test_a_request_under_the_selected_rows_id_never_takes_the_selection(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    first = approval("a", command="ls -la")
    upsert(dialog, "g", "G", first, "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    assert selected(dialog) == "a"
    # The gateway re-uses the selected request's id for another command (N2).
    upsert(dialog, "g", "G", resolved(first, OutcomeKind.WITHDRAWN, reason="replaced"), "")
    upsert(dialog, "g", "G", approval("a2", command="rm -rf ~/important", replaces="a"), "")
    assert selected(dialog) != "a2"
    look(dialog, clock, 0.7)
    tap(dialog.list_view, K.Key_A)  # meant for the row that just left
    assert decisions.keys == []
    tap(dialog.list_view, K.Key_Down)  # the person moves onto it on purpose
    assert selected(dialog) == "a2"
    look(dialog, clock, 0.7)
    tap(dialog.list_view, K.Key_D)
    assert decisions.keys == []  # a replacement needs the longer look first
    look(dialog, clock, 0.2)
    tap(dialog.list_view, K.Key_D)
    assert decisions.keys == ["a2"]


def test_after_an_answer_the_selection_skips_high_risk_rows(
    qtbot: QtBot, clock: FakeClock, decisions: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "KEY_DWELL_S", 0.0)
    d = dialog_on_store(clock=clock, grace_seconds=5.0, tick_ms=5)
    qtbot.addWidget(d)
    d.decision_requested.connect(decisions)
    upsert(d, "g", "G", approval("a", command="ls -la", context=CallContext(cwd=SHOP)), "")
    upsert(d, "g", "G", approval("b", command="rm -rf ~", position=1), "")
    upsert(
        d,
        "g",
        "G",
        approval("c", command="rm -rf build", position=2, context=CallContext(cwd=SHOP)),
        "",
    )
    d.present(activate=False)
    qtbot.waitExposed(d)
    tap(d.list_view, K.Key_A)
    assert decisions.keys == ["a"]
    assert selected(d) == "c"  # not "rm -rf ~", which the key was not meant for
    d.close()
