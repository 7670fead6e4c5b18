"""What ``try_sway.sh`` runs inside its sway + waybar + mako session; prints one line per check.

Like a person, with the real app (``--demo`` as a process): notice (the icon with its count in
waybar, the menu waybar receives, mako's bubble), open (a click on the bubble), answer (the A
key in the dialog), open again (a left click on the icon; again with another app on top), the
menu (a right click: waybar draws it) and Quit from it. Headless sway has no input devices, so
the pointer and keyboard are wayvnc's (:class:`Remote`). Exits 1 when a check fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import struct
import sys
from typing import Any

from PySide6.QtGui import QImage

from desktop.settings.store import load_settings, save_settings
from tests.desktop import xdesk
from tests.desktop.checks import check, ended_log, menu_labels, run, until

WAITING_ORANGE = "#f08a00"
BAR = 30
DIALOG = "Hermes approvals"
RFB_BUTTONS = {1: 1, 2: 2, 3: 4}  # button mask bits: left, middle, right
RFB_KEYSYMS = {"a": 0x61, "Escape": 0xFF1B}


async def swaymsg(*args: str) -> str:
    return await xdesk.run("swaymsg", *args, check=False)


async def cursor_click(x: int, y: int, button: int = 1) -> None:
    name = {1: "button1", 2: "button2", 3: "button3"}[button]
    await swaymsg("seat", "-", "cursor", "set", str(x), str(y))
    await xdesk.settle(0.2)
    await swaymsg("seat", "-", "cursor", "press", name)
    await swaymsg("seat", "-", "cursor", "release", name)


async def windows() -> list[dict[str, Any]]:
    """Every window sway manages: name, app_id, focused."""
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        if node.get("type") in ("con", "floating_con") and node.get("name"):
            found.append(node)
        for child in node.get("nodes", []) + node.get("floating_nodes", []):
            walk(child)

    walk(json.loads(await swaymsg("-t", "get_tree")))
    return found


async def dialog() -> dict[str, Any] | None:
    return next((w for w in await windows() if DIALOG in w["name"]), None)


async def shot(name: str) -> QImage:
    path = xdesk.screenshot_dir() / name
    await xdesk.run("grim", str(path))
    print("      screenshot:", path, flush=True)
    return QImage(str(path))


async def mako_list() -> list[dict[str, Any]]:
    out = await xdesk.run("makoctl", "list", check=False)
    try:
        return list(json.loads(out)["data"][0])
    except (ValueError, KeyError, IndexError):
        return []


async def scene() -> None:
    save_settings(dataclasses.replace(load_settings(), quiet_after_start_s=0.0))

    async def watcher() -> bool:
        await xdesk.registered_items()
        return True

    no_bar = bool(os.environ.get("HERMES_TRAY_NO_BAR"))
    if not no_bar:
        # Started after waybar's watcher: an icon built before it would never be an SNI item.
        check(bool(await until(watcher, 20)), "waybar hosts the StatusNotifierWatcher")
    process = await xdesk.start_demo(os.environ.get("HERMES_TRAY_APP_PLATFORM", "wayland"))
    try:
        await steps(process, no_bar)
    finally:
        log = await ended_log(process)
        for line in log.splitlines():
            if "activat" in line.lower() or "decision" in line:
                print("      log:", line.strip(), flush=True)


class Remote:
    """A person's pointer and keyboard through wayvnc (RFB 3.8, no authentication, loopback):
    the headless backend has no input devices, and wayvnc's virtual pointer and keyboard are
    real ones to sway and every client. Only input is sent; no screen update is asked for."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer

    @classmethod
    async def connect(cls, port: int) -> Remote:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.readexactly(12)  # "RFB 003.008\n"
        writer.write(b"RFB 003.008\n")
        types = await reader.readexactly((await reader.readexactly(1))[0])
        assert 1 in types, f"wayvnc asks for authentication ({list(types)})"
        writer.write(b"\x01")  # security type None
        assert struct.unpack(">I", await reader.readexactly(4))[0] == 0, "wayvnc refused"
        writer.write(b"\x01")  # ClientInit: shared
        header = await reader.readexactly(24)  # ServerInit: size, pixel format, name length
        await reader.readexactly(struct.unpack(">I", header[20:24])[0])
        return cls(reader, writer)

    async def _pointer(self, x: int, y: int, mask: int) -> None:
        self._writer.write(struct.pack(">BBHH", 5, mask, x, y))
        await self._writer.drain()

    async def move(self, x: int, y: int) -> None:
        await self._pointer(x, y, 0)
        await xdesk.settle(0.3)

    async def click(self, x: int, y: int, button: int = 1) -> None:
        await self.move(x, y)
        await self._pointer(x, y, RFB_BUTTONS[button])
        await xdesk.settle(0.05)
        await self._pointer(x, y, 0)

    async def key(self, name: str, *, shift: bool = False) -> None:
        held = [RFB_KEYSYMS["Shift"]] if shift else []
        for keysym, down in [(k, 1) for k in held] + [
            (RFB_KEYSYMS[name], 1),
            (RFB_KEYSYMS[name], 0),
        ]:
            self._writer.write(struct.pack(">BBxxI", 4, down, keysym))
        for keysym in held:
            self._writer.write(struct.pack(">BBxxI", 4, 0, keysym))
        await self._writer.drain()

    async def close(self) -> None:
        self._writer.close()
        await self._writer.wait_closed()


