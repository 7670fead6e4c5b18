"""One end-to-end run on a real (virtual) desktop: tray host, notification daemon, clicks.

xfce4-panel hosts the StatusNotifierItem tray, xfce4-notifyd draws notifications with buttons,
the fake gateway plays a scripted agent. A person's clicks are xdotool clicks on real windows:

1. a single-command batch arrives -> a notification -> click "Approve" in xfce4-notifyd ->
   exactly one answer for exactly that request reaches the gateway;
2. another request -> the panel's tray menu (screenshot) -> a click on the tray icon opens the
   dialog -> click the row's approve button -> exactly one more answer.

Screenshots of the notification, the tray menu and the dialog go to artifacts/screenshots/.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.core.model import Choice
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.model.notify_policy import NotifySettings, never_high_risk
from desktop.model.snapshot import Link
from desktop.platform.native_notify import NativeNotifier
from desktop.settings.model import GatewayKind, Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.icons import icon_dir
from desktop.ui.settings_controller import client_factory_for
from desktop.ui.shell import TrayShell
from tests.desktop import xdesk
from tests.gatewaymodel import FakeGateway
from tests.ui.approvals.factory import row_card
from tests.waiting import drain, holds, poll_until

pytestmark = pytest.mark.desktop

NOTIFY = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.2)
PANEL_STRIP = (0, 0, 1280, 30)
WAITING_ORANGE = "#f08a00"
# An untitled session is named after its folder (plus a short id): markup, an ampersand, an
# underscore and a right-to-left override, short enough that the name keeps all of it.
HOSTILE_DIR = "/tmp/R&D_x <b> \u202egnp"
# The underscore reaches the panel as the look-alike U+02CD (see plain_text.exported_label).
HOSTILE_SHOWN = "R&D\u02cdx <b> \u27e8U+202E\u27e9gnp"


def host_shows(label: str) -> str:
    """What a dbusmenu host draws for a label: ``__`` is ``_``, ``_x`` is a mnemonic on x."""
    out, i = [], 0
    while i < len(label):
        if label[i] == "_" and i + 1 < len(label):
            out.append(label[i + 1])
            i += 2
        else:
            out.append(label[i])
            i += 1
    return "".join(out)


def answers(fake: FakeGateway) -> list[dict]:
    return [
        frame
        for record in fake.connections
        for frame in record.received
        if isinstance(frame, dict)
        and str(frame.get("id", "")).startswith("srq-")
        and "result" in frame
    ]


async def tray_icon_position() -> tuple[int, int]:
    """Where the panel drew our icon: SNI gives no geometry (stack.md §3.3), so look for it."""
    found = await poll_until(lambda: xdesk.find_colour(WAITING_ORANGE, PANEL_STRIP), timeout=10)
    return found


def test_approve_from_notification_then_from_dialog(qapp, qloop, arun):
    assert QSystemTrayIcon.isSystemTrayAvailable()
    qapp.setQuitOnLastWindowClosed(False)  # as desktop.app does: closing a window must not quit
    try:
        arun(scenario(), timeout=90)  # one coroutine: see tests/ui/test_bridge_gateway.py
    finally:
        qapp.setQuitOnLastWindowClosed(True)


async def scenario() -> None:
    fake = await FakeGateway("B", speed=0.05).start()
    bridge = GatewayBridge(client_factory_for(Settings))
    # The fake's commands are all rm -rf (high risk: Review only in a notification); this
    # test is about the click path, so the risk check calls nothing high here.
    shell = TrayShell(
        bridge, notify_settings=NOTIFY, on_quit=lambda: None, high_risk=never_high_risk
    )
    bridge.add_gateway(
        GatewayEndpoint(
            "demo",
            "Demo gateway",
            GatewayKind.DEMO,
            url=fake.base_url,
            token=TokenSource(TokenKind.INLINE, value=fake.token),
        )
    )
    notifier = NativeNotifier("Hermes Tray", icon_dir() / "hermes-tray.svg")
    shell.show()
    bridge.start(asyncio.get_running_loop(), notifier)
    try:
        await holds(
            lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
        )
        assert notifier.server == ""  # started with the first notification, not at idle
        await xdesk.settle(0.5)
        await xdesk.screenshot("e2e-0-panel-idle.png")

        # 1. Approve from the notification.
        bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder s1")
        await poll_until(lambda: shell.notifications.last_plan is not None)
        plan = shell.notifications.last_plan
        await poll_until(lambda: notifier.is_shown("demo", plan.batch_id))
        window = await xdesk.find_window(classname="xfce4-notifyd")
        await xdesk.settle(1.0)  # xfce4-notifyd fades in
        await xdesk.screenshot("e2e-1-notification.png")
        x, y, w, h = await xdesk.geometry(window)
        [first] = fake.requests
        # Buttons Approve | Deny | Review share the bottom row of the bubble.
        await xdesk.click(x + round(w * 0.19), y + h - 32)
        await poll_until(lambda: first.outcome is not None)
        assert first.outcome.approved
        assert first.outcome.choice == "once"
        await fake.wait_for_idle(first.session.sid)
        assert len(answers(fake)) == 1

        # 2. The tray menu, then the dialog from a click on the tray icon.
        bridge.new_task("demo", HOSTILE_DIR, "[[scenario:todo]] Work through the plan")
        await poll_until(lambda: len(fake.requests) == 2 and bridge.snapshot.waiting_count() == 1)
        second = fake.requests[1]
        icon_x, icon_y = await tray_icon_position()
        # What the panel receives is literal text: no markup, no mnemonic, bidi revealed.
        await poll_until(
            lambda: shell.tray.menu.findChild(QMenu, f"session:demo:{second.session.sid}")
        )
        labels = [host_shows(label) for label in await xdesk.dbusmenu_labels()]
        # the name first shown (folder, short id), then any title learnt after it
        name = re.escape(HOSTILE_SHOWN) + r" · session \S{1,6}( · .+)?"
        named = re.compile(name + " — waiting on you")
        assert any(named.fullmatch(label) for label in labels), "\n".join(labels)
        await xdesk.settle(0.5)  # the notification for this batch is up too; let it land
        await xdesk.click(icon_x, icon_y, button=3)  # the panel draws the menu (dbusmenu)
        await xdesk.settle(1.0)
        # Keyboard into the waiting session's submenu, listed first (the most urgent):
        # Reconnect, R&D… -> Right.
        for name in ("Down", "Down", "Right"):
            await xdesk.key(name)
            await xdesk.settle(0.2)
        await xdesk.settle(0.6)
        await xdesk.screenshot("e2e-2-tray-menu.png")
        await xdesk.key("Escape")
        await xdesk.key("Escape")
        await xdesk.settle(0.3)
        await xdesk.click(icon_x, icon_y)  # left click: something waits -> the dialog
        await poll_until(shell.dialog.isVisible)
        await xdesk.settle(1.0)
        await xdesk.screenshot("e2e-3-dialog.png")
        key = bridge.snapshot.gateway("demo").waiting[0].key
        card = row_card(shell.dialog, "demo", key)
        assert card is not None
        button = card.buttons[Choice.ONCE]
        centre = button.mapToGlobal(button.rect().center())
        await xdesk.click(centre.x(), centre.y())
        await poll_until(lambda: second.outcome is not None)
        assert second.outcome.approved
        assert second.outcome.choice == "once"
        await fake.wait_for_idle(second.session.sid)
        assert len(answers(fake)) == 2
        assert fake.late_answers == []
    finally:
        shell.dispose()
        await bridge.aclose()
        await fake.stop()
        await drain()
        shell.deleteLater()
        bridge.deleteLater()


def test_icon_sheet_for_review(qapp):
    """Every state icon at panel sizes, with and without a count, for a person to look at."""
    from PySide6.QtGui import QColor, QPainter, QPixmap

    from desktop.ui import icons
    from tests.model.builders import ICON_NAMES

    sizes = (16, 22, 24, 32, 64)
    sheet = QPixmap(len(ICON_NAMES) * 190, 90)
    sheet.fill(QColor("#f2f1f0"))
    painter = QPainter(sheet)
    try:
        for column, name in enumerate(ICON_NAMES):
            x = column * 190 + 4
            for size in sizes:
                count = 3 if name == "waiting" else 0
                painter.drawPixmap(x, 4, icons.render_pixmap(name, size, count))
                x += size + 4
            painter.drawText(column * 190 + 4, 84, name)
    finally:
        painter.end()
    target = xdesk.screenshot_dir() / "e2e-4-icons.png"
    assert sheet.save(str(target))


def test_the_app_runs_the_demo_and_quits_from_the_tray_menu(qloop, arun):
    """``hermes-tray --demo`` as a real process: its item appears in the panel, and "Quit"
    clicked in the host's menu ends it with status 0 (through the asyncio.Event, cleanly)."""
    arun(app_round_trip(), timeout=90)


async def app_round_trip() -> None:
    import os
    import sys

    before = set(await xdesk.registered_items())
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-W",
        "error",
        "-m",
        "desktop",
        "--demo",
        env=dict(os.environ, QT_QPA_PLATFORM="xcb"),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        new_items: list[str] = []

        async def appeared() -> bool:
            new_items[:] = [i for i in await xdesk.registered_items() if i not in before]
            return bool(new_items)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not await appeared():
            assert loop.time() < deadline, "the app's tray item never appeared"
            await asyncio.sleep(0.2)

        async def demo_batch_arrives() -> None:
            # The panel "shows" the menu while the demo's first batch arrives and the app's
            # state changes under it: the click must still reach the item the panel shows.
            await tray_icon_position()
            await xdesk.settle(1.0)  # several rebuild delays: any rebuild would have happened
            await xdesk.screenshot("e2e-5-app-demo.png")

        await xdesk.click_menu_item(new_items[0], "Quit Hermes Tray", demo_batch_arrives)
        _out, err = await asyncio.wait_for(process.communicate(), 20)
        log = err.decode()
        assert process.returncode == 0, log[-3000:]
        assert "quitting" in log
        assert "Traceback" not in log
        assert "gateway demo: disconnected" in log
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await drain()
