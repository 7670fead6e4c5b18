"""A left click on the tray icon in xfce4-panel (a StatusNotifierItem host) opens the menu
when nothing waits. The panel sends ``Activate`` for a left click and draws the exported menu
only for a right click, so before this the click did nothing."""

from __future__ import annotations

import pytest

from desktop.model.snapshot import Link
from tests.desktop import xdesk
from tests.waiting import holds, poll_until

pytestmark = pytest.mark.desktop

IDLE_GREEN = "#2e9d57"
PANEL_STRIP = (0, 0, 1280, 30)


def test_a_left_click_with_nothing_waiting_opens_the_menu(qapp, qloop, arun):
    qapp.setQuitOnLastWindowClosed(False)
    try:
        arun(scenario(), timeout=60)
    finally:
        qapp.setQuitOnLastWindowClosed(True)


async def scenario() -> None:
    async with xdesk.demo_tray() as (_fake, bridge, shell):
        await holds(
            lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
        )
        assert shell.tray.exported  # xfce4-panel is the host: it draws the exported menu
        x, y = await poll_until(lambda: xdesk.find_colour(IDLE_GREEN, PANEL_STRIP), timeout=10)
        await xdesk.click(x, y)
        await poll_until(
            lambda: shell.tray.click_menu is not None and shell.tray.click_menu.isVisible()
        )
        names = [a.objectName() for a in shell.tray.click_menu.actions()]
        assert "new-task" in names
        assert "quit" in names
        await xdesk.settle(0.5)
        await xdesk.screenshot("left-click-menu.png")
        await xdesk.key("Escape")
        await poll_until(lambda: not shell.tray.click_menu.isVisible())
