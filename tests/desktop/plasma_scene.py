"""What ``try_plasma.sh`` runs inside its KDE Plasma (X11) session; prints one line per check.

Like a person, with the real app as a process and nothing configured (so it runs its demo):
notice (the icon with its count in Plasma's system tray, Plasma's bubble, whose words match the
count), open (a left click on the icon), answer (the A and D keys), the bubble withdrawn while
the dialog shows its rows and the dialog out of the bubbles' way, rows held back while the
dialog had focus announced when it closes, the bubble's Review, a dialog behind another window
raised by a click on the icon, Plasma's do-not-disturb, and Quit from Plasma's menu. Clicks and
keys are xdotool's; what reaches Plasma is read off the session bus with a monitor. Prints the
figures too: from an answer to the icon's new count, from a new question to its bubble.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import Any

from PySide6.QtGui import QGuiApplication, QImage

from tests.desktop import xdesk
from tests.desktop.checks import check, menu_labels, note, run, until

WAITING_ORANGE = "#f08a00"
PANEL = 60  # the strip along the bottom where Plasma's default panel and its tray are
DIALOG = "Hermes approvals|commands waiting"  # xdotool --name is a regex
NOTIFICATION = "_NET_WM_WINDOW_TYPE_NOTIFICATION"  # how Plasma's bubbles are typed
SNI = "org.kde.StatusNotifierItem"
DND_SHORTCUT = "toggle do not disturb"  # Plasma's own action, as its applet's button runs it
# what the monitor keeps: our bubbles' words and closes, the tray item's changes
MONITORED = [
    "type='method_call',interface='org.freedesktop.Notifications'",
    f"type='signal',interface='{SNI}'",
]
Box = tuple[int, int, int, int]


def kept(message: Any) -> tuple[float, str, Any] | None:
    """``(when, what, detail)``: a Notify (its summary), a close (its id), a new icon."""
    if message.member == "Notify":
        return time.monotonic(), "notify", message.body[3]
    if message.member == "CloseNotification":
        return time.monotonic(), "close", message.body[0]
    if message.member == "NewIcon":
        return time.monotonic(), "icon", None
    return None


async def xprop(window: str, name: str) -> str:
    where = ["-root"] if window == "root" else ["-id", window]
    return await xdesk.run("xprop", *where, name, check=False)


async def bubble_windows() -> dict[int, Box]:
    """Plasma's notification bubbles on screen: window id (newest last) and where."""
    found = {}
    out = await xdesk.run("xdotool", "search", "--onlyvisible", "--classname", "plasmashell")
    for window in sorted(out.split(), key=int):
        if NOTIFICATION in await xprop(window, "_NET_WM_WINDOW_TYPE"):
            found[int(window)] = await xdesk.geometry(window)
    return found


async def bubbles() -> list[Box]:
    """Where Plasma's notification bubbles are on screen, the newest last."""
    return list((await bubble_windows()).values())


async def no_bubbles() -> bool:
    return not await bubbles()


async def dialog() -> str | None:
    found = await xdesk.run("xdotool", "search", "--onlyvisible", "--name", DIALOG, check=False)
    return found.split()[-1] if found.split() else None


async def title(window: str) -> str:
    return (await xdesk.run("xdotool", "getwindowname", window, check=False)).strip()


async def active() -> str:
    return (await xdesk.run("xdotool", "getactivewindow", check=False)).strip()


async def frame(window: str) -> Box:
    """The window with KWin's frame (``_NET_FRAME_EXTENTS``): what covers the screen."""
    x, y, w, h = await xdesk.geometry(window)
    extents = (await xprop(window, "_NET_FRAME_EXTENTS")).partition("=")[2]
    left, right, top, bottom = (int(v) for v in extents.split(",")) if extents else (0,) * 4
    return x - left, y - top, w + left + right, h + top + bottom


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def grab(box: Box) -> QImage:
    return QGuiApplication.primaryScreen().grabWindow(0, *box).toImage()


async def shot(name: str) -> None:
    note("screenshot:", await xdesk.screenshot(name))


def notified(seen: list[tuple[float, str, Any]], since: float) -> list[str]:
    return [detail for when, what, detail in seen if what == "notify" and when >= since]


