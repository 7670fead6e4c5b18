"""The core's fail-closed reasons reach the person: rows built by the real core, shown offscreen.

Two cases where the core withholds an answer and the dialog must say why: a 0.19.0 session the
tray resumed mid-turn (its first visible approval may not be Hermes' oldest: Re-confirm first),
and a request id the gateway re-used for another command (the old row is withdrawn, the new one
is its own row).
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core import outcomes
from desktop.core.decisions import HEAD_UNSURE
from desktop.core.model import Approval, Choice, Dialect
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.ui.approvals.cards import RowCard
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.safety.driver import CoreDriver, approval_frame
from tests.ui.approvals.factory import OFFSCREEN_WINDOWS, Recorder, row_card, upsert

pytestmark = OFFSCREEN_WINDOWS


def show(dialog: ApprovalDialog, qtbot: QtBot, rows: list[Approval]) -> None:
    for row in rows:
        upsert(dialog, "g", "G", row, "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)


def card_of(dialog: ApprovalDialog, key: str) -> RowCard:
    card = row_card(dialog, "g", key)
    assert card is not None
    return card


def resumed_mid_turn() -> CoreDriver:
    drv = CoreDriver(Dialect.A).connect()
    drv.core.watch_session("s1", stored_session_id="stored-1")
    drv.flush()
    drv.core.connection_lost()
    drv.flush()
    drv.connect_again()
    resume = [json.loads(f.text) for f in drv.written if '"session.resume"' in f.text][-1]
    answer = {"jsonrpc": "2.0", "id": resume["id"], "result": {"session_id": "s1", "running": True}}
    drv.feed(json.dumps(answer))
    drv.feed(approval_frame(Dialect.A, "s1", "", "chmod 777 run.sh"))
    return drv


def test_a_row_of_a_session_resumed_mid_turn_says_why_and_needs_reconfirm(
    dialog: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    drv = resumed_mid_turn()
    [row] = drv.rows_of("s1")
    show(dialog, qtbot, [row])
    card = card_of(dialog, row.key)
    assert card.state.text() == f"Stale — {HEAD_UNSURE}"
    assert "oldest waiting" in card.state.text()
    assert not card.reconfirm.isHidden()
    assert not any(b.isEnabled() for b in card.buttons.values())
    qtbot.mouseClick(card.buttons[Choice.ONCE], Qt.MouseButton.LeftButton)
    assert decisions.requests == []
    qtbot.mouseClick(card.reconfirm, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(card.buttons[Choice.ONCE], Qt.MouseButton.LeftButton)
    assert decisions.requests == [
        DecisionRequest("g", row.key, Choice.ONCE, Surface.DIALOG_BUTTON, True)
    ]
    assert drv.core.decide(row.key, Choice.ONCE, confirm_stale=True).sent  # what the app does


def test_a_request_id_reused_for_another_command_shows_two_rows_and_why(
    dialog: ApprovalDialog, qtbot: QtBot, decisions: Recorder
) -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "ls -la"))
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "rm -rf ~"))
    old, new = drv.rows_of("s1")
    show(dialog, qtbot, [old, new])
    assert card_of(dialog, old.key).state.text() == f"Withdrawn — {outcomes.REPLACED}"
    fresh = card_of(dialog, new.key)
    assert fresh.command.toPlainText() == "rm -rf ~"
    assert fresh.state.text() == "Waiting for you"
    qtbot.mouseClick(fresh.buttons[Choice.DENY], Qt.MouseButton.LeftButton)
    assert decisions.keys == [new.key]
