"""Small builders for the frozen core values the model and UI tests feed in. Qt-free."""

from __future__ import annotations

from typing import Any

from desktop.core.events import ApprovalChanged, ApprovalRequested
from desktop.core.model import (
    OPEN_ACTIONS,
    Approval,
    ApprovalPhase,
    Choice,
    Dialect,
    SessionState,
    SessionStatus,
    TodoItem,
    TodoList,
    TodoStatus,
    Usage,
    YoloSource,
    YoloState,
)
from desktop.model.app_state import AppState
from desktop.model.notify_policy import BatchRef, NotifyPolicy, NotifySettings
from desktop.model.snapshot import AppSnapshot, GatewayView, Link


def session(
    sid: str = "s1",
    title: str = "Fix the build",
    status: SessionStatus = SessionStatus.IDLE,
    *,
    yolo: YoloState | None = None,
    usage: Usage | None = None,
    todos: TodoList | None = None,
    mode: str = "manual",
) -> SessionState:
    return SessionState(
        session_id=sid,
        title=title,
        status=status,
        yolo=yolo or YoloState(),
        usage=usage or Usage(),
        todos=todos or TodoList(),
        approval_mode=mode,
    )


def approval(
    key: str = "k1",
    sid: str = "s1",
    batch: str = "b1",
    command: str = "rm -rf build",
    *,
    position: int = 0,
    phase: ApprovalPhase = ApprovalPhase.WAITING,
    choices: tuple[Choice, ...] = (Choice.ONCE, Choice.SESSION, Choice.DENY),
    answerable: bool = True,
) -> Approval:
    return Approval(
        key=key,
        session_id=sid,
        batch_id=batch,
        position=position,
        command=command,
        choices=choices,
        phase=phase,
        answerable=answerable,
    )


def gateway(
    gid: str = "g1",
    name: str = "Local",
    link: Link = Link.UP,
    *,
    sessions: tuple[SessionState, ...] = (),
    approvals: tuple[Approval, ...] = (),
    dialect: Dialect | None = Dialect.A,
    error: str = "",
    version: str = "0.19.0",
) -> GatewayView:
    return GatewayView(
        gateway_id=gid,
        name=name,
        link=link,
        state_name=link.value,
        dialect=dialect,
        version=version,
        error=error,
        sessions=sessions,
        waiting=tuple(a for a in approvals if a.action in OPEN_ACTIONS),
    )


def snap(*gateways: GatewayView) -> AppSnapshot:
    return AppSnapshot(tuple(gateways))


def todos(*pairs: tuple[str, TodoStatus]) -> TodoList:
    return TodoList(tuple(TodoItem(str(i), c, s) for i, (c, s) in enumerate(pairs)), 1)


# Every icon ``tray_status`` may name (the stems of resources/icons/*.svg).
ICON_NAMES = (
    "disconnected",
    "connecting",
    "idle",
    "working",
    "waiting",
    "waiting-yolo",
    "yolo",
    "yolo-timed",
    "error",
)
YOLO_SESSION = YoloState(True, YoloSource.SESSION)
YOLO_MODE_OFF = YoloState(True, YoloSource.MODE_OFF)
YOLO_ENV = YoloState(True, YoloSource.ENVIRONMENT)


class StoreFedPolicy(NotifyPolicy):
    """A policy fed the way the app feeds it: a real ``AppState`` folds each row first.

    The policy keeps keys only and reads rows from that store, so these tests also prove
    it words the store's value, not a copy of its own.
    """

    def __init__(self, settings: NotifySettings, *, started_at: float, **kw: Any) -> None:
        self.store = AppState()
        super().__init__(settings, started_at=started_at, rows=self.store.approval, **kw)

    def _fold(self, gateway_id: str, event: ApprovalRequested | ApprovalChanged) -> None:
        self.store.add_gateway(gateway_id, gateway_id)  # a known one stays as it is
        self.store.apply(gateway_id, event)

    def approval_requested(
        self, gateway_id: str, approval: Approval, session_title: str, now: float
    ) -> None:
        self._fold(gateway_id, ApprovalRequested(approval))
        super().approval_requested(gateway_id, approval, session_title, now)

    def approval_changed(
        self, gateway_id: str, approval: Approval, now: float | None = None, session_title: str = ""
    ) -> list[BatchRef]:
        self._fold(gateway_id, ApprovalChanged(approval))
        return super().approval_changed(gateway_id, approval, now, session_title)
