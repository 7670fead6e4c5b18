"""Drive a real X desktop from a test: xdotool clicks, window lookup, screenshots.

Every external command runs as an asyncio subprocess so the qasync loop — and with it Qt's
painting and D-Bus traffic — keeps running while we wait for it. Screenshots use ImageMagick's
``import -window root`` (what a person sees: panel, notification bubbles and our windows).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from PySide6.QtGui import QColor, QGuiApplication, QImage

SNI = "org.kde.StatusNotifierItem"
BACKDROP = "gradient:#6f8aa6-#3e5570"


async def run(*argv: str, check: bool = True) -> str:
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if check and process.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({process.returncode}): {err.decode().strip()}")
    return out.decode()


async def settle(seconds: float = 0.6) -> None:
    """Let windows map, animate and paint before a screenshot or a click (loop keeps running)."""
    await asyncio.sleep(seconds)


def screenshot_dir() -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR", "artifacts/screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


async def start_demo(
    platform: str = "xcb", args: tuple[str, ...] = ("--demo",)
) -> asyncio.subprocess.Process:
    """The real app (``python -m desktop`` with ``args``) in demo mode as a process on this
    desktop, every Python warning an error; its stderr (the log) is piped for the test to read.
    With no gateway configured, no ``args`` runs the demo too."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-W", "error", "-m", "desktop", *args,
        env=dict(os.environ, QT_QPA_PLATFORM=platform),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


OTHER_APP = "Another app"  # the title of another_app's window
_OTHER_APP_CODE = f"""
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel("{OTHER_APP}")
label.setWindowTitle("{OTHER_APP}")
label.resize(900, 620)
label.show()
app.exec()
"""


async def another_app() -> asyncio.subprocess.Process:
    """Another app's window (a bare Qt label titled :data:`OTHER_APP`) on this desktop, to put
    in front of the tray's dialog as a person's other work would be."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", _OTHER_APP_CODE, stderr=asyncio.subprocess.DEVNULL
    )


def run_scene(scene: Path, **env: str) -> None:
    """Run one scene file's test on a desktop of its own (``run_desktop_tests.sh`` with ``env``
    choosing the desktop) and fail with its output unless it passed."""
    done = subprocess.run(
        ["bash", str(scene.parent / "run_desktop_tests.sh"), "-q", "-s", str(scene)],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    output = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output


async def backdrop() -> None:
    """A calm desktop behind the screenshots instead of Xvfb's black root window."""
    width, height = QGuiApplication.primaryScreen().size().toTuple()
    await run("display", "-window", "root", "-size", f"{width}x{height}", BACKDROP, check=False)


async def screenshot(name: str) -> Path:
    target = screenshot_dir() / name
    await run("import", "-window", "root", str(target))
    return target