async def told(seen: list[Any], since: float) -> tuple[list[str], Box | None]:
    """What the app's bubbles said since ``since`` (waiting up to 8 s for the first), and
    where Plasma shows the newest bubble once it is up."""

    async def words() -> list[str]:
        return notified(seen, since)

    await until(words, 8)
    await xdesk.settle(0.6)  # Plasma fades a replaced bubble out and the new one in
    shown = await until(bubbles, 5)
    return notified(seen, since), (shown[-1] if shown else None)


async def scene() -> None:
    """The app, started once Plasma's tray hosts items (an icon made before never shows)."""
    app = QGuiApplication.instance() or QGuiApplication([])
    screen = app.primaryScreen().geometry()
    info = await until(server_information, 20)
    check(bool(info) and info[0] == "Plasma", f"Plasma is the notification server ({info})")
    async with xdesk.bus_messages(MONITORED, kept) as seen:
        process = await xdesk.start_demo("xcb", ())  # nothing configured: the demo
        try:
            await person(process, seen, (screen.width(), screen.height()))
        finally:
            if process.returncode is None:
                process.kill()
            _out, err = await process.communicate()
    log = err.decode(errors="replace")
    for line in log.splitlines():
        if any(word in line for word in ("notifying", "decision", "do not disturb")):
            note("log:", line.strip())
    for choice in ("deny", "once"):
        sent = [line for line in log.splitlines() if f"decision {choice} on" in line]
        check(
            any("from notification: sent" in line for line in sent),
            f"the app sent a {choice} answered in a bubble",
        )
    check("Traceback" not in log, "no traceback in the app's log")
    check(
        "following 2 more session(s) other clients run" in log,
        "with nothing configured the demo ran",
    )


async def server_information() -> list[str]:
    async with xdesk.session_bus() as bus:
        notifications = await xdesk.interface(
            bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
        )  # fmt: skip
        return [str(part) for part in await notifications.call_get_server_information()]


async def counts(item: str, n: int) -> bool:
    """Whether the menu Plasma receives says ``n`` approvals wait."""
    return f"Review approvals… ({n})" in await menu_labels(item)


async def tooltip() -> str:
    return "\n".join(await xdesk.item_tooltips())


