"""TrayShell wiring offscreen: every path to a decision ends in the bridge's one slot."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core.events import ApprovalChanged, ApprovalRequested, SessionChanged
from desktop.core.model import ApprovalPhase, Choice
from desktop.journal import Journal, Surface
from desktop.model.app_state import KEPT_RESOLVED
from desktop.model.bridge_events import DecisionMade, DecisionRequest
from desktop.ui.bridge import GatewayBridge
from desktop.ui.shell import TrayShell
from tests.model.builders import YOLO_SESSION, approval, session
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import poll_until

OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore("This plugin does not support")


@pytest.fixture
def shell(qloop, arun):
    clients: dict = {}
    quits: list = []
    bridge = GatewayBridge(make_factory(clients))
    bridge.add_gateway(Endpoint("g1", "Local"))
    shell = TrayShell(bridge, on_quit=lambda: quits.append(True))
    bridge.start(qloop)
    arun(poll_until(lambda: bridge.snapshot.waiting_count() == 0 and clients["g1"].status.dialect))
    client = clients["g1"]
    client.emit(SessionChanged(session("s1", "Fix the build")))
    client.emit(ApprovalRequested(approval("k1", batch="b1")))
    yield shell, client, quits
    shell.dispose()
    arun(bridge.aclose())
    shell.deleteLater()
    bridge.deleteLater()


def test_new_approvals_reach_the_dialog(shell):
    s, _client, _quits = shell
    assert s.dialog.pending_count() == 1


def test_the_dialog_names_a_yolo_session_as_the_store_does_and_follows_it(shell):
    s, client, _quits = shell
    client.emit(SessionChanged(session("s1", "Fix the build", yolo=YOLO_SESSION)))
    assert s.dialog.yolo_note.text().startswith(
        f"YOLO is on for “{s.bridge.rows.session('g1', 's1').title}” (1 waiting)"
    )
    client.emit(SessionChanged(session("s1", "Fix the build")))
    assert s.dialog.yolo_note.isHidden()


def test_a_removed_gateway_takes_its_rows_off_the_dialog(shell):
    s, _client, _quits = shell
    assert s.dialog.pending_count() == 1
    s.bridge.remove_gateway("g1")
    assert s.dialog.pending_count() == 0
    assert s.dialog.board.gateway("g1") is None


def test_a_dialog_decision_goes_through_the_bridge(shell):
    s, client, _quits = shell
    s.dialog.decision_requested.emit(
        DecisionRequest("g1", "k1", Choice.ONCE, Surface.DIALOG_BUTTON)
    )
    assert client.calls == [("decide", "k1", Choice.ONCE, False)]


def test_a_refused_decision_is_handed_back_to_the_dialog(shell):
    s, client, _quits = shell
    client.refuse = "the command timed out"
    result = s.decide(DecisionRequest("g1", "k1", Choice.ONCE, Surface.DIALOG_BUTTON))
    assert not result.sent
    assert s.dialog.board.row(("g1", "k1")).notice == "the command timed out"


def test_the_dialog_reads_its_rows_from_the_store_and_lets_go_of_what_it_forgets(shell):
    s, client, _quits = shell
    row = s.dialog.board.row(("g1", "k1"))
    assert row.approval is s.bridge.rows.row("g1", "k1")  # the store's value, not a copy
    for i in range(KEPT_RESOLVED + 1):  # a flood answered elsewhere, all within the grace
        key = "k1" if i == 0 else f"r{i}"
        client.emit(
            ApprovalChanged(replace(approval(key, batch="b1"), phase=ApprovalPhase.RESOLVED))
        )
    assert s.bridge.rows.row("g1", "k1") is None  # the oldest went past the store's bound …
    assert s.dialog.board.row(("g1", "k1")) is None  # … and the dialog let go of it too
    assert len(list(s.dialog.board.rows())) == KEPT_RESOLVED


@OFFSCREEN_WINDOWS
def test_notification_review_focuses_that_batch(shell, qtbot):
    s, _client, _quits = shell
    s.notifications.review_requested.emit("g1", "b1")
    qtbot.waitUntil(s.dialog.isVisible)
    assert s.dialog.selected_row().approval.key == "k1"


@OFFSCREEN_WINDOWS
def test_tray_review_and_new_task_open_their_windows(shell, qtbot):
    s, _client, _quits = shell
    s.tray.review_requested.emit()
    qtbot.waitUntil(s.dialog.isVisible)
    s.tray.new_task_requested.emit()
    qtbot.waitUntil(s.new_task.isVisible)
    assert s.new_task.gateway.currentData() == "g1"


def test_quit_goes_to_the_callback_not_app_quit(shell):
    s, _client, quits = shell
    s.tray.quit_requested.emit()
    assert quits == [True]


@OFFSCREEN_WINDOWS
def test_new_task_dialog_starts_a_task(shell, qtbot, arun):
    s, client, _quits = shell
    s.new_task.present(s.bridge.snapshot)
    s.new_task.directory.setText("/srv/project")
    assert not s.new_task.start_button.isEnabled()  # no prompt yet
    s.new_task.prompt.setPlainText("run the tests")
    s.new_task.start_button.click()
    arun(poll_until(lambda: ("create_session", "/srv/project", "run the tests") in client.calls))
    assert not s.new_task.isVisible()


def test_a_journal_that_cannot_be_written_reaches_the_tray(shell, qtbot, tmp_path):
    s, _client, _quits = shell
    blocked = tmp_path / "data"
    blocked.write_text("a file where the journal's folder should be")
    s.attach(journal=Journal(blocked))
    refused = DecisionMade("g1", "Local", "k1", Choice.ONCE, Surface.DIALOG_BUTTON, False, "stale")
    s.bridge.decision_made.emit(refused)
    qtbot.waitUntil(lambda: "Journal not written" in s.tray.tray.toolTip())
    assert "kept in memory" in s.tray.tray.toolTip()


def test_deny_and_stop_in_the_dialog_interrupts_the_session(shell, qtbot):
    s, client, _quits = shell
    s.dialog.stop_requested.emit("g1", "s1")
    qtbot.waitUntil(lambda: ("interrupt", "s1") in client.calls)
