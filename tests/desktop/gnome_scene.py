"""What ``try_gnome.sh`` runs inside its GNOME Shell session; prints one line per check.

Like a person, with the real app (``--demo`` as a process), on GNOME Shell with or without the
AppIndicator extension (``HERMES_TRAY_GNOME_RUN``: ``x11-appindicator``, ``wayland-plain``, …):
notice (the icon with its count in the top bar, or the tray's own window; GNOME's banner), open
(the banner's Review), answer (the A key in the dialog), open again (a double click on the icon,
or the own window's Review), and Quit (the icon's menu, or the own window's last button).

Where things are on screen is asked of the shell (``org.gnome.Shell.Eval``: the top bar's
indicator, the banner and its buttons, the windows), and every press goes through Clutter's
virtual pointer and keyboard, which are real input devices to the shell and to every client
(headless Wayland has no others). The test extension ``try_gnome.sh`` installs turns on the
shell's unsafe mode, which these calls need. Exits 1 when a check fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from PySide6.QtGui import QImage

from desktop.platform.activation import SAY_WHERE_WHAT as SAY_WHERE
from desktop.platform.autostart import launch_command
from desktop.platform.desktop_entry import XdgLauncher
from desktop.platform.paths import APP_ID
from desktop.settings.store import load_settings, save_settings
from desktop.ui.icons import icon_dir
from tests.desktop import xdesk
from tests.desktop.checks import check, ended_log, note, run, until

WAITING_ORANGE = "#f08a00"
DIALOG = "Hermes approvals"
OWN_WINDOW = "Hermes Tray"
NO_TRAY = "No system tray found"
REVIEW = "Review"
WATCHER = "org.kde.StatusNotifierWatcher"
ENTRY = f"{APP_ID}.desktop"
INPUT = """(() => {
  const { Clutter, GLib } = imports.gi;
  const seat = Clutter.get_default_backend().get_default_seat();
  global._hermesPointer ??= seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
  global._hermesKeys ??= seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
  const pointer = global._hermesPointer, keys = global._hermesKeys;
  const now = () => GLib.get_monotonic_time();
  %s;
  return true;
})()"""

WINDOWS = """(() => {
  const Shell = imports.gi.Shell;
  const tracker = Shell.WindowTracker.get_default();
  return global.get_window_actors().map(a => a.meta_window).map(w => {
    const r = w.get_frame_rect(), app = tracker.get_window_app(w);
    return { title: w.get_title(), focus: w.has_focus(), minimized: w.minimized,
             x: r.x, y: r.y, w: r.width, h: r.height,
             app: app ? app.get_name() : '', app_id: app ? app.get_id() : '' };
  });
})()"""

CENTRE = """const centre = a => {
  const [x, y] = a.get_transformed_position(), [w, h] = a.get_transformed_size();
  return { x: Math.round(x + w / 2), y: Math.round(y + h / 2), w: Math.round(w),
           h: Math.round(h), left: Math.round(x), top: Math.round(y) };
};"""

NOTIFICATIONS = (
    "(() => {"
    + CENTRE
    + """
  const tray = Main.messageTray, b = tray._banner;
  const sources = tray.getSources().map(s => ({ title: s.title,
    notifications: s.notifications.map(n => ({ title: n.title, body: n.bannerBodyText || '',
      actions: n.actions.map(a => a.label), urgency: n.urgency })) }));
  let banner = null;
  if (b && b.mapped)
    banner = Object.assign(centre(b), { title: b.notification.title,
      source: b.notification.source.title, expanded: b.expanded,
      buttons: (b._buttonBox ? b._buttonBox.get_children() : [])
        .map(c => Object.assign(centre(c), { label: c.label })) });
  return { banner, sources };
})()"""
)

INDICATORS = (
    "(() => {"
    + CENTRE
    + """
  return Object.entries(Main.panel.statusArea)
    .filter(([key, button]) => key.startsWith('appindicator-') && button.mapped)
    .map(([key, button]) => Object.assign(centre(button), { key, open: button.menu.isOpen,
      items: button.menu.isOpen ? button.menu._getMenuItems()
        .filter(i => i.label && i.mapped)
        .map(i => Object.assign(centre(i), { label: i.label.text })) : [] }));
})()"""
)


@dataclasses.dataclass
class Shell:
    """The shell as the scene asks it: Eval, Screenshot, and a pointer and keyboard."""

    eval_iface: Any
    screenshot_iface: Any
    shots: Path

    @classmethod
    async def connect(cls, bus: Any) -> Shell:
        shell = await xdesk.interface(bus, "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell")
        shot = await xdesk.interface(
            bus, "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
            "org.gnome.Shell.Screenshot",
        )  # fmt: skip
        return cls(shell, shot, Path(os.environ["HERMES_TRAY_GNOME_SHOTS"]))

    async def eval(self, code: str) -> Any:
        ok, out = await self.eval_iface.call_eval(code)
        if not ok:
            raise RuntimeError(f"Eval failed: {out}")
        return json.loads(out) if out else None

    async def input(self, code: str) -> None:
        await self.eval(INPUT % code)

    async def move(self, x: int, y: int) -> None:
        await self.input(f"pointer.notify_absolute_motion(now(), {x}, {y})")

    async def click(self, x: int, y: int, button: int = 1, times: int = 1) -> None:
        await self.move(x, y)
        await xdesk.settle(0.3)
        presses = "; ".join(
            f"pointer.notify_button(now(), {button}, Clutter.ButtonState.PRESSED); "
            f"pointer.notify_button(now(), {button}, Clutter.ButtonState.RELEASED)"
            for _ in range(times)
        )
        await self.input(presses)

    async def key(self, name: str) -> None:
        await self.input(
            f"keys.notify_keyval(now(), Clutter.KEY_{name}, Clutter.KeyState.PRESSED); "
            f"keys.notify_keyval(now(), Clutter.KEY_{name}, Clutter.KeyState.RELEASED)"
        )

    async def shift_tab(self) -> None:
        await self.input(
            "keys.notify_keyval(now(), Clutter.KEY_Shift_L, Clutter.KeyState.PRESSED); "
            "keys.notify_keyval(now(), Clutter.KEY_Tab, Clutter.KeyState.PRESSED); "
            "keys.notify_keyval(now(), Clutter.KEY_Tab, Clutter.KeyState.RELEASED); "
            "keys.notify_keyval(now(), Clutter.KEY_Shift_L, Clutter.KeyState.RELEASED)"
        )

    async def screenshot(self, name: str) -> QImage:
        """What the shell shows (written by the shell, which may be another user, then copied)."""
        ok, written = await self.screenshot_iface.call_screenshot(
            False, False, str(self.shots / name)
        )
        target = xdesk.screenshot_dir() / name
        if ok:
            shutil.copyfile(written, target)
        note(f"screenshot: {target}")
        return QImage(str(target))

    async def grab(self, area: dict[str, Any]) -> bytes:
        """The pixels of ``area`` (an actor's left, top, w, h) as the shell draws them now."""
        path = self.shots / "area.png"
        await self.screenshot_iface.call_screenshot_area(
            area["left"], area["top"], area["w"], area["h"], False, str(path)
        )
        return QImage(str(path)).bits().tobytes()

    async def windows(self, title: str = "") -> list[dict[str, Any]]:
        return [w for w in await self.eval(WINDOWS) if title in w["title"]]

    async def window(self, title: str) -> dict[str, Any] | None:
        found = await self.windows(title)
        return found[0] if found else None

    async def notifications(self) -> dict[str, Any]:
        return dict(await self.eval(NOTIFICATIONS))

    async def indicators(self) -> list[dict[str, Any]]:
        return list(await self.eval(INDICATORS))


def ours(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Our notifications in GNOME's list (the source GNOME files under the app's name)."""
    return [n for s in state["sources"] if s["title"] == "Hermes Tray" for n in s["notifications"]]


def since(start: float) -> str:
    return f"{time.monotonic() - start:.2f} s"


async def watcher_owned() -> bool:
    async with xdesk.session_bus() as bus:
        await xdesk.interface(bus, WATCHER, "/StatusNotifierWatcher", WATCHER)
    return True


async def menu_count(count: int) -> bool:
    return f"Review approvals… ({count})" in await xdesk.dbusmenu_labels()


async def scene() -> None:
    display, _, tray = os.environ["HERMES_TRAY_GNOME_RUN"].partition("-")
    save_settings(dataclasses.replace(load_settings(), quiet_after_start_s=0.0))
    async with xdesk.session_bus() as bus:
        shell = await until(lambda: Shell.connect(bus), 60)
        if not check(shell is not None, "gnome-shell is on the session bus"):
            return

        async def started() -> bool:
            return bool(await shell.eval("!Main.layoutManager._startingUp"))

        if not check(bool(await until(started, 60)), "gnome-shell started (unsafe mode on)"):
            return
        version = await shell.eval("imports.misc.config.PACKAGE_VERSION")
        note(f"GNOME Shell {version}, {display}, AppIndicator extension {tray}")

        async def overview_gone() -> bool:
            if await shell.eval("Main.overview.visible"):
                await shell.key("Escape")  # GNOME starts in the overview
                return False
            return True

        await until(overview_gone, 15)

        async def no_banner() -> bool:
            # What GNOME says at start goes to its list once the person moves (a banner stays
            # while the session is idle, and one with no input devices always is).
            await shell.move(300 + int(time.monotonic() * 10) % 200, 400)
            await xdesk.settle(0.5)
            return bool(
                await shell.eval("!Main.messageTray._banner && !Main.messageTray.queueCount")
            )

        await until(no_banner, 20)
        if tray == "appindicator":
            owned = await until(watcher_owned, 20)
            check(bool(owned), "the AppIndicator extension runs the StatusNotifierWatcher")
        # As after the app's first start: its desktop entry is installed (the app writes it at
        # every start; the shell takes a few seconds to read a new one, until then a window
        # and the notifications carry the raw app id).
        XdgLauncher().install(launch_command(), icon_dir() / "hermes-tray.svg")

        async def entry_known() -> bool:
            return bool(
                await shell.eval(
                    f"!!imports.gi.Shell.AppSystem.get_default().lookup_app('{ENTRY}')"
                )
            )

        check(bool(await until(entry_known, 20)), "GNOME knows the app's desktop entry")
        started_at = time.monotonic()
        platform = "xcb" if display == "x11" else "wayland"
        process = await xdesk.start_demo(platform, ())  # nothing configured: the demo
        try:
            person = with_indicator if tray == "appindicator" else without_indicator
            await person(shell, process, started_at, f"desktop-gnome-{display}-{tray}")
        finally:
            log = await ended_log(process)
            check(
                "do not disturb: on (from GNOME" in log
                and "do not disturb: off (from GNOME" in log,
                "GNOME's do-not-disturb (show-banners) is read and followed",
            )
            for line in log.splitlines():
                if any(
                    w in line.lower()
                    for w in ("tray host", "server", "disturb", "activat", "notifying", "forward")
                ):
                    note("log: " + line.strip()[:200])


async def our_banner(shell: Shell, timeout: float, title: str = "") -> dict[str, Any] | None:
    """The banner on screen when it is one of ours (with ``title`` in its title)."""

    async def probe() -> dict[str, Any] | None:
        banner = (await shell.notifications())["banner"]
        ours = banner and banner["source"] == "Hermes Tray" and title in banner["title"]
        if ours and banner["x"] is not None:  # allocated: where it is is known
            return banner
        if banner:  # another one: the person moves, and GNOME lets it go after a while
            await shell.move(200 + int(time.monotonic() * 10) % 300, 600)
        return None

    return await until(probe, timeout)


async def open_from_banner(
    shell: Shell,
    banner: dict[str, Any],
    name: str,
    seen: Callable[[QImage], None] = lambda image: None,
) -> dict[str, Any] | None:
    """Point at the banner (GNOME holds it and shows its buttons), take the screenshot of the
    notice (``seen`` looks at it), click Review; the dialog, or None."""
    await shell.move(banner["x"], banner["y"])

    async def expanded() -> dict[str, Any] | None:
        shown = (await shell.notifications())["banner"]
        buttons = shown["buttons"] if shown and shown["expanded"] else []
        return shown if buttons and all(b["x"] is not None for b in buttons) else None

    shown = await until(expanded, 5)
    buttons = [b["label"] for b in shown["buttons"]] if shown else []
    check(
        0 < len(buttons) <= 3 and REVIEW in buttons,
        f"pointed at, the banner shows its buttons, at most 3, Review kept: {buttons}",
    )
    await xdesk.settle(0.5)
    seen(await shell.screenshot(f"{name}.png"))
    review = next((b for b in shown["buttons"] if b["label"] == REVIEW), None) if shown else None
    if review is None:
        return None
    clicked = time.monotonic()
    await shell.click(review["x"], review["y"])
    dialog = await until(lambda: shell.window(DIALOG), 10)
    if not check(dialog is not None, "the banner's Review opens the dialog"):
        return None
    note(f"dialog mapped {since(clicked)} after the click")
    check(bool(await until(lambda: focused(shell), 3)), "GNOME focuses the dialog")
    check(
        (dialog["app"], dialog["app_id"]) == ("Hermes Tray", ENTRY),
        f"GNOME ties the dialog to the desktop entry: {dialog['app']!r} ({dialog['app_id']})",
    )
    return dialog


async def answer(shell: Shell, name: str, icon: dict[str, Any] | None) -> None:
    """The A key approves the first row; the title (and the icon and its menu) count one less."""
    await xdesk.settle(1.0)
    await shell.screenshot(f"{name}-dialog.png")
    before = (await shell.window(DIALOG)) or {}
    note(f"dialog title: {before.get('title')!r}")
    drawn = await shell.grab(icon) if icon else b""
    pressed = time.monotonic()
    await shell.key("a")

    async def redrawn() -> bool:
        return await shell.grab(icon) != drawn

    if icon and check(bool(await until(redrawn, 10)), "the icon in the top bar is redrawn"):
        note(f"top bar icon redrawn {since(pressed)} after the key")

    async def three() -> bool:
        found = await shell.window(DIALOG)
        return bool(found and "3 commands waiting" in found["title"])

    if check(bool(await until(three, 10)), "the A key answers a row (3 left in the title)"):
        note(f"title changed {since(pressed)} after the key")
    if icon and check(bool(await until(lambda: menu_count(3), 10)), "the tray's count follows (3)"):
        note(f"menu count changed {since(pressed)} after the key")
    await shell.key("Escape")
    for banners in ("false", "true"):  # do-not-disturb on and off again, as GNOME's switch does
        await xdesk.run(
            "gsettings", "set", "org.gnome.desktop.notifications", "show-banners", banners
        )
        await xdesk.settle(0.5)

    async def closed() -> bool:
        return await shell.window(DIALOG) is None

    check(bool(await until(closed, 5)), "Escape closes the dialog")


async def with_indicator(
    shell: Shell, process: asyncio.subprocess.Process, started_at: float, name: str
) -> None:
    icons = await until(shell.indicators, 30)
    if not check(bool(icons), "the icon is in GNOME's top bar"):
        return
    note(f"icon in the top bar {since(started_at)} after start")
    if check(bool(await until(lambda: menu_count(4), 30)), "the menu GNOME receives: 4 wait"):
        note(f"4 waiting {since(started_at)} after start")
    banner = await our_banner(shell, 30)
    if not check(banner is not None, "GNOME shows the app's banner"):
        return
    note(f"banner {banner['title']!r} {since(started_at)} after start")
    check(bool(ours(await shell.notifications())), "GNOME files it under “Hermes Tray”")
    icon = (await shell.indicators())[0]

    def drawn(image: QImage) -> None:
        crop = image.copy(icon["left"], icon["top"], icon["w"], icon["h"])
        check(
            xdesk.colour_in(crop, WAITING_ORANGE) is not None,
            f"the waiting icon with its count is drawn ({icon['w']}x{icon['h']} px button)",
        )

    if await open_from_banner(shell, banner, name, drawn) is None:
        return
    left = [n["title"] for n in ours(await shell.notifications())]
    note(f"GNOME's list while the dialog shows: {left}")
    await answer(shell, name, icon)

    # One left click: the extension opens the menu (Activate only on a double click).
    await shell.click(icon["x"], icon["y"])

    async def menu_open() -> list[dict[str, Any]] | None:
        found = await shell.indicators()
        return found[0]["items"] if found and found[0]["open"] else None

    items = await until(menu_open, 5)
    check(items is not None, "a single left click on the icon opens its menu")
    await xdesk.settle(0.5)
    await shell.screenshot(f"{name}-menu.png")
    await shell.key("Escape")
    await until(lambda: _closed_menu(shell), 5)
    await xdesk.settle(0.5)
    async with another_app(shell) as other:
        clicked = time.monotonic()
        await shell.click(icon["x"], icon["y"], times=2)
        again = await until(lambda: shell.window(DIALOG), 10)
        check(again is not None, "a double click on the icon opens the dialog")
        check(bool(await until(lambda: focused(shell), 3)), "... and GNOME focuses it")
        note(f"dialog focused {since(clicked)} after the clicks began")
        # Behind another app's window, then asked for again: it comes forward.
        await shell.click(other["x"] + other["w"] - 60, other["y"] + other["h"] - 40)
        check(not await until(lambda: focused(shell), 2), "a click on another app takes focus")
        await xdesk.settle(0.5)
        clicked = time.monotonic()
        await shell.click(icon["x"], icon["y"], times=2)
        check(
            bool(await until(lambda: focused(shell), 3)),
            "a double click brings the open dialog forward over the other app",
        )
        note(f"dialog focused {since(clicked)} after the clicks began")
        await xdesk.settle(3.0)  # past the app's own look at whether the dialog came forward
        await shell.screenshot(f"{name}-forward.png")
        said = [n["title"] for n in ours(await shell.notifications()) if SAY_WHERE in n["title"]]
        check(not said, f"no “{SAY_WHERE}” notice with the dialog in front: {said}")
        await shell.key("Escape")
    await until(lambda: _no_dialog(shell), 5)
    await until(lambda: _closed_menu(shell), 2)

    # Quit: a right click, then the menu's last entry.
    await shell.click(icon["x"], icon["y"], button=3)
    items = await until(menu_open, 5)
    quit_item = next((i for i in items or [] if i["label"] == "Quit Hermes Tray"), None)
    if not check(quit_item is not None, "a right click opens the menu, Quit in it"):
        return
    await shell.click(quit_item["x"], quit_item["y"])
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(process.returncode == 0, f"Quit from the menu ends the app (status {process.returncode})")
    check(bool(await until(lambda: _no_icon(shell), 10)), "the icon leaves the top bar")
    await withdrawn_at_quit(shell)


async def withdrawn_at_quit(shell: Shell) -> None:
    async def no_buttons_left() -> bool:
        return not any(n["actions"] for n in ours(await shell.notifications()))

    left = await until(no_buttons_left, 5)
    check(bool(left), "no approval of the app is left in GNOME's list (its buttons act on nothing)")
    note(f"left in GNOME's list: {[n['title'] for n in ours(await shell.notifications())]}")


@contextlib.asynccontextmanager
async def another_app(shell: Shell) -> AsyncIterator[dict[str, Any]]:
    """A window of another app (a bare Qt label), focused; its frame as the shell has it."""
    process = await xdesk.another_app()
    try:

        async def shown() -> dict[str, Any] | None:
            found = await shell.window(xdesk.OTHER_APP)
            return found if found and found["focus"] else None

        window = await until(shown, 15)
        check(window is not None, "another app's window comes, focused")
        yield window or {"x": 0, "y": 0, "w": 0, "h": 0}
    finally:
        process.kill()
        await process.wait()


async def focused(shell: Shell) -> bool:
    found = await shell.window(DIALOG)
    return bool(found and found["focus"])


async def _closed_menu(shell: Shell) -> bool:
    return not any(i["open"] for i in await shell.indicators())


async def _no_dialog(shell: Shell) -> bool:
    return await shell.window(DIALOG) is None


async def _no_icon(shell: Shell) -> bool:
    return not await shell.indicators()


async def without_indicator(
    shell: Shell, process: asyncio.subprocess.Process, started_at: float, name: str
) -> None:
    async def own_window() -> dict[str, Any] | None:
        return next((w for w in await shell.windows() if w["title"] == OWN_WINDOW), None)

    window = await until(own_window, 30)
    if not check(window is not None, "the tray's own window shows (no tray host)"):
        return
    note(f"own window {since(started_at)} after start")
    check(
        (window["app"], window["app_id"]) == ("Hermes Tray", ENTRY),
        f"GNOME ties the own window to the desktop entry: {window['app']!r} ({window['app_id']})",
    )

    async def notice() -> bool:
        return any(NO_TRAY in n["title"] for n in ours(await shell.notifications()))

    check(bool(await until(notice, 20)), "one notification says why (No system tray found)")
    async with another_app(shell):  # the person works in another app meanwhile
        banner = await our_banner(shell, 40, "approval")
        if not check(banner is not None, "GNOME shows the app's banner for the approvals"):
            return
        note(f"banner {banner['title']!r} {since(started_at)} after start")
        if await open_from_banner(shell, banner, name) is None:
            return
        await answer(shell, name, None)

    # Quit: the own window's last button, from the keyboard (Shift+Tab wraps to it).
    window = await own_window()
    if not check(window is not None, "the own window is still there"):
        return
    await shell.click(window["x"] + window["w"] // 2, window["y"] + 12)  # its title bar
    await xdesk.settle(0.5)
    await shell.shift_tab()
    await xdesk.settle(0.5)
    await shell.screenshot(f"{name}-quit-focused.png")
    await shell.key("space")
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 15)
    check(
        process.returncode == 0,
        f"Quit in the own window ends the app (status {process.returncode})",
    )
    await withdrawn_at_quit(shell)


if __name__ == "__main__":
    sys.exit(run(scene))
