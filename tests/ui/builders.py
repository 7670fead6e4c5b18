"""Small builders for the frozen core values the UI tests feed in."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from desktop.core.model import (
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
from desktop.ui.snapshot import AppSnapshot, GatewayView, Link
from desktop.ui.tray_menu import MenuCommands


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
        approvals=approvals,
    )


def snap(*gateways: GatewayView) -> AppSnapshot:
    return AppSnapshot(tuple(gateways))


def todos(*pairs: tuple[str, TodoStatus]) -> TodoList:
    return TodoList(tuple(TodoItem(str(i), c, s) for i, (c, s) in enumerate(pairs)), 1)


YOLO_SESSION = YoloState(True, YoloSource.SESSION)
YOLO_MODE_OFF = YoloState(True, YoloSource.MODE_OFF)
YOLO_ENV = YoloState(True, YoloSource.ENVIRONMENT)


@dataclass
class Decision:
    """Stand-in with DecisionRequest's fields, for tests that only need its shape."""

    gateway_id: str
    key: str
    choice: Any
    surface: str = "dialog"
    confirm_stale: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class MenuRecorder:
    """Menu commands that record each call as ``(name, *args)``.

    ``extras=True`` also wires the app-kept entries (time-boxed YOLO, Open journal, Start at
    login); without them the menu leaves those entries out, as ``MenuCommands`` documents.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def commands(self, *, extras: bool = False) -> MenuCommands:
        def rec(name: str) -> Any:
            return lambda *args: self.calls.append((name, *args))

        wired = {f.name: rec(f.name) for f in fields(MenuCommands) if f.default is MISSING}
        if extras:
            wired.update(
                timebox=rec("timebox"),
                open_journal=rec("open_journal"),
                set_start_at_login=rec("start_at_login"),
            )
        return MenuCommands(**wired)
