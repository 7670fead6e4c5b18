"""Only what was seen is answered; the selection follows the work; keys and presses say why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.model import (
    Choice,
    OutcomeKind,
    SessionState,
    YoloSource,
    YoloState,
)
from desktop.journal import Surface
from desktop.model.approvals.rules import BATCH_DWELL_S, KEY_DWELL_S, head_on_screen
from desktop.model.bridge_events import DecisionRequest, SessionUpdate
from desktop.ui.approvals import dialog as dialog_module
from desktop.ui.approvals.cards import BatchCard
from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.approvals.list_view import pointer_over
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    Recorder,
    batch_card,
    dialog_on_store,
    look,
    row_card,
    row_cards,
    tap,
    upsert,
    widget_for,
)

pytestmark = OFFSCREEN_WINDOWS
K = Qt.Key


# -- "Approve all" covers exactly what was on screen -------------------------------------------
def test_approve_all_leaves_a_row_that_arrived_just_before_the_press_waiting(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a", command="make a"), "")
    upsert(shown, "g", "G", approval("b", position=1, command="make b"), "")
    look(shown, clock)
    for late_ms, key in ((0, "c"), (300, "d")):  # the two cases the outside attack used
        late = approval(key, position=ord(key) - ord("a"), command=f"make {key}")
        upsert(shown, "g", "G", late, "")
        shown.list_view.flush(overscan=True)
        clock.advance(late_ms / 1000)
    qtbot.mouseClick(batch_card(shown, "a").approve_all, Qt.MouseButton.LeftButton)
    assert decisions.requests == [
        DecisionRequest("g", k, Choice.ONCE, Surface.DIALOG_BATCH) for k in ("a", "b")
    ]
    late = [shown.board.row(("g", k)) for k in ("c", "d")]
    assert all(r is not None and r.is_open and not r.awaiting_core for r in late)
    assert "2 still wait: not on screen long enough" in shown.notice.text()


def test_approve_all_never_covers_a_row_scrolled_out_of_sight(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    dialog.resize(700, 420)
    for i in range(12):
        upsert(dialog, "g", "G", approval(f"r{i}", position=i, command=f"make r{i}"), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    look(dialog, clock, BATCH_DWELL_S + 0.1)
    on_screen = {r.approval.key for r in dialog.list_view.rows_on_screen()}
    assert on_screen
    assert len(on_screen) < 12
    qtbot.mouseClick(batch_card(dialog, "r0").approve_all, Qt.MouseButton.LeftButton)
    assert set(decisions.keys) == on_screen


def test_a_card_counts_as_on_screen_only_with_its_head_inside_the_viewport() -> None:
    assert head_on_screen(0, 150, 400)
    assert head_on_screen(300, 150, 400)  # number, state and first lines are in; buttons not
    assert not head_on_screen(350, 150, 400)  # only its top edge peeks in at the bottom
    assert not head_on_screen(-20, 150, 400)  # its head scrolled away above: buttons only
    assert head_on_screen(360, 40, 400)  # a short card wholly inside


def test_deny_all_covers_every_waiting_row_at_once(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    upsert(shown, "g", "G", approval("b", position=1), "")  # no time passes: a deny is safe
    qtbot.mouseClick(batch_card(shown, "a").deny_all, Qt.MouseButton.LeftButton)
    assert [(r.key, r.choice) for r in decisions.requests] == [
        ("a", Choice.DENY),
        ("b", Choice.DENY),
    ]


def test_deny_and_stop_denies_every_waiting_row_then_asks_to_interrupt_the_session(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    upsert(shown, "g", "G", approval("b", position=1), "")
    card = batch_card(shown, "a")
    assert card.deny_and_stop.isVisible()
    with qtbot.waitSignal(shown.stop_requested) as stop:
        qtbot.mouseClick(card.deny_and_stop, Qt.MouseButton.LeftButton)
    assert [(r.key, r.choice) for r in decisions.requests] == [
        ("a", Choice.DENY),
        ("b", Choice.DENY),
    ]
    assert stop.args == ["g", approval("a").session_id]


class Level(Enum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass(frozen=True)
class Assessment:
    level: Level


def judge(command: str, cwd: str) -> Assessment:
    """Stands in for desktop.risk.assess: anything with "rm -rf /" or "DROP" is high."""
    return Assessment(Level.HIGH if "rm -rf /" in command or "DROP" in command else Level.LOW)


def test_the_real_risk_lens_keeps_rm_rf_out_of_approve_all(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("ls", command="ls -la"), "")
    upsert(shown, "g", "G", approval("rm", position=1, command="rm -rf /srv/build"), "")
    look(shown, clock)
    qtbot.mouseClick(batch_card(shown, "ls").approve_all, Qt.MouseButton.LeftButton)
    assert decisions.keys == ["ls"]
    assert "Command 2: rm -rf /srv/build" in shown.notice.text()


def test_approve_all_leaves_high_risk_rows_waiting_and_names_them(
    qtbot: QtBot, clock: FakeClock, decisions: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dialog_module, "risk_assess", judge)
    dialog = dialog_on_store(clock=clock, grace_seconds=5.0, tick_ms=5)
    qtbot.addWidget(dialog)
    dialog.decision_requested.connect(decisions)
    dialog.resize(760, 900)
    upsert(dialog, "g", "G", approval("ls", command="ls -la"), "")
    upsert(dialog, "g", "G", approval("drop", position=1, command="psql -c 'DROP SCHEMA x'"), "")
    upsert(dialog, "g", "G", approval("rm", position=2, command="rm -rf /srv/data"), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    look(dialog, clock)
    qtbot.mouseClick(batch_card(dialog, "ls").approve_all, Qt.MouseButton.LeftButton)
    assert decisions.keys == ["ls"]
    text = dialog.notice.text()
    assert "High risk, answer each on its own" in text
    assert "Command 2: psql -c 'DROP SCHEMA x'" in text
    assert "Command 3: rm -rf /srv/data" in text
    dialog.close()


# -- keys answer only a row that was shown and selected for a moment ----------------------------
def test_a_double_tap_40_ms_apart_answers_one_row_and_says_why_the_second_did_nothing(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    look(dialog, clock, KEY_DWELL_S)
    tap(dialog.list_view, K.Key_A)
    assert decisions.keys == ["a"]
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "b"
    clock.advance(0.04)
    tap(dialog.list_view, K.Key_A)
    assert decisions.keys == ["a"]
    assert dialog.notice.text() == (
        "A did nothing: this command was selected only a moment ago. Read it, then press again."
    )
    clock.advance(KEY_DWELL_S)
    tap(dialog.list_view, K.Key_A)
    assert decisions.keys == ["a", "b"]


def test_the_selection_moves_on_when_its_row_ends_elsewhere_even_while_the_person_works_here(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", approval("b", position=1), "")
    dialog.present(activate=True)
    qtbot.waitUntil(dialog.isActiveWindow)
    upsert(
        dialog, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED), ""
    )  # answered in Hermes
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "b"
    replaced = resolved(approval("b", position=1), OutcomeKind.WITHDRAWN, reason="replaced")
    upsert(dialog, "g", "G", replaced, "")
    upsert(dialog, "g", "G", approval("b2", position=2, command="rm -rf other/"), "")
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "b2"
    tap(dialog.list_view, K.Key_D)
    assert decisions.requests == []
    dialog.list_view.flush(overscan=True)
    clock.advance(KEY_DWELL_S)
    tap(dialog.list_view, K.Key_D)
    assert decisions.keys == ["b2"]


def test_a_key_on_a_row_that_offers_no_such_choice_says_so(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a", choices=(Choice.ONCE, Choice.DENY)), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    look(dialog, clock)
    tap(dialog.list_view, K.Key_S)
    assert decisions.requests == []
    assert dialog.notice.text() == (
        "S did nothing: Hermes did not offer “Allow for session” for this command."
    )


# -- only offered choices (issue 17) -----------------------------------------------------------
def test_a_row_offering_nothing_known_shows_no_buttons_and_says_answer_in_hermes(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(dialog, "g", "G", approval("a", choices=()), "")  # the server offered only ["all"]
    upsert(dialog, "g", "G", approval("b", position=1, choices=(Choice.DENY,)), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    card_a, card_b = row_card(dialog, "g", "a"), row_card(dialog, "g", "b")
    assert card_a is not None
    assert card_b is not None
    assert card_a.buttons == {}
    assert "answer it in Hermes" in card_a.notes.text()
    assert list(card_b.buttons) == [Choice.DENY]  # never Approve once that was not offered
    look(dialog, clock)
    tap(dialog.list_view, K.Key_A)
    assert decisions.requests == []
    assert "answer it in Hermes" in dialog.notice.text()
    batch = widget_for(dialog.list_view, card_a.entry.batch)
    assert isinstance(batch, BatchCard)
    assert not batch.approve_all.isEnabled()


# -- counts, YOLO, opening -------------------------------------------------------------------
def test_an_expired_row_is_counted_as_expired_not_answered(
    shown: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(shown, "g", "G", resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE), "")
    upsert(shown, "g", "G", resolved(approval("b", position=1), OutcomeKind.EXPIRED), "")
    batch = batch_card(shown, "a")
    assert batch.summary.text() == "2 commands · 1 approved, 1 expired"
    assert "answered" not in shown.windowTitle()
    assert shown.windowTitle() == "Hermes approvals — nothing waiting"


def test_yolo_turned_on_while_rows_wait_says_they_still_wait(
    shown: ApprovalDialog, qtbot: QtBot, sessions: dict[tuple[str, str], SessionState]
) -> None:
    upsert(shown, "g", "G", approval("a"), "Build")
    assert shown.yolo_note.isHidden()
    on = SessionState("s1", title="Build", yolo=YoloState(True, YoloSource.SESSION))
    sessions[("g", "s1")] = on  # the store folds the change before the dialog hears of it
    shown.session_changed(SessionUpdate("g", on))
    assert not shown.yolo_note.isHidden()
    text = shown.yolo_note.text()
    assert "YOLO is on for “Build” (1 waiting)" in text
    assert "neither approves nor withdraws a command already asked" in text
    upsert(shown, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "Build")
    assert shown.yolo_note.isHidden()  # nothing of that session waits any more


def test_the_yolo_note_reads_the_store_whenever_the_rows_or_the_session_change(
    shown: ApprovalDialog, sessions: dict[tuple[str, str], SessionState]
) -> None:
    on = SessionState("s1", title="Build · app", yolo=YoloState(True, YoloSource.SESSION))
    sessions[("g", "s1")] = on  # YOLO was on before the dialog saw a row of that session
    upsert(shown, "g", "G", approval("a"), "Build · app")
    assert "YOLO is on for “Build · app” (1 waiting)" in shown.yolo_note.text()
    sessions[("g", "s1")] = SessionState("s1", title="Build · app")
    shown.session_changed(SessionUpdate("g", sessions[("g", "s1")]))
    assert shown.yolo_note.isHidden()


def test_it_opens_on_the_first_waiting_row_with_its_heading_in_view(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 420)
    for i in range(8):
        done = resolved(approval(f"old{i}", batch="b0", position=i), OutcomeKind.DENIED)
        upsert(dialog, "g", "G", done, "")
    upsert(dialog, "g", "G", approval("wait", session="s2", batch="b1"), "Second")
    dialog.present(activate=True)
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.list_view.flush(overscan=True)
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "wait"
    session = dialog.board.session("g", "s2")
    assert session is not None
    view = dialog.list_view
    heading, card = widget_for(view, session), widget_for(view, row)
    assert heading is not None
    assert card is not None
    assert 0 <= heading.y() < card.y() < view.viewport().height()


# -- nothing moves under the pointer -----------------------------------------------------------
def test_answering_a_row_under_the_pointer_does_not_move_the_next_rows_buttons(
    shown: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a"), "")
    upsert(shown, "g", "G", approval("b", position=1), "")
    shown.list_view.flush(overscan=True)
    first, second = row_card(shown, "g", "a"), row_card(shown, "g", "b")
    assert first is not None
    assert second is not None
    target = first.buttons[Choice.DENY]
    qtbot.mouseMove(target)  # the pointer rests on the list, on the first row's Deny
    qtbot.waitUntil(lambda: pointer_over(shown.list_view.viewport()))
    viewport = shown.list_view.viewport()
    before = second.buttons[Choice.DENY].mapTo(viewport, QPoint(0, 0))
    qtbot.mouseClick(target, Qt.MouseButton.LeftButton)
    upsert(shown, "g", "G", resolved(approval("a"), OutcomeKind.DENIED, Choice.DENY), "")
    qtbot.waitUntil(lambda: first.buttons[Choice.DENY].isHidden())
    shown.list_view.flush(overscan=True)
    assert second.buttons[Choice.DENY].mapTo(viewport, QPoint(0, 0)) == before
    assert decisions.keys == ["a"]


def test_a_cards_contents_stay_put_when_the_selection_moves_onto_or_off_it(
    shown: ApprovalDialog, qtbot: QtBot
) -> None:
    """The selected card's thicker border takes the padding's place, never the contents'."""
    for i, key in enumerate("abc"):
        upsert(shown, "g", "G", approval(key, position=i), "")
    cards = [row_card(shown, "g", key) for key in "abc"]
    assert all(card is not None for card in cards)

    def places() -> list[QPoint]:
        return [card.command.mapTo(card, QPoint(0, 0)) for card in cards if card is not None]

    built = places()
    assert cards[0] is not None
    assert cards[0].property("selected")  # built selected, the others not
    assert built == [built[0]] * 3
    tap(shown.list_view, K.Key_Down)
    tap(shown.list_view, K.Key_Down)
    qtbot.waitUntil(lambda: cards[2] is not None and bool(cards[2].property("selected")))
    shown.list_view.flush(overscan=True)
    assert places() == built


