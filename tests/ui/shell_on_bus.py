"""The whole tray shell on a stand-in gateway "g1", notifying through whatever notification
server a test put on its private bus (tests/ui/dbus_fakes)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from desktop.core.events import SessionChanged
from desktop.model.notify_policy import NotifySettings
from desktop.platform.native_notify import NativeNotifier
from desktop.ui.bridge import GatewayBridge
from desktop.ui.shell import TrayShell
from tests.model.builders import session
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import drain, poll_until


@contextlib.asynccontextmanager
async def shell_on_bus(
    qloop: Any, settings: NotifySettings, sessions: dict[str, str]
) -> AsyncIterator[tuple[TrayShell, Any]]:
    """``(shell, client)``, connected, with ``sessions`` (id -> title); all closed after."""
    clients: dict = {}
    bridge = GatewayBridge(make_factory(clients))
    shell = TrayShell(bridge, notify_settings=settings, on_quit=lambda: None)
    bridge.add_gateway(Endpoint("g1", "Local"))
    bridge.start(qloop, NativeNotifier("Hermes Tray"))
    await poll_until(lambda: clients["g1"].status.dialect)
    for sid, title in sessions.items():
        clients["g1"].emit(SessionChanged(session(sid, title)))
    try:
        yield shell, clients["g1"]
    finally:
        shell.dispose()
        await bridge.aclose()
        await drain()
        shell.deleteLater()
        bridge.deleteLater()
