"""The app as desktop.app wires it, around a real fake gateway on 127.0.0.1, for UI tests.

Bridge + real GatewayClient + TrayShell (tray, menus, dialog, notifications, time-boxed YOLO),
with an optional journal and settings controller, an injected monotonic clock for time-boxes
and an injected opener for "Open journal". Build it inside the test's coroutine (one ``arun``:
see tests/ui/test_bridge_gateway.py for why) and ``await app.close()`` at the end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox

from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.settings.model import GatewayKind, Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import client_factory_for
from desktop.ui.shell import TrayShell
from tests.gatewaymodel import FakeGateway
from tests.waiting import drain, holds, poll_until

QUIET = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)
GID = "demo"


def menu_actions(menu: QMenu) -> list[QAction]:
    """Every action in ``menu`` and its submenus as built now (not the ones awaiting deletion)."""
    found = []
    for action in menu.actions():
        found.append(action)
        sub = action.menu()
        if isinstance(sub, QMenu):
            found.extend(menu_actions(sub))
    return found


def menu_action(menu: QMenu, name: str) -> QAction:
    for action in menu_actions(menu):
        if action.objectName() == name:
            return action
    raise AssertionError(f"no action {name!r} in {[a.objectName() for a in menu_actions(menu)]}")


def confirm_box() -> QMessageBox | None:
    """The tray's open "are you sure?" box, if one shows."""
    shown = [w for w in QApplication.topLevelWidgets() if w.objectName() == "confirm-box"]
    return next((w for w in shown if isinstance(w, QMessageBox) and w.isVisible()), None)


def submenu(menu: QMenu, name: str) -> QMenu:
    """The submenu ``name`` as built now (``findChild`` may return one awaiting deletion)."""
    for action in menu_actions(menu):
        sub = action.menu()
        if isinstance(sub, QMenu) and sub.objectName() == name:
            return sub
    raise AssertionError(f"no submenu {name!r}")


class ManualClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def endpoint(fake: FakeGateway, gateway_id: str = GID) -> GatewayEndpoint:
    return GatewayEndpoint(
        gateway_id,
        "Demo",
        GatewayKind.DEMO,
        url=fake.base_url,
        token=TokenSource(TokenKind.INLINE, value=fake.token),
    )


class WiredApp:
    def __init__(
        self,
        fake: FakeGateway,
        *,
        client_factory: Callable[[Any, Any], Any] | None = None,
        journal: Any = None,
        settings: Any = None,
        opened: list[Any] | None = None,
        bridge: GatewayBridge | None = None,
        add_gateway: bool = True,
    ) -> None:
        self.fake = fake
        self.clock = ManualClock()
        self.bridge = bridge or GatewayBridge(client_factory or client_factory_for(Settings))
        self.quit = asyncio.Event()
        self.opened = opened if opened is not None else []
        self.shell = TrayShell(
            self.bridge,
            notify_settings=QUIET,
            on_quit=self.quit.set,
            clock=self.clock,
        )
        self.shell.attach(
            settings=settings,
            journal=journal,
            open_url=lambda url: self.opened.append(url) or True,
        )
        self.notices: list[Any] = []
        self.bridge.notice_received.connect(self.notices.append)
        self.shell.yolo.notice_raised.connect(self.notices.append)
        if settings is not None:
            settings.notice_raised.connect(self.notices.append)
        self.checks: list[tuple[str, str, Any]] = []
        self.bridge.yolo_checked.connect(lambda g, s, r: self.checks.append((g, s, r)))
        if add_gateway:
            self.bridge.add_gateway(endpoint(fake))
        self.bridge.start(asyncio.get_running_loop())

    # -- reading the state -------------------------------------------------------------------
    def view(self, gateway_id: str = GID) -> Any:
        return self.bridge.snapshot.gateway(gateway_id)

    def session(self, sid: str, gateway_id: str = GID) -> Any:
        view = self.view(gateway_id)
        return view.session(sid) if view else None

    async def connected(self, gateway_id: str = GID) -> None:
        await holds(
            lambda: self.view(gateway_id) and self.view(gateway_id).link is Link.UP,
            self.bridge.snapshot_changed,
        )

    async def new_session(self, prompt: str) -> str:
        """Start a task through the bridge; return its session id once the tray knows it."""
        before = {s.session_id for s in self.view().sessions}
        self.bridge.new_task(GID, "/tmp", prompt)
        found = await holds(
            lambda: [s.session_id for s in self.view().sessions if s.session_id not in before],
            self.bridge.snapshot_changed,
        )
        return found[0]

    async def turn_over(self, sid: str) -> None:
        """The gateway ran the session's turn to its end, and the tray shows it idle.

        Why not only ``not running``: a new session is idle before its first turn starts.
        """

        def on_the_wire() -> bool:
            session = self.fake.session(sid)
            replied = any(m["role"] == "assistant" for m in session.messages)
            return replied and session.turn_task is None

        await poll_until(
            on_the_wire, what="the fake gateway ended the turn"
        )  # nothing announces it
        await holds(lambda: not self.session(sid).running, self.bridge.snapshot_changed)

    @property
    def problems(self) -> list[Any]:
        """Notices worth a person's attention (warnings and errors), in order."""
        return [n for n in self.notices if n.level != "info"]

    def config_sets(self, key: str = "yolo") -> list[Any]:
        """The ``value`` of every config.set the gateway received for ``key``, in order."""
        return [
            frame["params"].get("value")
            for record in self.fake.connections
            for frame in record.requests("config.set")
            if frame["params"].get("key") == key
        ]

    def action(self, name: str) -> QAction:
        """The tray menu's action ``name``, from a fresh rebuild (what opening it would show)."""
        self.shell.tray.rebuild_menu()
        return menu_action(self.shell.tray.menu, name)

    async def close(self) -> None:
        self.shell.dispose()
        await self.bridge.aclose()
        await self.fake.stop()
        await drain()
        self.shell.deleteLater()
        self.bridge.deleteLater()
