"""What the journal says happened, replayed from real gateway transcripts.

The frames a real Hermes sent go through the core and the app's store; the harness's own
answers become the person's decisions. The journal must say what Hermes reported: the exit
code, the answer it threw away when it asked again, and the commands it ran with no row here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from desktop.core.model import Choice
from desktop.journal import Journal, JournalEntry, Surface
from desktop.model.app_state import AppState, StoreChange
from desktop.model.bridge_events import ApprovalUpdate, CommandReport, DecisionMade
from desktop.model.decision_log import DecisionRecorder
from tests.core.replay import PEER_A, PEER_B, Replay

WHEN = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)
NOTE = "Command required approval (delete in root path) and was approved by the user."


def journaled(tmp_path: Path, peer: str, name: str) -> list[JournalEntry]:
    """Replay ``name`` with the journal listening as in the app; its entries, oldest first."""
    replay = Replay(peer, name)
    state = AppState()
    state.add_gateway("gw", "Home")
    journal = Journal(tmp_path, clock=lambda: WHEN)
    recorder = DecisionRecorder(journal, clock=lambda: WHEN, recent_limit=100)

    def heard(change: StoreChange) -> None:
        if isinstance(change, ApprovalUpdate) and not change.arrived:
            recorder.approval_changed(
                change.gateway_id, change.approval, change.gateway_name, change.session_title
            )
        elif isinstance(change, CommandReport):
            recorder.command_ran(change)

    state.subscribe(heard)
    events = decisions = 0
    for line in replay.lines:
        replay.step(line)
        for decision in replay.decisions[decisions:]:  # the person decides before it resolves
            row, result = decision.approval, decision.result
            if row is not None and result is not None:
                title = state.session_title("gw", row.session_id)
                recorder.decided(
                    DecisionMade("gw", "Home", row.key, Choice(decision.choice),
                                 Surface.DIALOG_BUTTON, result.sent, result.reason,
                                 row.session_id, title, row.command)
                )  # fmt: skip
        decisions = len(replay.decisions)
        for event in replay.events[events:]:
            state.apply("gw", event)
        events = len(replay.events)
    recorder.close()
    read = journal.recent(100)  # from the file, as the next start reads it
    assert read == list(recorder.recent)
    return read[::-1]


def said(entries: list[JournalEntry]) -> list[tuple[str, str, str, str]]:
    return [(e.command.rsplit("/", 1)[-1], e.surface, e.outcome, e.result) for e in entries]


def test_a_session_allowance_and_what_each_command_did_on_0_19(tmp_path: Path) -> None:
    entries = journaled(tmp_path, PEER_A, "three")
    assert said(entries) == [
        ("a", "dialog.button", "approved (once)", "ran, exit 0"),
        ("b -delete", "dialog.button", "denied", "blocked"),
        ("c", "dialog.button", "approved (session)", "ran, exit 0"),
        ("d", "hermes", "not asked", "ran, exit 0"),  # run under "Allow for session"
    ]
    assert len({e.session_title for e in entries}) == 1
    assert entries[0].session_title  # the store's name for the session


def test_an_always_allowance_shows_in_the_next_session(tmp_path: Path) -> None:
    assert said(journaled(tmp_path, PEER_A, "always")) == [
        ("p", "dialog.button", "approved (always)", "ran, exit 0"),
        ("q", "hermes", "not asked", "ran, exit 0"),
    ]


def test_a_failure_and_the_answers_hermes_threw_away_on_tui_gateway(tmp_path: Path) -> None:
    entries = said(journaled(tmp_path, PEER_B, "regate"))
    assert entries[:3] == [
        ("r1 && false", "dialog.button", "approved (once)", "ran, exit 1"),
        ("r2", "dialog.button", "approved (once)", "not used — asked again"),
        ("r3 -delete", "dialog.button", "approved (once)", "not used — asked again"),
    ]
    assert ("r2", "dialog.button", "approved (once)", "ran, exit 0") in entries[3:]


def test_yolo_runs_are_journaled_saying_yolo_was_on(tmp_path: Path) -> None:
    entries = said(journaled(tmp_path, PEER_B, "yolo"))
    assert entries[:2] == [
        ("y1", "hermes", "not asked (YOLO on)", "ran, exit 0"),
        ("y2 -delete", "hermes", "not asked (YOLO on)", "ran, exit 0"),
    ]


def test_a_command_asked_while_the_tray_was_away_is_not_called_unasked(tmp_path: Path) -> None:
    entries = said(journaled(tmp_path, PEER_A, "reconnect"))
    assert entries[-1] == ("s3", "hermes", f"asked elsewhere: {NOTE}", "ran, exit 0")


def test_a_harmless_command_hermes_ran_is_no_decision(tmp_path: Path) -> None:
    assert journaled(tmp_path, PEER_A, "usage") == []