async def steps(process: asyncio.subprocess.Process, no_bar: bool) -> None:
    remote = await Remote.connect(int(os.environ["HERMES_TRAY_VNC_PORT"]))
    try:
        await (person_without_bar if no_bar else person)(process, remote)
    finally:
        await remote.close()


async def person(process: asyncio.subprocess.Process, remote: Remote) -> None:
    # Notice: the item in waybar's tray, its count, mako's bubble.
    items = await until(xdesk.registered_items, 30)
    if not check(bool(items), "waybar lists the app's StatusNotifierItem"):
        return
    item = items[0]

    async def four() -> bool:
        return "Review approvals… (4)" in await menu_labels(item)

    check(bool(await until(four, 30)), "the menu waybar receives says 4 approvals wait")
    bubbles = await until(mako_list, 20)
    check(bool(bubbles), "mako shows a bubble")
    await xdesk.settle(1.0)
    image = await shot("desktop-sway.png")
    icon = xdesk.colour_in(image.copy(0, 0, image.width(), BAR), WAITING_ORANGE)
    if not check(icon is not None, "the waiting icon (with its count) is drawn in waybar"):
        return

    # Open: a left click on mako's bubble (top right) runs its default action, our Review.
    await remote.click(image.width() - 160, 90)
    opened = await until(dialog, 10)
    if not check(opened is not None, "a click on mako's bubble opens the dialog"):
        return
    check(bool(opened.get("focused")), "sway focuses the dialog")
    await xdesk.settle(1.0)
    await shot("desktop-sway-dialog.png")

    # Answer the first row from the keyboard.
    await remote.key("a")

    async def three() -> bool:
        found = await dialog()
        return bool(found and "3 commands waiting" in found["name"])

    check(bool(await until(three, 10)), "the A key answers a row (3 left in the title)")

    async def three_in_menu() -> bool:
        return "Review approvals… (3)" in await menu_labels(item)

    check(bool(await until(three_in_menu, 10)), "the tray's count follows (3)")
    await remote.key("Escape")

    async def closed() -> bool:
        return await dialog() is None

    check(bool(await until(closed, 5)), "Escape closes the dialog")

    # Open again: a left click on the icon (waybar sends Activate).
    await remote.click(*icon)
    again = await until(dialog, 10)
    check(again is not None, "a left click on the icon opens the dialog")
    check(bool(again and again.get("focused")), "... and sway focuses it")
    await behind_another_window(remote, icon)
    await remote.key("Escape")
    await until(closed, 5)

    await quit_from_the_menu(process, remote, icon)


async def behind_another_window(remote: Remote, icon: tuple[int, int]) -> None:
    """Another app's window on top of the open dialog; a click on the icon brings it back."""
    cover = await xdesk.another_app()
    try:

        async def covered() -> bool:
            found = next((w for w in await windows() if w["name"] == xdesk.OTHER_APP), None)
            if found is not None and not found.get("focused"):
                await swaymsg(f'[title="{xdesk.OTHER_APP}"]', "floating", "enable", ",", "focus")
            return bool(found and found.get("focused"))

        if not check(bool(await until(covered, 15)), "another app's window takes the focus"):
            return
        await shot("desktop-sway-covered.png")
        await remote.click(*icon)

        # waybar's Activate carries no activation token, so sway refuses a Wayland client's
        # plain request; the app then marks the dialog urgent and says where it is. sway.conf
        # has focus_on_window_activation focus, so the urgent dialog is also focused (sway's
        # default, urgent, would only mark it). Under Xwayland the X11 request is enough.
        async def said_where() -> bool:
            return any("are open in" in str(b.get("summary")) for b in await mako_list())

        if os.environ.get("HERMES_TRAY_APP_PLATFORM", "wayland") == "wayland":
            check(bool(await until(said_where, 10)), "... with no token: a notice says where")

        async def in_front() -> bool:
            found = await dialog()
            return bool(found and found.get("focused"))

        check(
            bool(await until(in_front, 10)),
            "... and the dialog comes back in front, focused",
        )
        await shot("desktop-sway-raised.png")
    finally:
        cover.terminate()
        await cover.wait()