async def wait_for(check: Callable[[], Awaitable[Any]], what: str, timeout: float = 20.0) -> Any:
    """Poll an async ``check`` (D-Bus, the screen) until it returns something truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (found := await check()):
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)
    return found


async def changed_box(before: Path, after: Path, top: int = 0) -> tuple[int, int, int, int]:
    """(x, y, w, h) of what changed below ``top`` between two screen captures (a menu that
    opened): fails when nothing larger than 50 by 50 pixels did."""
    width, height = QGuiApplication.primaryScreen().size().toTuple()
    below = f"{width}x{height - top}+0+{top}"
    box = await run(
        "convert", str(before), str(after), "-compose", "difference", "-composite",
        "-crop", below, "+repage", "-colorspace", "gray", "-threshold", "4%",
        "-format", "%@", "info:",
    )  # fmt: skip
    size, x, y = box.strip().split("+")
    w, h = (int(v) for v in size.split("x"))
    assert min(w, h) > 50, f"the menu did not appear (changed area {box.strip()})"
    return int(x), int(y) + top, w, h


async def find_window(*, classname: str = "", name: str = "", timeout: float = 10.0) -> str:
    """The newest visible window with that WM class or title (xdotool search --onlyvisible)."""
    args = ["--classname", classname] if classname else ["--name", name]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = (await run("xdotool", "search", "--onlyvisible", *args, check=False)).split()
        if found:
            return found[-1]
        if loop.time() > deadline:
            raise TimeoutError(f"no visible window {classname or name!r}")
        await asyncio.sleep(0.1)


async def geometry(window: str) -> tuple[int, int, int, int]:
    values = dict(
        line.split("=", 1)
        for line in (await run("xdotool", "getwindowgeometry", "--shell", window)).split()
    )
    return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])


async def click(x: int, y: int, button: int = 1) -> None:
    await run("xdotool", "mousemove", str(x), str(y))
    await settle(0.15)
    await run("xdotool", "click", str(button))


async def key(name: str) -> None:
    await run("xdotool", "key", name)


def find_colour(
    colour: str, region: tuple[int, int, int, int], tolerance: int = 40
) -> tuple[int, int] | None:
    """Centre of the pixels close to ``colour`` inside ``region`` of the screen (x, y, w, h)."""
    x0, y0, w, h = region
    image = QGuiApplication.primaryScreen().grabWindow(0, x0, y0, w, h).toImage()
    found = colour_in(image, colour, tolerance)
    return None if found is None else (x0 + found[0], y0 + found[1])


def colour_in(image: QImage, colour: str, tolerance: int = 40) -> tuple[int, int] | None:
    """Centre of the pixels close to ``colour`` in ``image`` (None for fewer than six)."""
    want = QColor(colour)
    hits = [
        (x, y)
        for y in range(image.height())
        for x in range(image.width())
        if _close(image.pixelColor(x, y), want, tolerance)
    ]
    if len(hits) < 6:
        return None
    return sum(x for x, _ in hits) // len(hits), sum(y for _, y in hits) // len(hits)


def _close(a: QColor, b: QColor, tolerance: int) -> bool:
    return (
        abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) <= tolerance
    )


@contextlib.asynccontextmanager
async def demo_tray(
    notify: Any = None, notifier: Any = None
) -> AsyncIterator[tuple[Any, Any, Any]]:
    """``(fake, bridge, shell)``: the tray, shown, on a fake dialect-B gateway "demo" (fast
    script), with ``notify`` settings and ``notifier``; everything closed after, in order.

    Imported here, not at the top: the helpers above need only Qt.
    """
    from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
    from desktop.settings.model import GatewayKind, Settings
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.settings_controller import client_factory_for
    from desktop.ui.shell import TrayShell
    from tests.gatewaymodel import FakeGateway
    from tests.waiting import drain

    fake = await FakeGateway("B", speed=0.05).start()
    bridge = GatewayBridge(client_factory_for(Settings))
    shell = TrayShell(bridge, notify_settings=notify, on_quit=lambda: None)
    token = TokenSource(TokenKind.INLINE, value=fake.token)
    bridge.add_gateway(GatewayEndpoint("demo", "Demo", GatewayKind.DEMO, fake.base_url, token))
    shell.show()
    bridge.start(asyncio.get_running_loop(), notifier)
    try:
        yield fake, bridge, shell
    finally:
        shell.dispose()
        await bridge.aclose()
        await fake.stop()
        await drain()
        shell.deleteLater()
        bridge.deleteLater()


@contextlib.asynccontextmanager
async def session_bus() -> AsyncIterator[Any]:
    """A dbus_fast connection to the session bus for one query; disconnected after.

    dbus_fast is imported here, not at the top: only the desktop tests need it.
    """
    from dbus_fast.aio import MessageBus

    bus = await MessageBus().connect()
    try:
        yield bus
    finally:
        bus.disconnect()
        await bus.wait_for_disconnect()


async def interface(bus: Any, service: str, path: str, name: str) -> Any:
    proxy = bus.get_proxy_object(service, path, await bus.introspect(service, path))
    return proxy.get_interface(name)


async def _watched_items(bus: Any) -> list[str]:
    watcher = "org.kde.StatusNotifierWatcher"
    proxy = await interface(bus, watcher, "/StatusNotifierWatcher", watcher)
    return list(await proxy.get_registered_status_notifier_items())


def item_address(item: str) -> tuple[str, str]:
    """(bus name, object path) of an item as a watcher lists it: ``"<bus name>/<path>"``
    (KDE's, xfce4-panel's), ``"<bus name>@/<path>"`` (GNOME's AppIndicator extension), or a bus
    name alone for the default path."""
    service, _, path = item.replace("@/", "/", 1).partition("/")
    return service, "/" + path if path else "/StatusNotifierItem"


async def item_menu(bus: Any, item: str) -> Any:
    """The ``com.canonical.dbusmenu`` interface of a tray item, as the panel reaches it.

    ``item`` is what the watcher lists (see :func:`item_address`).
    """
    service, path = item_address(item)
    sni = await interface(bus, service, path, SNI)
    return await interface(bus, service, await sni.get_menu(), "com.canonical.dbusmenu")


async def dbusmenu_labels() -> list[str]:
    """Every label of our tray menu as the panel receives it (com.canonical.dbusmenu)."""
    labels: list[str] = []
    async with session_bus() as bus:
        for item in await _watched_items(bus):
            menu = await item_menu(bus, item)
            _revision, layout = await menu.call_get_layout(0, -1, ["label"])
            labels.extend(label for _ident, label in _ids(layout))
    return labels


async def registered_items() -> list[str]:
    """The StatusNotifierItems the tray host knows ("<bus name>/<path>" or a bus name)."""
    async with session_bus() as bus:
        return await _watched_items(bus)


async def item_tooltips() -> list[str]:
    """Our tray item's tooltip as the panel receives it (the SNI ``ToolTip``: title, text)."""
    texts: list[str] = []
    async with session_bus() as bus:
        for item in await _watched_items(bus):
            sni = await interface(bus, *item_address(item), SNI)
            _icon, _pixmaps, title, text = await sni.get_tool_tip()
            texts.append(f"{title}\n{text}")
    return texts


async def click_menu_item(
    item: str, label: str, meanwhile: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Do what a tray host does when a person clicks ``label`` in ``item``'s menu: say the
    menu opens (AboutToShow), fetch its layout, and later send the click for the item's id.
    ``meanwhile`` runs while the menu is "open", e.g. to let the app's state change under it."""
    from dbus_fast import Variant

    async with session_bus() as bus:
        menu = await item_menu(bus, item)
        await menu.call_about_to_show(0)
        _revision, layout = await menu.call_get_layout(0, -1, ["label"])
        ids = {lab: ident for ident, lab in _ids(layout)}
        if meanwhile is not None:
            await meanwhile()
        await menu.call_event(ids[label], "clicked", Variant("i", 0), 0)


def _ids(node: list) -> list[tuple[int, str]]:
    """(id, label) of every labelled entry below ``node`` (a dbusmenu layout), depth first."""
    ident, props, children = node
    found = [(ident, props["label"].value)] if "label" in props else []
    for child in children:
        found.extend(_ids(child.value))
    return found


@contextlib.asynccontextmanager
async def notify_calls() -> AsyncIterator[list[tuple[str, str, int, str]]]:
    """Every ``Notify`` sent on the session bus while the block runs, as the bus carried it:
    ``(app_name, summary, urgency, desktop_entry)`` (-1 and "" when the hint is not given).
    """

    def notify(message: Any) -> tuple[str, str, int, str] | None:
        if message.member != "Notify":
            return None
        hints = message.body[6]
        urgency = hints["urgency"].value if "urgency" in hints else -1
        entry = hints["desktop-entry"].value if "desktop-entry" in hints else ""
        return message.body[0], message.body[3], urgency, entry

    async with bus_messages(
        ["type='method_call',interface='org.freedesktop.Notifications'"], notify
    ) as calls:
        yield calls


@contextlib.asynccontextmanager
async def bus_messages(rules: list[str], keep: Callable[[Any], Any]) -> AsyncIterator[list[Any]]:
    """``keep(message)`` of every message matching ``rules`` (D-Bus match rules) carried on the
    session bus while the block runs, None results left out. A D-Bus monitor
    (``BecomeMonitor``), so it sees what any client sends, not what a daemon chose to show.
    """
    from dbus_fast import Message, MessageType

    kept: list[Any] = []

    def seen(message: Message) -> bool:
        if message.message_type not in (MessageType.METHOD_CALL, MessageType.SIGNAL):
            return False  # replies (BecomeMonitor's own): dbus-fast's business
        if (found := keep(message)) is not None:
            kept.append(found)
        return True  # handled: a monitor never answers the calls it sees

    async with session_bus() as bus:
        bus.add_message_handler(seen)
        reply = await bus.call(
            Message(
                destination="org.freedesktop.DBus",
                path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus.Monitoring",
                member="BecomeMonitor",
                signature="asu",
                body=[rules, 0],
            )
        )
        if reply.message_type is MessageType.ERROR:
            raise RuntimeError(f"BecomeMonitor refused: {reply.body}")
        yield kept
