"""The app-level store behind the bridge: what every gateway reported, folded into one snapshot.

Why Qt-free and apart from the bridge: folding core events and connection statuses into state is
plain logic (which rows are open, which dialect a gateway speaks, what a session is called) and
is tested without a loop; the bridge only forwards events here and re-emits them as signals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CoreEvent,
    HandshakeCompleted,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import Approval, ApprovalPhase, SessionState
from desktop.gateway.status import ConnectionState
from desktop.ui.snapshot import AppSnapshot, GatewayView, Link, session_title

# A ConnectionState -> how the tray shows it.
_LINK_BY_STATE = {
    ConnectionState.DISCONNECTED: Link.OFFLINE,
    ConnectionState.BACKOFF: Link.OFFLINE,
    ConnectionState.CONNECTING: Link.CONNECTING,
    ConnectionState.HANDSHAKING: Link.CONNECTING,
    ConnectionState.CONNECTED: Link.UP,
    ConnectionState.FAILED: Link.FAILED,
}


@dataclass(slots=True)
class _Gateway:
    name: str
    status: Any = None  # desktop.gateway.client.ConnectionStatus
    dialect: Any = None
    sessions: dict[str, SessionState] = field(default_factory=dict)
    approvals: dict[str, Approval] = field(default_factory=dict)  # open rows, arrival order


class AppState:
    """Gateways in configuration order, each with its status, sessions and open approvals."""

    def __init__(self) -> None:
        self._gateways: dict[str, _Gateway] = {}

    def add_gateway(self, gateway_id: str, name: str) -> None:
        self._gateways.setdefault(gateway_id, _Gateway(name))

    def remove_gateway(self, gateway_id: str) -> None:
        self._gateways.pop(gateway_id, None)

    def has_gateway(self, gateway_id: str) -> bool:
        return gateway_id in self._gateways

    def approval(self, gateway_id: str, key: str) -> Approval | None:
        """The open row ``key`` (resolved rows are dropped, see :meth:`apply`)."""
        gateway = self._gateways.get(gateway_id)
        return gateway.approvals.get(key) if gateway else None

    def session(self, gateway_id: str, session_id: str) -> SessionState | None:
        gateway = self._gateways.get(gateway_id)
        return gateway.sessions.get(session_id) if gateway else None

    def gateway_name(self, gateway_id: str) -> str:
        gateway = self._gateways.get(gateway_id)
        return gateway.name if gateway else gateway_id

    def session_title(self, gateway_id: str, session_id: str) -> str:
        gateway = self._gateways.get(gateway_id)
        session = gateway.sessions.get(session_id) if gateway else None
        return session_title(session, fallback=f"session {session_id[:8]}")

    def set_status(self, gateway_id: str, status: Any) -> None:
        self._gateways[gateway_id].status = status
        if getattr(status, "dialect", None) is not None:
            self._gateways[gateway_id].dialect = status.dialect

    def apply(self, gateway_id: str, event: CoreEvent) -> None:
        """Fold one core event in. Unknown kinds are ignored (they carry nothing shown)."""
        gateway = self._gateways[gateway_id]
        if isinstance(event, HandshakeCompleted):
            gateway.dialect = event.dialect
        elif isinstance(event, SessionChanged):
            gateway.sessions[event.session.session_id] = event.session
        elif isinstance(event, SessionRemoved):
            gateway.sessions.pop(event.session_id, None)
        elif isinstance(event, ApprovalRequested | ApprovalChanged):
            approval = event.approval
            if approval.phase is ApprovalPhase.RESOLVED:
                gateway.approvals.pop(approval.key, None)
            else:
                gateway.approvals[approval.key] = approval

    def snapshot(self) -> AppSnapshot:
        return AppSnapshot(tuple(self._view(gid, g) for gid, g in self._gateways.items()))

    def _view(self, gateway_id: str, gateway: _Gateway) -> GatewayView:
        status = gateway.status
        versions = [s.version for s in gateway.sessions.values() if s.version]
        return GatewayView(
            gateway_id=gateway_id,
            name=gateway.name,
            link=_LINK_BY_STATE.get(status.state, Link.OFFLINE)
            if status is not None
            else Link.OFFLINE,
            state_name=_state_words(status),
            dialect=gateway.dialect,
            version=(getattr(status, "version", "") or (versions[0] if versions else "")),
            error=getattr(status, "error", "") or "",
            attempt=getattr(status, "attempt", 0) or 0,
            sessions=tuple(gateway.sessions.values()),
            approvals=tuple(gateway.approvals.values()),
        )


def _state_words(status: Any) -> str:
    """'connected', 'reconnecting (attempt 3)', 'failed' … for the menu header."""
    if status is None:
        return "disconnected"
    name = status.state.name
    attempt = getattr(status, "attempt", 0) or 0
    if name == "BACKOFF":
        return f"reconnecting (attempt {attempt + 1})" if attempt else "reconnecting"
    return name.lower()
