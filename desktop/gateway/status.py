"""The connection's observable state and the listener the UI implements (no transport)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from desktop.core.events import CoreEvent
from desktop.core.model import Dialect


class ConnectionState(enum.Enum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    HANDSHAKING = "handshaking"
    CONNECTED = "connected"
    BACKOFF = "backoff"
    FAILED = "failed"


@dataclass(frozen=True)
class ConnectionStatus:
    """What the tray shows about a gateway. ``error``: what failed, where, what to do."""

    state: ConnectionState
    dialect: Dialect | None = None
    version: str = ""
    attempt: int = 0
    error: str = ""


class GatewayListener(Protocol):
    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None: ...

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None: ...


@dataclass(frozen=True)
class ConnectionSettings:
    """Transport timings (seconds). Tests shrink them; the defaults suit a desktop."""

    open_timeout: float = 10.0
    handshake_timeout: float = 10.0  # socket open → gateway.ready handled
    # Idle: each ping wakes the tray once; 30 s still keeps a proxy's 60 s idle limit (nginx's
    # proxy_read_timeout) from closing a quiet connection. None: no keepalive at all.
    ping_interval: float | None = 30.0
    ping_timeout: float | None = 20.0
    # While approvals are open a hung gateway must be noticed within 10 s (interval + timeout).
    busy_ping_interval: float = 3.0
    busy_ping_timeout: float = 5.0
    close_timeout: float = 5.0
    version_probe_timeout: float = 3.0
