"""The app's one store, because the tray, the dialog, the notifications and the journal agree.

Each gateway's :class:`GatewayView` is cached until something it shows changes (rebuilding them
was the main cost under a 5,000 frames/s flood).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CommandRan,
    CoreEvent,
    HandshakeCompleted,
    NoticeReceived,
    PromptAsked,
    PromptEnded,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import OPEN_ACTIONS, Action, Approval, Dialect, Prompt, SessionState
from desktop.gateway.status import ConnectionState, ConnectionStatus
from desktop.model.bridge_events import (
    ApprovalUpdate,
    CommandReport,
    Notice,
    PromptUpdate,
    RowsForgotten,
    SessionGone,
    SessionUpdate,
)
from desktop.model.session_names import SessionNames
from desktop.model.snapshot import AppSnapshot, GatewayView, Link, session_title

# What subscribers hear, in this order for one event: the change, then the new snapshot.
StoreChange = (
    ApprovalUpdate
    | CommandReport
    | PromptUpdate
    | SessionUpdate
    | SessionGone
    | Notice
    | RowsForgotten
    | AppSnapshot
)
Subscriber = Callable[[StoreChange], None]

# Resolved rows kept per gateway until released: 200 outlast any dialog's grace period.
KEPT_RESOLVED = 200

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
    status: ConnectionStatus | None = None
    dialect: Dialect | None = None
    sessions: dict[str, SessionState] = field(default_factory=dict)
    approvals: dict[str, Approval] = field(default_factory=dict)  # open rows, arrival order
    waiting: dict[str, Approval] = field(default_factory=dict)  # those needing a person
    resolved: dict[str, Approval] = field(default_factory=dict)  # kept until released, oldest first
    prompts: dict[str, Prompt] = field(default_factory=dict)  # open prompts, arrival order
    waiting_in_order: bool = True  # False once a row came back to waiting (re-sort on read)
    view: GatewayView | None = None  # the last view, until something it shows changes

    def put(self, approval: Approval) -> tuple[str, ...]:
        """Fold one approval in; resolved rows move to ``resolved``. Returns the keys dropped."""
        key = approval.key
        if approval.action is Action.DONE:
            self.approvals.pop(key, None)
            self.waiting.pop(key, None)
            self.resolved.pop(key, None)  # a late outcome: the newest again
            self.resolved[key] = approval
            dropped = []
            while len(self.resolved) > KEPT_RESOLVED:
                oldest = next(iter(self.resolved))
                del self.resolved[oldest]
                dropped.append(oldest)
            return tuple(dropped)
        self.resolved.pop(key, None)
        self.approvals[key] = approval
        if approval.action in OPEN_ACTIONS:
            if key not in self.waiting and next(reversed(self.approvals)) != key:
                self.waiting_in_order = False  # an older row is waiting again
            self.waiting[key] = approval
        else:
            self.waiting.pop(key, None)
        return ()

    def waiting_rows(self) -> tuple[Approval, ...]:
        if not self.waiting_in_order:
            order = {key: i for i, key in enumerate(self.approvals)}
            ordered = sorted(self.waiting.items(), key=lambda item: order[item[0]])
            self.waiting = dict(ordered)
            self.waiting_in_order = True
        return tuple(self.waiting.values())


class AppState:
    def __init__(self) -> None:
        self._gateways: dict[str, _Gateway] = {}
        self._snapshot: AppSnapshot | None = None
        self._subscribers: list[Subscriber] = []
        self._announced: AppSnapshot | None = None  # the snapshot subscribers last heard
        # One registry: every surface reads the same stable name from the session's ``title``.
        self._names = SessionNames()

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def add_gateway(
        self, gateway_id: str, name: str, status: ConnectionStatus | None = None
    ) -> None:
        if gateway_id not in self._gateways:
            self._gateways[gateway_id] = _Gateway(name)
            self._snapshot = None
        if status is not None:
            self._fold_status(self._gateways[gateway_id], status)
        self._announce_snapshot()

    def remove_gateway(self, gateway_id: str) -> None:
        if self._gateways.pop(gateway_id, None) is not None:
            self._snapshot = None
            self._announce_snapshot()

    def approval(self, gateway_id: str, key: str) -> Approval | None:
        """The open row ``key``, or None once it resolved."""
        gateway = self._gateways.get(gateway_id)
        return gateway.approvals.get(key) if gateway else None

    def row(self, gateway_id: str, key: str) -> Approval | None:
        """The row ``key``, open or resolved and not yet released (what the dialog shows)."""
        gateway = self._gateways.get(gateway_id)
        if gateway is None:
            return None
        found = gateway.approvals.get(key)
        return found if found is not None else gateway.resolved.get(key)

    def release_rows(self, gateway_id: str, keys: Iterable[str]) -> None:
        """The reader no longer shows these rows: forget the resolved ones (open rows stay)."""
        gateway = self._gateways.get(gateway_id)
        if gateway is not None:
            for key in keys:
                gateway.resolved.pop(key, None)

    def session(self, gateway_id: str, session_id: str) -> SessionState | None:
        gateway = self._gateways.get(gateway_id)
        return gateway.sessions.get(session_id) if gateway else None

    def gateway_name(self, gateway_id: str) -> str:
        gateway = self._gateways.get(gateway_id)
        return gateway.name if gateway else gateway_id

    def session_title(self, gateway_id: str, session_id: str) -> str:
        return session_title(self.session(gateway_id, session_id), session_id)

    def _announced_under(self, gateway_id: str, gateway: _Gateway, session_id: str) -> None:
        """A row or a question is announced under the session's name: the name is kept."""
        session = gateway.sessions.get(session_id)  # its title holds the name already
        if session is None:  # not listed yet: announced as "session 9cbd2d", which stays
            session = SessionState(session_id)
            self._names.name(gateway_id, session)
        self._names.pin(gateway_id, session)

    def set_status(self, gateway_id: str, status: ConnectionStatus) -> None:
        self._fold_status(self._gateways[gateway_id], status)
        self._announce_snapshot()

    def _fold_status(self, gateway: _Gateway, status: ConnectionStatus) -> None:
        gateway.status = status
        if status.dialect is not None:
            gateway.dialect = status.dialect
        self._changed(gateway)

    def apply(self, gateway_id: str, event: CoreEvent) -> None:
        gateway = self._gateways[gateway_id]
        change: StoreChange | None = None
        if isinstance(event, HandshakeCompleted):
            gateway.dialect = event.dialect
        elif isinstance(event, SessionChanged):
            session = event.session
            named = self._names.text(gateway_id, session)
            gateway.sessions[session.session_id] = (
                session if named == session.title else replace(session, title=named)
            )
            change = SessionUpdate(gateway_id, event.session)
        elif isinstance(event, SessionRemoved):
            gateway.sessions.pop(event.session_id, None)
            change = SessionGone(gateway_id, event)
        elif isinstance(event, ApprovalRequested | ApprovalChanged):
            self._announced_under(gateway_id, gateway, event.approval.session_id)
            dropped = gateway.put(event.approval)
            if dropped:
                self._announce(RowsForgotten(gateway_id, dropped))
            change = ApprovalUpdate(
                gateway_id,
                gateway.name,
                event.approval,
                self.session_title(gateway_id, event.approval.session_id),
                arrived=isinstance(event, ApprovalRequested),
            )
        elif isinstance(event, NoticeReceived):
            where = gateway.name
            if event.session_id:
                where = f"{self.session_title(gateway_id, event.session_id)} on {gateway.name}"
            self._announce(Notice(event.level, event.text, where))
            return  # nothing shown changed: the snapshot stays as it is
        elif isinstance(event, CommandRan):
            ran_in = gateway.sessions.get(event.session_id)
            self._announce(
                CommandReport(
                    gateway_id,
                    gateway.name,
                    self.session_title(gateway_id, event.session_id),
                    event,
                    ran_in is not None and ran_in.yolo.effective,
                )
            )
            return
        elif isinstance(event, PromptAsked | PromptEnded):
            if isinstance(event, PromptAsked):
                self._announced_under(gateway_id, gateway, event.prompt.session_id)
                gateway.prompts[event.prompt.key] = event.prompt
            else:
                gateway.prompts.pop(event.prompt.key, None)
            change = PromptUpdate(
                gateway_id,
                gateway.name,
                event.prompt,
                self.session_title(gateway_id, event.prompt.session_id),
                event.reason if isinstance(event, PromptEnded) else "",
            )
        else:
            return
        self._changed(gateway)
        if change is not None:
            self._announce(change)
        self._announce_snapshot()

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

    def _announce(self, change: StoreChange) -> None:
        for subscriber in self._subscribers:
            subscriber(change)

    def _announce_snapshot(self) -> None:
        if not self._subscribers:
            return
        snapshot = self.snapshot()
        if snapshot is not self._announced:
            self._announced = snapshot
            self._announce(snapshot)

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
            version=(status.version if status else "") or (versions[0] if versions else ""),
            error=status.error if status else "",
            sessions=tuple(gateway.sessions.values()),
            prompts=tuple(gateway.prompts.values()),
            waiting=gateway.waiting_rows(),
        )


def _state_words(status: ConnectionStatus | None) -> str:
    if status is None:
        return "disconnected"
    if status.state is ConnectionState.BACKOFF:
        attempt = status.attempt
        return f"reconnecting (attempt {attempt + 1})" if attempt else "reconnecting"
    return status.state.name.lower()