# -- scale: widgets only for what is on screen -------------------------------------------------
def test_only_rows_on_screen_have_widgets_and_ended_rows_release_theirs(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 600)
    for s in range(20):
        for i in range(100):
            upsert(dialog, "g", "G", approval(f"s{s}r{i}", session=f"s{s}", position=i), "")
    assert dialog.pending_count() == 2000
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.list_view.flush(overscan=True)
    built = row_cards(dialog.list_view)
    assert 0 < len(built) <= 12  # the viewport plus a margin, not 2,000
    bar = dialog.list_view.verticalScrollBar()
    bar.setValue(bar.maximum())
    dialog.list_view.flush(overscan=True)
    keys = {c.entry.approval.key for c in row_cards(dialog.list_view)}
    assert "s19r99" in keys
    assert "s0r1" not in keys  # (s0r0 stays built: it is selected, the keyboard acts on it)
    assert len(keys) <= 13
    dialog.clear_gateway("g")
    assert row_cards(dialog.list_view) == []
    assert dialog.list_view._heights == {}


def test_reopened_while_scrolled_past_it_the_row_comes_back_with_its_heading(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 420)
    for i in range(3):  # answered earlier in the same session: its heading cannot fit too
        done = resolved(approval(f"early{i}", batch="b0", position=i), OutcomeKind.DENIED)
        upsert(dialog, "g", "G", done, "")
    upsert(dialog, "g", "G", approval("wait", batch="b1"), "")
    for i in range(8):
        done = resolved(approval(f"old{i}", batch="b2", position=i), OutcomeKind.DENIED)
        upsert(dialog, "g", "G", done, "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.list_view.flush(overscan=True)
    bar = dialog.list_view.verticalScrollBar()
    bar.setValue(bar.maximum())  # the person scrolled down to the answered ones
    dialog.list_view.flush(overscan=True)
    dialog.present(activate=True)  # a tray click brings it up again
    dialog.list_view.flush(overscan=True)
    row = dialog.selected_row()
    assert row is not None
    assert row.approval.key == "wait"
    view = dialog.list_view
    header, card = widget_for(view, row.batch), widget_for(view, row)
    assert header is not None
    assert card is not None
    assert 0 <= header.y() < card.y() < view.viewport().height()


def test_it_opens_next_to_the_tray_icon_inside_the_screen(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    screen = QApplication.primaryScreen()
    assert screen is not None
    area = screen.availableGeometry()
    icon = QRect(area.right() - 30, area.top(), 24, 24)  # a panel at the top right
    upsert(dialog, "g", "G", approval("a"), "")
    dialog.present(activate=True, near=icon)
    qtbot.waitExposed(dialog)
    frame = dialog.frameGeometry()
    assert frame.top() >= icon.bottom()  # below the panel, not over it
    assert frame.right() <= area.right()  # pushed back inside the screen
    assert frame.top() - icon.bottom() < 40  # next to the icon, not somewhere else
