"""The tray's own window offscreen: the tray menu as a window, shown once when no tray host is
there, one notice, closing minimizes, and it steps back when a host comes."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QToolButton

from desktop.core.events import ApprovalChanged
from desktop.core.model import ApprovalPhase
from desktop.model.tray_host import NO_TRAY_WHAT, TrayProbe, tray_host
from tests.model.builders import approval
from tests.ui import test_shell
from tests.waiting import poll_until

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

NO_HOST = tray_host(TrayProbe(platform="xcb", qt_available=False, desktop="GNOME"))
HOST = tray_host(TrayProbe(platform="xcb", watcher_owner=":1.7", qt_available=True))


shell = test_shell.shell  # the same shell: one gateway, a session, one approval waiting


@pytest.fixture
def notices(shell):
    """What the shell asks the notifications to show (a notice, not a batch)."""
    s, *_ = shell
    sent: list = []
    s.notifications.show_notice = sent.append
    return sent


def entry(window, name: str):
    found = window.findChild(QToolButton, name) or window.findChild(QLabel, name)
    assert found is not None, f"no entry {name!r}"
    return found


@pytest.mark.qt_log_ignore("systemTrayWindowChanged")  # Qt's XEmbed hook, absent offscreen
def test_offscreen_has_no_tray_host_question_and_no_window(shell):
    s, *_ = shell
    s.show()
    assert not s.host_watch.host.own_window
    assert s._own_window is None  # never built


def test_no_tray_host_shows_the_menu_as_a_window_and_one_notice(shell, notices, arun):
    s, _client, quits = shell
    s.host_watch.changed.emit(NO_HOST)
    window = s.own_window
    arun(poll_until(lambda: window.isVisible() and window.findChild(QToolButton, "quit")))
    assert entry(window, "review").text() == "Review approvals (1)"  # a button drops the ellipsis
    session_entry = entry(window, "session:g1:s1")
    assert session_entry.text().startswith("Fix the build")
    assert session_entry.popupMode() is QToolButton.ToolButtonPopupMode.InstantPopup
    assert entry(window, "gateway:g1").text().startswith("Local")  # a read-only line: a label
    assert "1 approval waiting" in window.status.text()
    assert window.note.text().startswith(f"{NO_TRAY_WHAT}: this window stands in")
    assert "AppIndicator" in window.note.text()
    assert [n.what for n in notices] == [NO_TRAY_WHAT]
    entry(window, "quit").click()
    assert quits == [True]  # the very menu action


def test_review_opens_the_dialog_and_the_window_follows_the_snapshot(shell, notices, arun):
    s, client, _quits = shell
    s.host_watch.changed.emit(NO_HOST)
    window = s.own_window
    arun(poll_until(lambda: window.findChild(QToolButton, "review") is not None))
    entry(window, "review").click()
    assert s.dialog.isVisible()
    client.emit(ApprovalChanged(approval("k1", batch="b1", phase=ApprovalPhase.RESOLVED)))
    arun(poll_until(lambda: entry(window, "review").text() == "Review approvals"))


def test_closing_minimizes_and_a_host_that_comes_steps_back(shell, notices, arun):
    s, _client, _quits = shell
    s.host_watch.changed.emit(NO_HOST)
    window = s.own_window
    arun(poll_until(window.isVisible))
    assert not window.close()  # refused: minimized instead of lost
    assert window.isMinimized()
    s.present()  # what a second launch does
    assert not window.isMinimized()
    s.host_watch.changed.emit(HOST)
    assert not window.isVisible()
    s.host_watch.changed.emit(NO_HOST)  # lost again: the window again, no second notice
    assert window.isVisible()
    assert len(notices) == 1


def test_wrapped_lines_are_never_cut_and_spare_height_stays_below(shell, notices, arun, qtbot):
    """At its smallest (what sway gives a tiled window) every wrapped line fits; a taller
    window leaves the spare height below the entries instead of spreading it between them."""
    s, _client, _quits = shell
    s.host_watch.changed.emit(NO_HOST)
    window = s.own_window
    arun(poll_until(lambda: window.isVisible() and window.findChild(QToolButton, "quit")))
    for width, height in ((360, 60), (300, 60), (900, 60), (360, 900)):
        window.resize(width, height)
        qtbot.wait(20)
        wrapped = [w for w in window.findChildren(QLabel) if w.isVisible() and w.wordWrap()]
        assert len(wrapped) >= 3
        for label in wrapped:
            needed = label.heightForWidth(label.width())
            assert label.height() == needed, (width, height, label.objectName())
