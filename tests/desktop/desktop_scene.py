"""The scene ``test_other_desktops`` runs on each other X11 desktop; not collected by itself.

``run_desktop_tests.sh`` with ``HERMES_TRAY_DESKTOP`` swaps one part of the tier's desktop:
``trayer`` (an XEmbed-only tray: no StatusNotifierWatcher, so Qt's icon embeds itself and draws
its own menu) or ``dunst`` (a notification server with no buttons: a middle click on the bubble
runs its default action, our "Review"). Like a person, and with the real app (``--demo`` as a
process): notice (icon with the count, a bubble), open (the bubble's Review, a left click on the
icon), answer (the dialog's A key on the first row), the menu (right click on the icon), Quit
from it. What is seen goes to ``desktop-<name>.png`` in SCREENSHOT_DIR.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os

import pytest
from PySide6.QtGui import QGuiApplication, QImage

from desktop.settings.store import load_settings, save_settings
from tests.desktop import xdesk
from tests.waiting import drain

DESKTOP = os.environ.get("HERMES_TRAY_DESKTOP", "")
SCREEN = (1280, 800)
BAR = 30  # the tray's strip along the top: xfce4-panel's height, trayer's --height
WAITING_ORANGE = "#f08a00"
DIALOG_TITLE = "Hermes approvals|commands waiting"  # xdotool --name is a regex
# Where a bubble's Review is and which button presses it: xfce4-notifyd draws it as the last
# button of the bubble's bottom row; dunst draws no buttons, its middle click runs "default".
REVIEW_PRESS = {
    "trayer": ("xfce4-notifyd", lambda x, y, w, h: (x + w - 57, y + h - 30), 1),
    "dunst": ("Dunst", lambda x, y, w, h: (x + w // 2, y + h // 2), 2),
}


@pytest.mark.skipif(not DESKTOP, reason="run by test_other_desktops.py")
def test_scene(qapp, qloop, arun):
    save_settings(dataclasses.replace(load_settings(), quiet_after_start_s=0.0))
    arun(scene(), timeout=120)


def icon_image(at: tuple[int, int]) -> QImage:
    """The pixels of the tray icon around ``at`` (its count is drawn on it)."""
    x, y = at
    return QGuiApplication.primaryScreen().grabWindow(0, x - 12, max(0, y - 12), 24, 24).toImage()


async def scene() -> None:
    process = await xdesk.start_demo()
    try:
        await xdesk.backdrop()

        # Notice: the icon in the tray strip, and a bubble for the four waiting approvals.
        async def icon() -> tuple[int, int] | None:
            return xdesk.find_colour(WAITING_ORANGE, (0, 0, SCREEN[0], BAR))

        at = await xdesk.wait_for(icon, "the waiting icon in the tray", timeout=30)
        bubble_class, review_at, button = REVIEW_PRESS[DESKTOP]
        bubble = await xdesk.find_window(classname=bubble_class, timeout=30)
        await xdesk.settle(1.5)  # the icon repaints with the bubble; let it show the count
        at = await xdesk.wait_for(icon, "the waiting icon in the tray")
        four = icon_image(at)
        shot = await xdesk.screenshot(f"desktop-{DESKTOP}.png")
        print("screenshot:", shot)

        # Open: the bubble's Review brings the dialog.
        await xdesk.click(*review_at(*await xdesk.geometry(bubble)), button=button)
        window = await xdesk.find_window(name=DIALOG_TITLE)
        assert "4 commands waiting" in await xdesk.run("xdotool", "getwindowname", window)

        # Answer: the first row, from the keyboard; the dialog's title and the icon count down.
        await xdesk.settle(1.0)
        await xdesk.run("xdotool", "windowfocus", "--sync", window)
        await xdesk.key("a")

        async def three_left() -> bool:
            title = await xdesk.run("xdotool", "getwindowname", window, check=False)
            return "3 commands waiting" in title

        await xdesk.wait_for(three_left, "the answered row to leave the count")
        await xdesk.settle(0.5)
        assert icon_image(at) != four, "the icon's count did not change"
        await xdesk.key("Escape")
        await xdesk.settle(0.5)

        # A left click on the icon opens the dialog again.
        await xdesk.click(*at)
        window = await xdesk.find_window(name=DIALOG_TITLE)
        await xdesk.key("Escape")
        await xdesk.settle(0.5)

        # The menu on a right click; its last entry quits.
        before = await xdesk.screenshot(f"desktop-{DESKTOP}-before-menu.png")
        await xdesk.click(*at, button=3)
        await xdesk.settle(1.0)
        after = await xdesk.screenshot(f"desktop-{DESKTOP}-menu.png")
        await xdesk.changed_box(before, after, top=BAR)
        await xdesk.key("Up")
        await xdesk.settle(0.2)
        await xdesk.key("Return")
        _out, err = await asyncio.wait_for(process.communicate(), 20)
        log = err.decode()
        assert process.returncode == 0, log[-3000:]
        assert "decision once on demo/" in log
        assert "stopped the built-in demo" in log
        assert "Traceback" not in log

        async def gone() -> bool:
            return await icon() is None

        await xdesk.wait_for(gone, "the icon to leave the tray after Quit", timeout=5)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await drain()