async def person(
    process: asyncio.subprocess.Process, seen: list[Any], size: tuple[int, int]
) -> None:
    width, height = size
    panel = (0, height - PANEL, width, PANEL)

    # Notice: the item in Plasma's tray with its count, the bubble, and their words agree.
    items = await until(xdesk.registered_items, 30)
    if not check(bool(items), "Plasma's tray lists the app's StatusNotifierItem"):
        return
    item = items[0]

    four = await until(lambda: counts(item, 4), 30)
    check(bool(four), "the menu Plasma receives says 4 approvals")
    first = await until(bubbles, 30)  # after the app's quiet start (10 s)
    if not check(bool(first), "Plasma shows a bubble"):
        return
    bubble = first[0]
    words = notified(seen, 0)
    check(words[-1:] == ["4 approvals waiting"], f"the bubble says what the icon counts ({words})")
    await xdesk.settle(1.0)
    at = xdesk.find_colour(WAITING_ORANGE, panel)
    if not check(at is not None, "the waiting icon (with its count) is drawn in Plasma's panel"):
        return
    await shot("desktop-plasma.png")

    # Open: a left click on the icon; the dialog shows every waiting row, so the bubble goes.
    await xdesk.click(*at)
    window = await until(dialog, 10)
    if not check(window is not None, "a left click on the icon opens the dialog"):
        return
    check(await active() == window, "KWin gives the dialog the focus")
    check("4 commands waiting" in await title(window), "the dialog lists the 4")
    check(bool(await until(no_bubbles, 3)), "the bubble is withdrawn")
    place = await frame(window)
    check(
        not overlap(place, bubble) and place[1] + place[3] <= height - PANEL + 10,
        f"the dialog {place} is out of the bubble's place {bubble} and off the panel",
    )
    await xdesk.settle(0.5)
    await shot("desktop-plasma-dialog.png")

    # Answer: A approves the selected row; the icon's count follows.
    await xdesk.settle(1.0)  # a key answers a row on screen for a moment (KEY_DWELL_S)
    icon_box = (at[0] - 12, at[1] - 12, 24, 24)
    before = grab(icon_box)
    asked = time.monotonic()
    await xdesk.key("a")
    for _ in range(250):  # 5 s, looking every 20 ms
        if grab(icon_box) != before:
            break
        await asyncio.sleep(0.02)
    drawn = time.monotonic() - asked
    check("3 commands waiting" in await title(window), "the A key approves a row (3 left)")
    check(bool(await until(lambda: counts(item, 3), 5)), "the tray's menu follows (3)")
    new_icon = [when - asked for when, what, _ in seen if what == "icon" and when >= asked]
    check(drawn < 5, "Plasma draws the icon's new count")
    note(
        f"figure: answer to new icon sent {new_icon[0] * 1000:.0f} ms, "
        f"to Plasma's panel showing it {drawn * 1000:.0f} ms"
        if new_icon
        else "figure: no NewIcon seen"
    )

    # Held back: an answer ends the home server's round; its next question comes while the
    # dialog has the focus: no bubble then, one when the dialog closes, counting every row.
    await xdesk.settle(1.0)
    await xdesk.key("d")  # the selection moved on to the home server's row
    check(bool(await until(lambda: counts(item, 2), 5)), "the D key denies a row (2 left)")
    quiet_since = time.monotonic()

    async def asked_again() -> bool:
        return "3 commands waiting" in await title(window)

    again = await until(asked_again, 30)
    check(bool(again), "the demo asks again while the dialog has the focus")
    check(notified(seen, quiet_since) == [], "... and no bubble covers the focused dialog")
    await xdesk.key("Escape")
    closed = time.monotonic()
    words, back = await told(seen, closed)
    check(back is not None, "the question held back gets a bubble when the dialog closes")
    check(words == ["3 approvals waiting"], f"... counting every waiting row ({words})")
    check(bool(await until(lambda: counts(item, 3), 2)), "... as the icon does (3)")
    if words:
        sent = next(w for w, what, _ in seen if what == "notify" and w >= closed)
        note(f"figure: dialog closed to the bubble's Notify {sent - closed:.1f} s (held 3 s)")

    # The bubble's Review opens the dialog; the bubble goes again.
    if back:
        x, y, w, h = back
        await xdesk.click(x + w - 36, y + h - 22)  # Review: the bubble's last button
        window = await until(dialog, 10)
        check(window is not None and await active() == window, "the bubble's Review opens it")
        check(bool(await until(no_bubbles, 3)), "... and its bubble goes")
    if window is None:
        return

    await raise_behind(window, at)
    await do_not_disturb(window, item, seen, at, panel)
    await ask_to_bubble(process, item, seen, at, panel)
    await left_click_when_idle(process, at)
    await quit_from_menu(process, item, at, height)


