"""The approval dialog and the notification bubbles share a real screen without covering each
other (xfce4-panel + xfce4-notifyd on Xvfb).

A person gets a bubble, opens the dialog (its bubble goes: the dialog is the better place),
then turns to another window with the rows still waiting: the bubble comes back, and neither
it nor any other bubble may sit over the dialog, whose buttons and countdowns it would hide.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QLabel

from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.platform.native_notify import NativeNotifier
from desktop.ui.icons import icon_dir
from tests.desktop import xdesk
from tests.waiting import holds, poll_until

pytestmark = pytest.mark.desktop

NOTIFY = NotifySettings(
    quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.3, after_dialog=1.0
)


def test_bubbles_come_back_beside_the_dialog_never_over_it(qloop, arun, keep_running):
    arun(scenario(), timeout=90)


async def bubbles() -> list[QRect]:
    """Where xfce4-notifyd's bubbles are on screen now."""
    found = await xdesk.run(
        "xdotool", "search", "--onlyvisible", "--classname", "xfce4-notifyd", check=False
    )
    return [QRect(*await xdesk.geometry(window)) for window in found.split()]


async def scenario() -> None:
    notifier = NativeNotifier("Hermes Tray", icon_dir() / "hermes-tray.svg")
    async with xdesk.demo_tray(NOTIFY, notifier) as (_fake, bridge, shell):
        await holds(
            lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
        )
        bridge.new_task("demo", "/tmp", "[[scenario:batch3]] Clean the scratch folders")
        bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder s1")
        await poll_until(lambda: shell.tray.status.count == 4, timeout=20)
        await poll_until(lambda: notifier.is_shown("demo", ""), timeout=10)  # one summary
        assert shell.notifications.last_plan.title == "4 approvals waiting"
        await xdesk.find_window(classname="xfce4-notifyd")
        await xdesk.settle(1.0)
        await xdesk.screenshot("bubbles-1-summary.png")

        shell.review()  # the person opens the dialog: its batches' bubble goes
        await poll_until(shell.dialog.isActiveWindow, timeout=10)
        await poll_until(lambda: not notifier.is_shown("demo", ""), timeout=10)
        await xdesk.settle(1.0)
        await xdesk.screenshot("bubbles-2-dialog-focused.png")

        elsewhere = QLabel("Another application")  # the person turns to another window
        elsewhere.setGeometry(900, 500, 300, 120)
        elsewhere.show()
        elsewhere.activateWindow()
        try:
            await poll_until(lambda: not shell.dialog.isActiveWindow(), timeout=10)
            await poll_until(lambda: notifier.is_shown("demo", ""), timeout=10)  # back
            await xdesk.find_window(classname="xfce4-notifyd")
            await xdesk.settle(1.5)
            shot = await xdesk.screenshot("bubbles-3-beside-the-dialog.png")
            dialog = shell.dialog.frameGeometry()
            on_screen = await bubbles()
            print("dialog", dialog, "bubbles", on_screen, "screenshot", shot)
            assert on_screen, "the bubble did not come back"
            for bubble in on_screen:
                assert not bubble.intersects(dialog), (bubble, dialog)
        finally:
            elsewhere.close()
            elsewhere.deleteLater()
