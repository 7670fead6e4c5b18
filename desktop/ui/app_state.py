"""The app-level store behind the bridge: what every gateway reported, folded into one snapshot.

Why Qt-free and apart from the bridge: folding core events and connection statuses into state is
plain logic (which rows are open, which dialect a gateway speaks, what a session is called) and
is tested without a loop; the bridge only forwards events here and re-emits them as signals.

Why cached: the bridge asks for a snapshot after every core event, and a 5,000 frames/s delta
flood or a burst of 10,000 approvals made rebuilding every gateway's tuples the app's main cost.
So each gateway keeps its last :class:`GatewayView` until something it shows changes, the
snapshot is rebuilt only when a view was dropped, and the rows that need a person are kept per
event (a dict in arrival order) instead of being filtered out of every open row on each read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CoreEvent,
    HandshakeCompleted,
    PromptAsked,
    PromptEnded,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import Approval, ApprovalPhase, Prompt, SessionState
from desktop.gateway.status import ConnectionState
from desktop.model.session_names import SessionNames
from desktop.ui.snapshot import AppSnapshot, GatewayView, Link, session_title

_NEEDS_PERSON = (ApprovalPhase.WAITING, ApprovalPhase.STALE)

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
    waiting: dict[str, Approval] = field(default_factory=dict)  # those needing a person
    prompts: dict[str, Prompt] = field(default_factory=dict)  # open prompts, arrival order
    waiting_in_order: bool = True  # False once a row came back to waiting (re-sort on read)
    view: GatewayView | None = None  # the last view, until something it shows changes

    def put(self, approval: Approval) -> None:
        """Fold one approval in (resolved rows leave)."""
        key = approval.key
        if approval.phase is ApprovalPhase.RESOLVED:
            self.approvals.pop(key, None)
            self.waiting.pop(key, None)
            return
        self.approvals[key] = approval
        if approval.phase in _NEEDS_PERSON:
            if key not in self.waiting and next(reversed(self.approvals)) != key:
                self.waiting_in_order = False  # an older row is waiting again
            self.waiting[key] = approval
        else:
            self.waiting.pop(key, None)

    def waiting_rows(self) -> tuple[Approval, ...]:
        if not self.waiting_in_order:
            order = {key: i for i, key in enumerate(self.approvals)}
            ordered = sorted(self.waiting.items(), key=lambda item: order[item[0]])
            self.waiting = dict(ordered)
            self.waiting_in_order = True
        return tuple(self.waiting.values())


class AppState:
    """Gateways in configuration order, each with its status, sessions and open approvals."""

    def __init__(self) -> None:
        self._gateways: dict[str, _Gateway] = {}
        self._snapshot: AppSnapshot | None = None
        # One registry for the whole app, so the menu, the dialog, a notification and the
        # journal all read the same stable, unique name from the session's ``title``.
        self._names = SessionNames()

    def add_gateway(self, gateway_id: str, name: str) -> None:
        if gateway_id not in self._gateways:
            self._gateways[gateway_id] = _Gateway(name)
            self._snapshot = None

    def remove_gateway(self, gateway_id: str) -> None:
        if self._gateways.pop(gateway_id, None) is not None:
            self._snapshot = None

    def has_gateway(self, gateway_id: str) -> bool:
        return gateway_id in self._gateways

    def approval(self, gateway_id: str, key: str) -> Approval | None:
        """The open row ``key`` (resolved rows are dropped, see :meth:`apply`)."""
        gateway = self._gateways.get(gateway_id)
        return gateway.approvals.get(key) if gateway else None

    def prompt(self, gateway_id: str, key: str) -> Prompt | None:
        """The open prompt ``key`` (ended prompts are dropped)."""
        gateway = self._gateways.get(gateway_id)
        return gateway.prompts.get(key) if gateway else None

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
        gateway = self._gateways[gateway_id]
        gateway.status = status
        if getattr(status, "dialect", None) is not None:
            gateway.dialect = status.dialect
        self._changed(gateway)

    def apply(self, gateway_id: str, event: CoreEvent) -> None:
        """Fold one core event in. Unknown kinds are ignored (they carry nothing shown)."""
        gateway = self._gateways[gateway_id]
        if isinstance(event, HandshakeCompleted):
            gateway.dialect = event.dialect
        elif isinstance(event, SessionChanged):
            session = event.session
            named = self._names.text(gateway_id, session)
            gateway.sessions[session.session_id] = (
                session if named == session.title else replace(session, title=named)
            )
        elif isinstance(event, SessionRemoved):
            gateway.sessions.pop(event.session_id, None)
        elif isinstance(event, ApprovalRequested | ApprovalChanged):
            gateway.put(event.approval)
        elif isinstance(event, PromptAsked):
            gateway.prompts[event.prompt.key] = event.prompt
        elif isinstance(event, PromptEnded):
            gateway.prompts.pop(event.prompt.key, None)
        else:
            return  # nothing shown changed: the snapshot stays as it is
        self._changed(gateway)

    def snapshot(self) -> AppSnapshot:
        """The current snapshot; the same object until something shown changes."""
        if self._snapshot is None:
            views = []
            for gateway_id, gateway in self._gateways.items():
                if gateway.view is None:
                    gateway.view = self._view(gateway_id, gateway)
                views.append(gateway.view)
            self._snapshot = AppSnapshot(tuple(views))
        return self._snapshot

    def _changed(self, gateway: _Gateway) -> None:
        gateway.view = None
        self._snapshot = None

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
            prompts=tuple(gateway.prompts.values()),
            known_waiting=gateway.waiting_rows(),
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
