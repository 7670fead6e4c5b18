"""Fixtures for the approval dialog tests: a dialog on a fake clock, and its decisions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.model import SessionState
from desktop.model.app_state import AppState
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock
from tests.ui.approvals.factory import Recorder


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def decisions() -> Recorder:
    return Recorder()


@pytest.fixture
def sessions() -> dict[tuple[str, str], SessionState]:
    """The store's sessions as the dialog reads them: (gateway_id, session_id) -> session."""
    return {}


@pytest.fixture
def dialog(
    qtbot: QtBot,
    clock: FakeClock,
    decisions: Recorder,
    sessions: dict[tuple[str, str], SessionState],
) -> Iterator[ApprovalDialog]:
    """An ApprovalDialog on the fake clock with a 5 ms tick, its decisions recorded."""
    d = ApprovalDialog(
        AppState(),
        clock=clock,
        grace_seconds=5.0,
        tick_ms=5,
        session_of=lambda gateway_id, session_id: sessions.get((gateway_id, session_id)),
    )
    qtbot.addWidget(d)
    d.decision_requested.connect(decisions)
    yield d
    box = d.confirmation_box
    if box is not None:
        box.reject()
    d.close()


@pytest.fixture
def shown(dialog: ApprovalDialog, qtbot: QtBot) -> ApprovalDialog:
    """The dialog on screen, tall enough for a few cards, not activated."""
    dialog.resize(760, 900)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    return dialog