async def own_window() -> dict[str, Any] | None:
    return next((w for w in await windows() if w["name"] == "Hermes Tray"), None)


async def person_without_bar(process: asyncio.subprocess.Process, remote: Remote) -> None:
    """No tray host (no bar): the tray's own window and its notice; then a bar starts."""
    window = await until(own_window, 30)
    if not check(window is not None, "no bar: the tray's own window is on screen"):
        return

    async def notice() -> bool:
        return any("No system tray" in str(b.get("summary")) for b in await mako_list())

    check(bool(await until(notice, 20)), "... and one notice says why")

    # Open: the approvals' bubble (mako has no buttons: its default action is Review).
    async def approval_bubble() -> str:
        bubbles = await mako_list()
        found = [b for b in bubbles if "No system tray" not in str(b.get("summary"))]
        return str(found[0]["id"]["data"]) if found else ""

    bubble = await until(approval_bubble, 30)
    if not check(bool(bubble), "mako shows the approvals' bubble"):
        return
    await xdesk.settle(1.0)
    await shot("desktop-sway-no-bar.png")
    await xdesk.run("makoctl", "invoke", "-n", bubble, check=False)
    opened = await until(dialog, 10)
    if not check(opened is not None, "the bubble's default action opens the dialog"):
        return
    check(bool(opened.get("focused")), "sway focuses the dialog")
    before = (await dialog() or {}).get("name", "")
    await xdesk.settle(1.0)  # a key answers only a row that was on screen long enough to read
    await remote.key("a")

    async def answered() -> bool:
        found = await dialog()
        return bool(found and found["name"] != before)

    check(bool(await until(answered, 10)), "the A key answers a row")
    await remote.key("Escape")

    # A bar starts. On Wayland Qt's icon is always a StatusNotifierItem, which registers with
    # the new watcher: the window steps back. Under Xwayland Qt built an XEmbed icon (no
    # watcher then), which waybar cannot show: the window stays and says to restart.
    await swaymsg("exec", os.environ["HERMES_TRAY_WAYBAR"])
    if os.environ.get("HERMES_TRAY_APP_PLATFORM", "wayland") == "xcb":
        await until(xdesk.registered_items, 30)
        await xdesk.settle(3.0)
        check(await own_window() is not None, "a bar starts later: the window stays (X11 icon)")
        await shot("desktop-sway-bar-later.png")
        await end_by_signal(process)
        return

    async def window_gone() -> bool:
        return await own_window() is None

    check(bool(await until(window_gone, 30)), "a bar starts later: the window steps back")

    async def icon_drawn() -> tuple[int, int] | None:
        image = await shot("desktop-sway-bar-later.png")
        return xdesk.colour_in(image.copy(0, 0, image.width(), BAR), WAITING_ORANGE)

    icon = await until(icon_drawn, 10)
    if check(icon is not None, "... to the waiting icon, drawn in waybar"):
        await quit_from_the_menu(process, remote, icon)


async def end_by_signal(process: asyncio.subprocess.Process) -> None:
    """Ends the app as a logout does (SIGTERM): the window's buttons cannot be found from
    outside, and Quit itself is played through waybar's menu in the other scenes."""
    process.terminate()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(process.returncode == 0, f"SIGTERM ends the app cleanly (status {process.returncode})")


async def quit_from_the_menu(
    process: asyncio.subprocess.Process, remote: Remote, icon: tuple[int, int]
) -> None:
    # The menu: a right click; waybar draws it. Quit is its last entry.
    await remote.move(*icon)  # the pointer is drawn: where it was must not count as the menu
    before = await shot("desktop-sway-before-menu.png")
    await remote.click(*icon, button=3)
    await xdesk.settle(1.0)
    after = await shot("desktop-sway-menu.png")
    box = changed(before, after)
    if not check(box is not None, "a right click on the icon opens waybar's menu"):
        return
    x, y, w, h = box
    await remote.click(x + w // 4, y + h - 18)  # the last entry: Quit Hermes Tray
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(process.returncode == 0, f"Quit from the menu ends the app (status {process.returncode})")

    async def no_item() -> bool:
        return not await xdesk.registered_items()

    check(bool(await until(no_item, 5)), "the icon leaves waybar")


def changed(before: QImage, after: QImage) -> tuple[int, int, int, int] | None:
    """Bounding box (x, y, w, h) of the pixels that differ below the bar (a menu that opened),
    None when nothing larger than 50 by 50 did."""
    xs: list[int] = []
    ys: list[int] = []
    for y in range(BAR, after.height(), 2):
        for x in range(0, after.width(), 2):
            if before.pixel(x, y) != after.pixel(x, y):
                xs.append(x)
                ys.append(y)
    if not xs or max(xs) - min(xs) < 50 or max(ys) - min(ys) < 50:
        return None
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


if __name__ == "__main__":
    sys.exit(run(scene))
