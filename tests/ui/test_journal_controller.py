"""The journal controller tells the tray when decisions cannot be written, and retries."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Signal

from desktop.core.model import Choice
from desktop.journal import Journal, Surface
from desktop.model.bridge_events import ApprovalUpdate, CommandReport, DecisionMade
from desktop.ui import journal_controller as controller_module
from desktop.ui.journal_controller import JournalController


class Signals(QObject):
    """The four bridge signals the controller listens to."""

    decision_made = Signal(DecisionMade)
    command_ran = Signal(CommandReport)
    approval_changed = Signal(ApprovalUpdate)
    gateway_removed = Signal(str)


def refused(key: str) -> DecisionMade:
    """A decision the core refused: journalled at once, no outcome to wait for."""
    return DecisionMade("g1", "Home", key, Choice.ONCE, Surface.DIALOG_BUTTON, False, "stale")


@pytest.fixture
def blocked(tmp_path: Path) -> Path:
    """A file where the journal's directory should be: every write fails."""
    path = tmp_path / "data"
    path.write_text("not a directory")
    return path


def test_an_unwritable_journal_is_reported_then_flushed_by_the_retry_timer(
    qtbot, blocked: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(controller_module, "RETRY_MS", 20)
    signals = Signals()
    journal = Journal(blocked)
    controller = JournalController(signals, journal, opener=lambda _url: True)  # type: ignore[arg-type]
    with qtbot.waitSignal(controller.changed):
        signals.decision_made.emit(refused("k1"))
    assert "cannot be written" in controller.problem
    assert "1 decision kept in memory" in controller.problem
    blocked.unlink()  # the disk is writable again
    with qtbot.waitSignal(controller.changed, timeout=2000):
        pass
    assert controller.problem == ""
    assert [e.session_id for e in journal.recent(5)] == [""]
    assert journal.path.read_text(encoding="utf-8").count("\n") == 1
    controller.close()
    signals.deleteLater()
