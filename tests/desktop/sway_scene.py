"""What ``try_sway.sh`` runs inside its sway + waybar + mako session; prints one line per check.

With the real app (``--demo`` as a process): notice (the icon with its count in waybar, the
menu waybar receives, mako's bubble), open (the bubble's default action, our Review), answer
(the A key in the dialog), open again (``Activate``) and Quit from the menu. Headless sway has
no pointer (no input devices, and sway's seat cursor reaches no client without one), so the
clicks are the calls the programs make on a click: ``makoctl invoke`` for mako's left click, the
StatusNotifierItem ``Activate`` and the dbusmenu click for waybar's. Keys come from wtype's
virtual keyboard. Exits 1 when a check fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtGui import QImage

from desktop.settings.store import load_settings, save_settings
from tests.desktop import xdesk

WAITING_ORANGE = "#f08a00"
BAR = 30
DIALOG = "Hermes approvals"
results: list[tuple[bool, str]] = []


def check(ok: bool, what: str) -> bool:
    results.append((ok, what))
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    return ok


async def until(probe: Callable[[], Awaitable[Any]], timeout: float) -> Any:
    """The first truthy answer of ``probe`` within ``timeout`` seconds, else None."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            found = await probe()
        except Exception:  # not up yet: a name with no owner, no window
            found = None
        if found or loop.time() > deadline:
            return found or None
        await asyncio.sleep(0.2)


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


async def menu_labels(item: str) -> list[str]:
    async with xdesk.session_bus() as bus:
        menu = await xdesk.item_menu(bus, item)
        _revision, layout = await menu.call_get_layout(0, 1, ["label"])
    return [c.value[1]["label"].value for c in layout[2] if "label" in c.value[1]]


async def scene() -> None:
    save_settings(dataclasses.replace(load_settings(), quiet_after_start_s=0.0))

    async def watcher() -> bool:
        await xdesk.registered_items()
        return True

    # Started after waybar's watcher: an icon built before it would never become an SNI item.
    check(bool(await until(watcher, 20)), "waybar hosts the StatusNotifierWatcher")
    process = await xdesk.start_demo("wayland")
    try:
        await steps(process)
    finally:
        if process.returncode is None:
            process.kill()
        _out, err = await process.communicate()
        log = err.decode(errors="replace")
        check("Traceback" not in log, "no traceback in the app's log")
        for line in log.splitlines():
            if "activat" in line.lower() or "decision" in line:
                print("      log:", line.strip(), flush=True)


async def steps(process: asyncio.subprocess.Process) -> None:
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
    check(icon is not None, "the waiting icon (with its count) is drawn in waybar")

    # Open: what mako does on a left click on the bubble (invoke-default-action: our Review).
    await xdesk.run("makoctl", "invoke")
    opened = await until(dialog, 10)
    if not check(opened is not None, "the bubble's default action (Review) opens the dialog"):
        return
    check(bool(opened.get("focused")), "sway focuses the dialog")
    await xdesk.settle(1.0)
    await shot("desktop-sway-dialog.png")

    # Answer the first row from the keyboard. wtype's virtual keyboard is the seat's only one:
    # it types after a pause, once the app has bound it.
    await xdesk.run("wtype", "-s", "1000", "a")

    async def three() -> bool:
        found = await dialog()
        return bool(found and "3 commands waiting" in found["name"])

    check(bool(await until(three, 10)), "the A key answers a row (3 left in the title)")

    async def three_in_menu() -> bool:
        return "Review approvals… (3)" in await menu_labels(item)

    check(bool(await until(three_in_menu, 10)), "the tray's count follows (3)")
    await xdesk.run("wtype", "-s", "1000", "-k", "Escape")

    async def closed() -> bool:
        return await dialog() is None

    check(bool(await until(closed, 5)), "Escape closes the dialog")

    # Open again: what waybar sends on a left click on the icon (an item that says it is only
    # a menu would get the menu instead).
    async with xdesk.session_bus() as bus:
        service, _, path = item.partition("/")
        sni = await xdesk.interface(bus, service, "/" + path, xdesk.SNI)
        check(not await sni.get_item_is_menu(), "ItemIsMenu is false: a left click activates")
        await sni.call_activate(0, 0)
    again = await until(dialog, 10)
    check(again is not None, "Activate (waybar's left click) opens the dialog")
    check(bool(again and again.get("focused")), "... and sway focuses it")

    # Quit: what waybar does when Quit is clicked in the menu it draws.
    await xdesk.click_menu_item(item, "Quit Hermes Tray")
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(process.returncode == 0, f"Quit from the menu ends the app (status {process.returncode})")

    async def no_item() -> bool:
        return not await xdesk.registered_items()

    check(bool(await until(no_item, 5)), "the icon leaves waybar")
    for note in await mako_list():
        print("      mako still shows:", note["summary"]["data"], flush=True)


def main() -> int:
    asyncio.run(scene())
    failed = [what for ok, what in results if not ok]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
