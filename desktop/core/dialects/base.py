"""What every dialect adapter shares: the common events and the adapter interface.

Why a base class: most events (``session.info``, ``message.*``, ``tool.*``, todos, usage,
titles, notices) look the same in all three dialects; only approvals, their withdrawal and
the way a decision is written differ. Subclasses add handlers for their own event types and
implement the answer side (:meth:`DialectAdapter.decision_text`,
:meth:`DialectAdapter.decision_outcome`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from desktop.core import payloads
from desktop.core.dialects.answers import encode_decision
from desktop.core.dialects.approval_frames import server_request_approval
from desktop.core.jsonrpc import METHOD_NOT_FOUND, EventFrame, ServerRequestFrame, excerpt
from desktop.core.model import Choice, Dialect, Outcome, SessionState
from desktop.core.todos import todos_in, todos_of_tool
from desktop.core.wire import (
    AgentSaid,
    ApprovalAsked,
    InfoReceived,
    Notice,
    ReplayGap,
    RowKind,
    ServerRequestRefused,
    SessionGone,
    TitleReceived,
    TodosReceived,
    ToolCompleted,
    ToolStarted,
    TurnEnded,
    TurnStarted,
    UsageReceived,
    WireEvent,
)

NOTICE_CHARS = 4000
NAME_CHARS = 80

EventHandler = Callable[["DialectAdapter", EventFrame], list[WireEvent]]


class DialectAdapter:
    """Frames in → wire events; decisions in → frames out. One stateless instance per dialect."""

    dialect: ClassVar[Dialect | None] = None
    answers: ClassVar[frozenset[RowKind]] = frozenset()
    extra_handlers: ClassVar[dict[str, EventHandler]] = {}

    def __init__(self, max_command_chars: int) -> None:
        self.max_command_chars = max_command_chars
        self._handlers = {**_COMMON, **self.extra_handlers}

    # -- frames in --------------------------------------------------------------------------
    def parse_event(self, frame: EventFrame) -> list[WireEvent]:
        """The wire events one event frame means (``[]`` for events the tray ignores)."""
        handler = self._handlers.get(frame.type)
        return handler(self, frame) if handler is not None else []

    def parse_server_request(self, frame: ServerRequestFrame) -> list[WireEvent]:
        """``approval`` requests become rows; everything else is refused at once (-32601)."""
        if frame.method == "approval":
            return server_request_approval(frame, self.max_command_chars)
        message = f"the tray does not handle {excerpt(frame.method, 60)}"
        return [ServerRequestRefused(frame.request_id, frame.method, METHOD_NOT_FOUND, message)]

    # -- decisions out ----------------------------------------------------------------------
    def decision_text(self, asked: ApprovalAsked, choice: Choice, rpc_id: int) -> str:
        """The one frame that answers ``asked`` with ``choice``. Only :class:`Choice` encodes.

        Raises:
            TypeError: ``choice`` is not a :class:`Choice` (free strings never reach the wire).
            ValueError: the row lacks the ids its kind is answered by.
        """
        return encode_decision(asked, choice, rpc_id)

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """The final outcome of an RPC-carried decision from its result or error."""
        raise NotImplementedError

    # -- sessions ---------------------------------------------------------------------------
    def resume_params(self, session: SessionState, source: str) -> dict[str, Any] | None:
        """Params for ``session.resume`` of ``session``, or None when it cannot be resumed."""
        if not session.stored_session_id:
            return None
        return {
            "session_id": session.stored_session_id,
            "source": source,
            "close_on_disconnect": False,
        }

    def pending_requests(self, session_id: str, items: list[Mapping[str, Any]]) -> list[WireEvent]:
        """Rows an ``approval.pending`` list shows that the tray may not know yet (0.20 only)."""
        return []

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> list[WireEvent] | None:
        """The open requests a resume snapshot re-delivers, or None if it lists none at all.

        None means "no reconciliation possible" (0.19.0 snapshots list no approvals).
        """
        return None


def _info(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return [InfoReceived(frame.session_id, frame.payload)] if frame.session_id else []


def _title(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    title = payloads.text(frame.payload, "title")
    stored = payloads.text(frame.payload, "session_id")
    return [TitleReceived(frame.session_id, title, stored)] if frame.session_id else []


def _usage(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return [UsageReceived(frame.session_id, frame.payload)] if frame.session_id else []


def _todos(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    todos = todos_in(frame.payload)
    return [TodosReceived(frame.session_id, todos)] if todos and frame.session_id else []


def _turn_started(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return [TurnStarted(frame.session_id)] if frame.session_id else []


def _turn_ended(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    if not frame.session_id:
        return []
    usage = payloads.mapping(frame.payload, "usage")
    return [TurnEnded(frame.session_id, payloads.text(frame.payload, "status"), usage)]


def _tool_started(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    if not frame.session_id:
        return []
    payload = frame.payload
    name = payloads.text(payload, "name")[:NAME_CHARS]
    args = payloads.mapping(payload, "args")
    command = payloads.text(args, "command") if args is not None else ""
    tool_id = payloads.text(payload, "tool_id")
    return [ToolStarted(frame.session_id, tool_id, name, command[: adapter.max_command_chars])]


def _interim(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    text = payloads.text(frame.payload, "text")
    return [AgentSaid(frame.session_id, text[:NOTICE_CHARS])] if frame.session_id and text else []


def _tool_completed(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    if not frame.session_id:
        return []
    payload = frame.payload
    result = payload.get("result")
    blocked, timed_out = _blocked(result)
    args = payloads.mapping(payload, "args")
    ran = result if isinstance(result, Mapping) else payloads.EMPTY
    output = payloads.text(ran, "output") if isinstance(result, Mapping) else ""
    return [
        ToolCompleted(
            frame.session_id,
            payloads.text(payload, "tool_id"),
            payloads.text(payload, "name"),
            blocked=blocked,
            timed_out=timed_out,
            todos=todos_of_tool(payload),
            command=payloads.text(args, "command")[:NOTICE_CHARS] if args is not None else "",
            exit_code=payloads.integer(ran, "exit_code"),
            output=output[:NOTICE_CHARS],
        )
    ]


def _blocked(result: object) -> tuple[bool, bool]:
    """Whether a tool result says "not run" (blocked), and whether because of a timeout."""
    if isinstance(result, Mapping):
        error = payloads.text(result, "error")
        blocked = payloads.text(result, "status") == "blocked" or error.startswith("BLOCKED")
    elif isinstance(result, str):
        error = result
        blocked = "BLOCKED" in result or "not started" in result
    else:
        return False, False
    return blocked, blocked and "timed out" in error


def _reclaimed(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    session_id = payloads.text(frame.payload, "session_id") or frame.session_id
    reason = payloads.text(frame.payload, "reason") or "reclaimed"
    return [SessionGone(session_id, f"reclaimed ({excerpt(reason, 40)})")] if session_id else []


def _replay_gap(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return [ReplayGap(frame.session_id)] if frame.session_id else []


def _error(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    text = payloads.text(frame.payload, "message")
    return [Notice(frame.session_id, text[:NOTICE_CHARS], "error")] if text else []


def _notification(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    text = payloads.text(frame.payload, "text")
    level = excerpt(payloads.text(frame.payload, "level") or "info", 20)
    return [Notice(frame.session_id, text[:NOTICE_CHARS], level)] if text else []


_COMMON: dict[str, EventHandler] = {
    "session.info": _info,
    "session.updated": _info,
    "session.title": _title,
    "session.usage": _usage,
    "todo.updated": _todos,
    "message.start": _turn_started,
    "message.complete": _turn_ended,
    "tool.start": _tool_started,
    "message.interim": _interim,
    "tool.complete": _tool_completed,
    "session.reclaimed": _reclaimed,
    "session.replay_gap": _replay_gap,
    "error": _error,
    "notification.show": _notification,
}
