"""What a person reads stays put: re-asks in their batch, "Approve all" only when it would act,
and a notice line that never outlives the press it answered."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.model import AskedBecause, AskReason, Choice, OutcomeKind
from desktop.model.approvals import rules, texts
from desktop.model.approvals.rules import KEY_DWELL_S
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import (
    OFFSCREEN_WINDOWS,
    Recorder,
    batch_card,
    catch_up,
    dialog_on_store,
    look,
    row_card,
    row_cards,
    tap,
    ticking,
    upsert,
)

pytestmark = OFFSCREEN_WINDOWS


def timed_out_batch_and_its_reask(dialog: ApprovalDialog) -> None:
    """Three commands; #3 timed out, and Hermes asks about it again in a new core batch."""
    for i, command in enumerate(("make a", "make b", "make c")):
        upsert(dialog, "g", "G", approval(f"r{i}", position=i, command=command), "")
    for i in range(2):
        upsert(dialog, "g", "G", resolved(approval(f"r{i}", position=i), OutcomeKind.APPROVED), "")
    upsert(dialog, "g", "G", resolved(approval("r2", position=2), OutcomeKind.EXPIRED), "")
    because = AskedBecause(AskReason.AFTER_TIMEOUT, "r2", "r2", "b1", 2)
    again = approval("r2b", batch="b7", command="make c", reask_of="r2", asked_because=because)
    upsert(dialog, "g", "G", again, "")


def test_a_reask_appears_inside_its_batch_next_to_the_row_it_replaces(
    shown: ApprovalDialog, qtbot: QtBot
) -> None:
    upsert(shown, "g", "G", approval("other", batch="b0", command="ls"), "")
    timed_out_batch_and_its_reask(shown)
    shown.list_view.flush(overscan=True)
    cards = [c.entry.key for c in row_cards(shown.list_view)]
    assert cards == ["other", "r0", "r1", "r2", "r2b"]
    reask = row_card(shown, "g", "r2b")
    assert reask is not None
    assert reask.entry.batch is batch_card(shown, "r0").group  # no group of its own
    assert reask.number.text() == "Command 3 · asked again"
    assert reask.notes.text() == "Asked again: #3 timed out (nobody answered in time)."
    assert shown.pending_count() == 2


def test_approve_all_is_off_and_says_why_when_it_would_answer_nothing(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("rm", command="rm -rf /srv/build"), "")
    upsert(shown, "g", "G", approval("ls", position=1, command="ls -la"), "")
    shown.list_view.flush(overscan=True)
    approve_all = batch_card(shown, "ls").approve_all
    assert not approve_all.isEnabled()  # nothing read yet
    assert "2 not on screen long enough to be read yet" in approve_all.toolTip()
    look(shown, clock)
    assert approve_all.isEnabled()  # ls was read: it would answer that one
    assert approve_all.toolTip() == texts.APPROVE_ALL_TIP
    upsert(shown, "g", "G", resolved(approval("ls", position=1), OutcomeKind.DENIED), "")
    assert not approve_all.isEnabled()  # only the high-risk row is left
    assert approve_all.toolTip() == (
        "Nothing here can be approved all at once: 1 high risk (answer it on its own)."
    )
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    assert decisions.requests == []


def two_commands_shown(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[ApprovalDialog, QPushButton]:
    """A batch of two on screen, read for 0.05 s before "Approve all" may act; its button."""
    monkeypatch.setattr(rules, "BATCH_DWELL_S", 0.05)
    dialog = dialog_on_store(**options)
    qtbot.addWidget(dialog)
    upsert(dialog, "g", "G", approval("a", command="make a"), "")
    upsert(dialog, "g", "G", approval("b", position=1, command="make b"), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.list_view.flush(overscan=True)
    return dialog, batch_card(dialog, "a").approve_all


def test_approve_all_comes_on_by_itself_once_the_rows_were_on_screen_long_enough(
    qtbot: QtBot, decisions: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog, approve_all = two_commands_shown(qtbot, monkeypatch)  # the real clock
    qtbot.waitUntil(approve_all.isEnabled)  # a one-shot timer, no tick
    assert not ticking(dialog)


def test_approve_all_comes_on_when_the_reading_time_ends_during_a_refresh(
    qtbot: QtBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog, approve_all = two_commands_shown(qtbot, monkeypatch, clock=clock)
    assert not approve_all.isEnabled()
    refresh = dialog.list_view.refresh_covers

    def slow_refresh() -> None:
        refresh()
        clock.advance(1.0)  # a busy machine: the cards were judged just before the time was up

    monkeypatch.setattr(dialog.list_view, "refresh_covers", slow_refresh)
    catch_up(dialog)
    qtbot.waitUntil(approve_all.isEnabled)  # the cover timer still looks again


def test_the_notice_line_clears_when_its_row_is_answered_by_mouse(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock, decisions: Recorder
) -> None:
    upsert(shown, "g", "G", approval("a", choices=(Choice.ONCE, Choice.DENY)), "")
    look(shown, clock, KEY_DWELL_S)
    tap(shown.list_view, Qt.Key.Key_S)
    assert shown.notice.text().startswith("S did nothing")
    card = row_card(shown, "g", "a")
    assert card is not None
    qtbot.mouseClick(card.buttons[Choice.DENY], Qt.MouseButton.LeftButton)
    assert decisions.keys == ["a"]
    assert shown.notice.text() == ""


def test_the_notice_line_clears_when_its_row_is_answered_elsewhere(
    shown: ApprovalDialog, clock: FakeClock
) -> None:
    upsert(shown, "g", "G", approval("a", choices=(Choice.ONCE, Choice.DENY)), "")
    look(shown, clock, KEY_DWELL_S)
    tap(shown.list_view, Qt.Key.Key_S)
    assert shown.notice.text().startswith("S did nothing")
    upsert(shown, "g", "G", resolved(approval("a"), OutcomeKind.DENIED), "")
    assert shown.notice.text() == ""


def test_the_notice_line_is_gone_when_the_dialog_is_opened_again(
    shown: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    upsert(shown, "g", "G", approval("a", choices=(Choice.ONCE, Choice.DENY)), "")
    look(shown, clock, KEY_DWELL_S)
    tap(shown.list_view, Qt.Key.Key_S)
    assert shown.notice.text().startswith("S did nothing")
    shown.close()
    shown.present(activate=True)
    qtbot.waitExposed(shown)
    assert shown.notice.text() == ""
