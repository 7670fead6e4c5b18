"""The scene ``test_no_tray_host`` runs on a desktop with no tray host; not collected by itself.

``run_desktop_tests.sh`` with ``HERMES_TRAY_NO_TRAY_HOST=1`` gives it a second Xvfb and session
bus with xfce4-notifyd and no panel: no StatusNotifierWatcher, no XEmbed tray. The tray then
shows its own window (the menu's entries, what waits), sends one notification saying why, and
steps back to the icon when a panel starts.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from PySide6.QtWidgets import QLabel, QToolButton

from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.model.tray_host import HostKind
from desktop.platform.native_notify import NativeNotifier
from desktop.platform.paths import APP_ID
from desktop.ui.icons import icon_dir
from tests.desktop import xdesk
from tests.waiting import holds, poll_until

NOTIFY = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.2)
NOTICE = "Hermes Tray — No system tray found"


@pytest.mark.skipif(
    not os.environ.get("HERMES_TRAY_NO_TRAY_HOST"), reason="run by test_no_tray_host.py"
)
def test_scene(qapp, qloop, arun):
    qapp.setQuitOnLastWindowClosed(False)
    try:
        arun(scene(), timeout=90)
    finally:
        qapp.setQuitOnLastWindowClosed(True)


async def scene() -> None:
    notifier = NativeNotifier("Hermes Tray", icon_dir() / "hermes-tray.svg")
    async with (
        xdesk.notify_calls() as calls,
        xdesk.demo_tray(NOTIFY, notifier) as (_fake, bridge, shell),
    ):
        assert shell.host_watch.host.kind is HostKind.NONE
        window = shell.own_window
        await holds(
            lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
        )
        bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder s1")

        def review_text() -> str:
            button = window.findChild(QToolButton, "review")
            return button.text() if button is not None else ""

        await poll_until(lambda: review_text() == "Review approvals (1)", 20, "one waits")
        assert window.isVisible()
        names = {
            w.objectName() for kind in (QToolButton, QLabel) for w in window.findChildren(kind)
        }
        assert {"new-task", "settings", "quit", "reconnect:demo", "gateway:demo"} <= names
        assert any(n.startswith("session:demo:") for n in names)
        assert window.note.text().startswith("No system tray found: this window stands in")
        assert "waiting" in window.status.text()
        await poll_until(lambda: any(c[1] == NOTICE for c in calls), 10, "the notice")
        x_window = await xdesk.find_window(name="^Hermes Tray$")
        _x, _y, width, height = await xdesk.geometry(x_window)
        assert (width >= 300, height >= 200) == (True, True)
        await xdesk.settle(1.0)
        print("screenshot:", await xdesk.screenshot("no-tray-host-window.png"))
        notices = [c for c in calls if c[1] == NOTICE]
        assert len(notices) == 1
        assert all(c[3] == APP_ID for c in calls)  # every Notify names the desktop entry

        assert not window.close()  # closing minimizes: the app is not lost
        assert window.isMinimized()
        shell.present()  # what a second launch does
        await poll_until(lambda: not window.isMinimized(), 5, "raised again")

        panel = await asyncio.create_subprocess_exec(
            "xfce4-panel",
            "--disable-wm-check",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:  # a tray host comes: back to the icon (the watcher's owner changed)
            await poll_until(lambda: not window.isVisible(), 30, "stepped back")
            assert not shell.host_watch.host.own_window
        finally:
            panel.terminate()
            await panel.wait()
        assert len([c for c in calls if c[1] == NOTICE]) == 1
