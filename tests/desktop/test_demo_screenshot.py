"""The README's screenshots, taken from the real app in demo mode on a real (virtual) desktop.

``hermes-tray --demo`` runs as a process, xfce4-panel hosts its tray item. Like a person, the
test right-clicks the icon, walks the panel-drawn menu into the "Clean up the webshop build"
session (usage, plan, YOLO), then left-clicks the icon for the grouped dialog holding the
three-command batch. It also proves the demo works on a real desktop: the labels the panel
receives are checked before anything is captured, and Quit from the panel's menu ends the app
with status 0.

Output: full-screen captures in SCREENSHOT_DIR, and the two cropped README images
``tray-menu.png`` and ``approval-dialog.png`` in README_SCREENSHOT_DIR (default: SCREENSHOT_DIR).
``tests/desktop/take_readme_screenshots.sh`` runs just this test with README_SCREENSHOT_DIR set
to docs/screenshots.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from desktop.settings.store import load_settings, save_settings
from tests.desktop import xdesk
from tests.waiting import drain

pytestmark = pytest.mark.desktop

PANEL_HEIGHT = 30
SCREEN = (1280, 800)
WAITING_ORANGE = "#f08a00"
WEBSHOP = "Clean up the webshop build"
DIALOG_TITLE = "Hermes approvals|commands waiting"  # xdotool --name is a regex
MARGIN = 10
DIALOG_HEIGHT = 792


def readme_dir() -> Path:
    path = Path(os.environ.get("README_SCREENSHOT_DIR") or xdesk.screenshot_dir())
    path.mkdir(parents=True, exist_ok=True)
    return path


async def top_level_items(item: str) -> list[tuple[str, bool]]:
    """(label, keyboard-reachable) for each entry of the item's top menu, as the panel gets it."""
    async with xdesk.session_bus() as bus:
        menu = await xdesk.item_menu(bus, item)
        _revision, layout = await menu.call_get_layout(0, 1, [])
    items = []
    for child in layout[2]:
        props = child.value[1]
        label = props["label"].value if "label" in props else ""
        reachable = (props.get("type") is None or props["type"].value != "separator") and all(
            props[k].value for k in ("enabled", "visible") if k in props
        )
        items.append((label, reachable))
    return items


async def crop(source: Path, target: Path, box: tuple[int, int, int, int]) -> None:
    x, y, w, h = box
    await xdesk.run(
        "convert", str(source), "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-strip", str(target)
    )


def test_readme_screenshots_from_the_demo(qapp, qloop, arun):
    # No notification bubbles over the menu: the app stays quiet for ten minutes after start.
    save_settings(dataclasses.replace(load_settings(), quiet_after_start_s=600.0))
    arun(capture(), timeout=120)


async def capture() -> None:
    before = set(await xdesk.registered_items())
    process = await xdesk.start_demo()
    try:

        async def new_item() -> str | None:
            return next((i for i in await xdesk.registered_items() if i not in before), None)

        item = await xdesk.wait_for(new_item, "the app's tray item")

        async def settled_menu() -> list[tuple[str, bool]] | None:
            # Both sessions waiting: the batch of three and the home server's one command.
            items = await top_level_items(item)
            return items if any(label == "Review approvals… (4)" for label, _ in items) else None

        items = await xdesk.wait_for(settled_menu, "four approvals waiting", timeout=30)
        labels = [label for label, _ in items]
        assert labels[0].startswith("Demo gateway (simulated commands) — connected")
        reachable = [label for label, ok in items if ok]
        webshop = next(i for i, label in enumerate(reachable) if label.startswith(WEBSHOP))
        await xdesk.settle(1.0)

        await xdesk.backdrop()
        icon = xdesk.find_colour(WAITING_ORANGE, (0, 0, SCREEN[0], PANEL_HEIGHT))
        assert icon is not None, "the waiting icon is not in the panel"
        panel_only = await xdesk.screenshot("demo-0-panel.png")

        await xdesk.click(*icon, button=3)  # the panel draws the menu (dbusmenu)
        await xdesk.settle(1.0)
        for _ in range(webshop + 1):
            await xdesk.key("Down")
            await xdesk.settle(0.15)
        await xdesk.key("Right")
        await xdesk.settle(1.0)
        with_menu = await xdesk.screenshot("demo-1-tray-menu.png")
        x, y, _w, h = await xdesk.changed_box(panel_only, with_menu, top=PANEL_HEIGHT)
        left = max(0, min(x, icon[0] - 16) - MARGIN)
        bottom = min(SCREEN[1], y + h + MARGIN)  # the panel to the screen's edge: icon, clock
        await crop(with_menu, readme_dir() / "tray-menu.png", (left, 0, SCREEN[0] - left, bottom))

        await xdesk.key("Escape")
        await xdesk.key("Escape")
        await xdesk.settle(0.5)
        await xdesk.click(*icon)  # something waits: a left click opens the dialog
        window = await xdesk.find_window(name=DIALOG_TITLE)
        # Tall enough for both sessions' groups without a scroll bar (no window manager here:
        # the request goes straight through, and the raised dialog may cover the panel).
        await xdesk.run("xdotool", "windowmove", window, "250", "0")
        await xdesk.run("xdotool", "windowsize", window, "780", str(DIALOG_HEIGHT))
        await xdesk.settle(1.0)
        await xdesk.screenshot("demo-2-dialog.png")
        dialog = readme_dir() / "approval-dialog.png"
        await xdesk.run("import", "-window", window, str(dialog))
        await xdesk.run("convert", str(dialog), "-strip", str(dialog))

        await xdesk.click_menu_item(item, "Quit Hermes Tray")
        _out, err = await asyncio.wait_for(process.communicate(), 20)
        log = err.decode()
        assert process.returncode == 0, log[-3000:]
        assert "following 2 more session(s) other clients run" in log
        assert "stopped the built-in demo" in log
        assert "Traceback" not in log
        for name in ("tray-menu.png", "approval-dialog.png"):
            assert (readme_dir() / name).stat().st_size > 5000, name
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await drain()