async def raise_behind(window: str, at: tuple[int, int]) -> None:
    """Another app on top, clicked and typed into; then a click on our icon."""
    other = await asyncio.create_subprocess_exec(
        "xmessage", "-geometry", "900x640+0+0", "another app, on top of the dialog",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        found = await until(lambda: xdesk.find_window(classname="xmessage", timeout=0.5), 10)
        if not check(found is not None, "another app opens over the dialog"):
            return
        await xdesk.click(400, 300)  # a person works in it
        await xdesk.key("space")
        check(await active() == found, "... and has the focus")
        back = await until(bubbles, 8)
        check(bool(back), "the dialog lost the focus: what waits gets a bubble again")
        await xdesk.click(*at)
        await xdesk.settle(1.0)
        stacking = await xprop("root", "_NET_CLIENT_LIST_STACKING")
        ids = [int(v, 16) for v in stacking.partition("#")[2].replace(",", " ").split()]
        ours, theirs = int(window), int(found)
        on_top = ours in ids and theirs in ids and ids.index(ours) > ids.index(theirs)
        check(await active() == window, "a left click on the icon gives the dialog the focus")
        check(on_top, "... and brings it above the other app (KWin's focus stealing prevention)")
        await shot("desktop-plasma-raised.png")
    finally:
        other.kill()
        await other.wait()


async def do_not_disturb(
    window: str, item: str, seen: list[Any], at: tuple[int, int], panel: Box
) -> None:
    """Plasma's switch on: a new question gets no bubble; off: one bubble for what waits."""
    await toggle_dnd()

    async def held() -> bool:
        return "Do not disturb is on" in await tooltip()

    check(bool(await until(held, 5)), "Plasma's do-not-disturb is read (the tooltip says so)")
    await xdesk.run("xdotool", "windowactivate", "--sync", window, check=False)
    n = await deny_the_last_row(window, item) + 1
    await xdesk.key("Escape")
    since = time.monotonic()

    arrived = await until(lambda: counts(item, n), 30)
    await xdesk.settle(4.0)  # past the dialog's hold-back, so a bubble would have come
    check(bool(arrived) and not notified(seen, since), "a new question during it: no bubble")
    before = grab((at[0] - 12, at[1] - 12, 24, 24))
    await toggle_dnd()
    off = time.monotonic()
    words, back = await told(seen, off)
    check(back is not None, f"switched off: one bubble for what waits ({words})")
    check(words == [f"{n} approvals waiting"], f"... counting all {n}")
    if words:
        sent = next(w for w, what, _ in seen if what == "notify" and w >= off)
        note(f"figure: do-not-disturb off to the bubble's Notify {(sent - off) * 1000:.0f} ms")
    check(grab((at[0] - 12, at[1] - 12, 24, 24)) == before, "the icon kept its count meanwhile")


async def deny_the_last_row(window: str, item: str) -> int:
    """D on the dialog's last row (the home server's: its round starts over); what is left."""
    n = int((await title(window)).split(" commands")[0].rsplit(" ", 1)[-1])
    for _ in range(n):
        await xdesk.key("Down")
    await xdesk.settle(1.0)  # a key answers a row on screen for a moment
    await xdesk.key("d")
    denied = await until(lambda: counts(item, n - 1), 5)
    check(bool(denied), f"the D key denies a row ({n - 1} left)")
    return n - 1


async def ask_to_bubble(
    process: asyncio.subprocess.Process, item: str, seen: list[Any], at: tuple[int, int], panel: Box
) -> None:
    """Answers from Plasma's bubbles (Deny all, Approve), and the figure: from a new question
    (the app's new icon) to Plasma's panel and a new bubble."""
    await xdesk.click(*at)
    window = await until(dialog, 10)
    if not check(window is not None, "the icon opens the dialog again"):
        return
    left = await deny_the_last_row(window, item)  # the home server asks again in ~10 s
    await xdesk.key("Escape")
    await xdesk.run("xdotool", "mousemove", "600", "300")  # the tray's tooltip would cover it
    words, shown = await told(seen, time.monotonic())
    if not check(shown is not None, f"the {left} left get a bubble of their own ({words})"):
        return
    await xdesk.settle(1.0)
    await shot("desktop-plasma-batch.png")
    x, y, w, h = shown
    await xdesk.click(x + w - 280, y + h - 22)  # [Deny all][Deny and stop the agent][Review]
    await xdesk.run("xdotool", "mousemove", "600", "300")  # no tooltip over the tray

    async def none_wait() -> bool:
        return xdesk.find_colour(WAITING_ORANGE, panel) is None and not await bubbles()

    check(bool(await until(none_wait, 5)), "the bubble's Deny all answers them; the bubble goes")
    icon_box = (at[0] - 12, at[1] - 12, 24, 24)
    before = set(await bubble_windows())
    since = time.monotonic()
    drawn: dict[str, float] = {}
    for _ in range(1500):  # 30 s, looking every 20 ms for the count, then for the bubble
        now = time.monotonic()
        if "icon" not in drawn and xdesk.find_colour(WAITING_ORANGE, icon_box) is not None:
            drawn["icon"] = now
        if notified(seen, since) and set(await bubble_windows()) - before:
            drawn["bubble"] = now
            break
        if "icon" in drawn and now - drawn["icon"] > 8:
            break
        await asyncio.sleep(0.02)
    # the app's icon that carries the count: the last it sent before Plasma drew the count (an
    # earlier one may be the agent's YOLO switching off, a second before it asks)
    icons = [when for when, what, _ in seen if what == "icon" and when <= drawn.get("icon", 0)]
    asked = icons[-1] if icons and icons[-1] >= since else None
    sent = next((when for when, what, _ in seen if what == "notify" and when >= since), None)
    words = notified(seen, since)
    check(
        len(drawn) == 2 and len(words) == 1 and "Tidy the home server" in words[0],
        f"a new question: Plasma shows the new count and a bubble for it ({words})",
    )
    if asked is not None and sent is not None and len(drawn) == 2:
        note(
            f"figure: new question (the app's new icon) to Plasma's panel showing the count "
            f"{(drawn['icon'] - asked) * 1000:.0f} ms; to the bubble's Notify "
            f"{(sent - asked) * 1000:.0f} ms, to Plasma's bubble on screen "
            f"{(drawn['bubble'] - asked) * 1000:.0f} ms"
        )
    shown = await until(bubbles, 5)
    if not shown:
        return
    await xdesk.settle(1.0)
    await shot("desktop-plasma-buttons.png")
    x, y, w, h = shown[-1]
    await xdesk.click(x + w - 154, y + h - 22)  # one row, right-aligned: [Approve][Deny][Review]
    await xdesk.run("xdotool", "mousemove", "600", "300")
    check(bool(await until(none_wait, 5)), "the bubble's Approve answers it; the bubble goes")


async def left_click_when_idle(process: asyncio.subprocess.Process, at: tuple[int, int]) -> None:
    """Nothing waits (both sessions answered, a few seconds before they ask again): a left click
    opens the menu, which the app draws itself at the pointer (Plasma only draws it on a right
    click)."""
    if xdesk.find_colour(WAITING_ORANGE, (at[0] - 12, at[1] - 12, 24, 24)) is not None:
        note("something waits again: a left click with nothing waiting was not tried")
        return
    await xdesk.click(*at)

    async def app_menu() -> Box | None:
        out = await xdesk.run(
            "xdotool", "search", "--onlyvisible", "--pid", str(process.pid), check=False
        )
        for window in out.split():
            if "_NET_WM_WINDOW_TYPE_POPUP_MENU" in await xprop(window, "_NET_WM_WINDOW_TYPE"):
                return await xdesk.geometry(window)
        return None

    box = await until(app_menu, 3)
    check(box is not None, f"with nothing waiting, a left click opens the menu at {box}")
    await shot("desktop-plasma-idle-menu.png")
    if box is not None:
        check(
            not overlap(box, (at[0], at[1], 1, 1)),
            "... not over the icon (its last entry, Quit, once sat there)",
        )
    await xdesk.key("Escape")
    await xdesk.run("xdotool", "mousemove", "600", "300")


async def toggle_dnd() -> None:
    await xdesk.run(
        "gdbus", "call", "--session", "-d", "org.kde.kglobalaccel", "-o",
        "/component/plasmashell", "-m", "org.kde.kglobalaccel.Component.invokeShortcut",
        DND_SHORTCUT,
    )  # fmt: skip


async def quit_from_menu(
    process: asyncio.subprocess.Process, item: str, at: tuple[int, int], height: int
) -> None:
    """A right click: Plasma draws the menu from the app's export; Quit is its last entry."""
    await xdesk.click(*at, button=3)

    async def menu() -> tuple[int, int, int, int] | None:
        out = await xdesk.run("xdotool", "search", "--onlyvisible", "--classname", "plasmashell")
        for window in out.split():
            if "_NET_WM_WINDOW_TYPE_POPUP_MENU" in await xprop(window, "_NET_WM_WINDOW_TYPE"):
                return await xdesk.geometry(window)
        return None

    box = await until(menu, 5)
    if not check(box is not None, "a right click on the icon opens Plasma's menu"):
        return
    await xdesk.settle(0.5)
    await shot("desktop-plasma-menu.png")
    x, y, w, h = box
    await xdesk.click(x + w // 4, y + h - 18)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(process.returncode == 0, f"Quit from the menu ends the app (status {process.returncode})")

    async def gone() -> bool:
        return not await xdesk.registered_items() and not await bubbles()

    check(bool(await until(gone, 5)), "the icon leaves the tray and no bubble is left")


if __name__ == "__main__":
    sys.exit(run(scene))
