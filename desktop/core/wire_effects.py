"""What each frame does to sessions, approvals and prompts.

Events every dialect shapes alike are read and applied in one step (``WireEffects.events``);
approvals, prompts and their withdrawals differ per dialect, so the adapter reads them into
wire events that :meth:`WireEffects.apply` applies. 0.19.0 never says a card was withdrawn:
the only signs are a ``tool.complete``, the turn's end or ``running: false`` (protocol.md
§3.2); which row each ends, and how, is the lifecycle's transition table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from desktop.core import outcomes, payloads, prompt_book, window_requests
from desktop.core.approvals import ApprovalMachine, Row
from desktop.core.connection import Link
from desktop.core.events import CoreEvent, NoticeReceived, ProtocolErrorReceived
from desktop.core.following import Following
from desktop.core.jsonrpc import EventFrame, encode_error, excerpt
from desktop.core.outbox import Outbox
from desktop.core.prompt_book import PromptBook
from desktop.core.reports import todos_in, todos_of_tool
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings
from desktop.core.wire import (
    ApprovalAsked,
    Malformed,
    PromptClosed,
    PromptOpened,
    PromptSettled,
    PromptVia,
    RequestCancelled,
    RowKind,
    ServerRequestRefused,
    ToolCompleted,
    WindowRequested,
    WireEvent,
)

NOTICE_CHARS = 4000
NAME_CHARS = 80


class WireEffects:
    """Applies what frames say to the sessions, approvals and prompts it is given."""

    def __init__(
        self,
        settings: CoreSettings,
        sessions: SessionBook,
        lifecycle: ApprovalMachine,
        prompts: PromptBook,
        outbox: Outbox,
        link: Link,
        following: Following,
        events: list[CoreEvent],
    ) -> None:
        self._settings, self._sessions, self._lifecycle = settings, sessions, lifecycle
        self._prompts, self._outbox, self._link = prompts, outbox, link
        self._following, self._emit = following, events.append
        self.events: dict[str, Callable[[EventFrame], None]] = {
            "gateway.ready": self._ready,
            "session.info": self._info,
            "session.updated": self._info,
            "session.title": self._title,
            "session.usage": self._usage,
            "todo.updated": self._todos,
            "message.start": self._turn_started,
            "message.complete": self._turn_ended,
            "tool.start": self._tool_started,
            "message.interim": self._interim,
            "subagent.tool": self._subagent_tool,
            "tool.complete": self._tool_complete,
            "session.reclaimed": self._reclaimed,
            "session.replay_gap": self._replay_gap,
            "error": self._error,
            "notification.show": self._notification,
        }
        self._apply: dict[type, Callable[[Any], object]] = {
            ApprovalAsked: self.ask,
            PromptOpened: self._prompt_opened,
            PromptClosed: self._prompt_closed,
            RequestCancelled: self._cancelled,
            PromptSettled: self._settled,
            ServerRequestRefused: self._refused,
            WindowRequested: self._window_requested,
            Malformed: lambda e: self._emit(ProtocolErrorReceived(e.reason, e.excerpt)),
        }

    def apply(self, events: Iterable[WireEvent]) -> None:
        """Apply what an adapter read from one frame."""
        for event in events:
            self._apply[type(event)](event)

    def ask(self, asked: ApprovalAsked) -> Row:
        """A request arrived (or was re-delivered): its row, new or known."""
        sessions = self._sessions
        if self._first_seen(asked.session_id) and asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
        sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
        return self._lifecycle.asked(asked, self._link.epoch)

    def stamp_generation(self, frame: EventFrame) -> None:
        """A canonical event's stamp: the session's current execution generation."""
        generation = payloads.integer(frame.params, "execution_generation")
        known = frame.session_id and self._sessions.get(frame.session_id) is not None
        if generation is not None and known:  # else the request it stamps says it
            self._sessions.update(frame.session_id, execution_generation=generation)

    def tool_completed(self, event: ToolCompleted) -> None:
        self._sessions.ensure(event.session_id)
        if event.todos is not None:
            self._sessions.apply_todos(event.session_id, event.todos)
        self._lifecycle.tool_completed(event)
        self._prompts.tool_completed(event.session_id, event.name)

    def _ready(self, frame: EventFrame) -> None:
        self._link.gateway_ready(frame.payload)

    def _info(self, frame: EventFrame) -> None:
        book, session_id = self._sessions, frame.session_id
        if session_id:
            was_running = book.ensure(session_id).running
            book.apply_info(session_id, frame.payload, mark=self._outbox.issued)
            if was_running and not book.ensure(session_id).running:
                self._lifecycle.turn_ended(session_id, outcomes.SESSION_STOPPED)

    def _title(self, frame: EventFrame) -> None:
        book, session_id = self._sessions, frame.session_id
        if session_id:
            known = book.ensure(session_id)
            title = payloads.text(frame.payload, "title")
            stored = payloads.text(frame.payload, "session_id")
            if title:
                book.update(session_id, title=title)
            if stored and not known.stored_session_id:
                book.update(session_id, stored_session_id=stored)

    def _usage(self, frame: EventFrame) -> None:
        if frame.session_id:
            self._sessions.apply_usage(frame.session_id, frame.payload)

    def _todos(self, frame: EventFrame) -> None:
        todos = todos_in(frame.payload)
        if todos and frame.session_id:
            self._sessions.apply_todos(frame.session_id, todos)

    def _turn_started(self, frame: EventFrame) -> None:
        if frame.session_id:
            self._sessions.set_running(frame.session_id, True)
            self._lifecycle.turn_boundary(frame.session_id)

    def _turn_ended(self, frame: EventFrame) -> None:
        """``message.complete``: the turn is over (``status`` complete|error|interrupted)."""
        session_id = frame.session_id
        if not session_id:
            return
        usage = payloads.mapping(frame.payload, "usage")
        if usage is not None:
            self._sessions.apply_usage(session_id, usage)
        self._sessions.set_running(session_id, False)
        self._lifecycle.turn_boundary(session_id)
        self._prompts.turn_ended(session_id)
        interrupted = payloads.text(frame.payload, "status") == "interrupted"
        self._lifecycle.turn_ended(session_id, outcomes.TURN_ENDED, interrupted=interrupted)
        if self._lifecycle.open_rows(session_id):
            self._link.poll_pending(session_id)  # B: the gateway's list ends them, not this frame

    def _tool_started(self, frame: EventFrame) -> None:
        if not frame.session_id:
            return
        payload = frame.payload
        name = payloads.text(payload, "name")[:NAME_CHARS]
        args = payloads.mapping(payload, "args")
        command = payloads.text(args, "command") if args is not None else ""  # not sent by 0.19.0
        tool_id = payloads.text(payload, "tool_id")
        self._sessions.ensure(frame.session_id)
        limit = self._settings.max_command_chars
        self._lifecycle.tool_started(frame.session_id, tool_id, name, command[:limit])

    def _subagent_tool(self, frame: EventFrame) -> None:
        """``subagent.tool``: a sub-agent (``delegate_task``) calls a tool on the parent session."""
        payload = frame.payload
        command = payloads.text(payload, "tool_preview") or payloads.text(payload, "text")
        if frame.session_id and command:
            goal = payloads.text(payload, "goal")[:NOTICE_CHARS]
            name = payloads.text(payload, "tool_name")[:NAME_CHARS]
            limit = self._settings.max_command_chars
            self._lifecycle.subagent_tool(frame.session_id, goal, name, command[:limit])

    def _interim(self, frame: EventFrame) -> None:
        """``message.interim``: what the agent said just before its next tool call."""
        text = payloads.text(frame.payload, "text")
        if frame.session_id and text:
            self._lifecycle.agent_said(frame.session_id, text[:NOTICE_CHARS])

    def _tool_complete(self, frame: EventFrame) -> None:
        if not frame.session_id:
            return
        payload = frame.payload
        result = payload.get("result")
        blocked, timed_out = _blocked(result)
        args = payloads.mapping(payload, "args")
        ran = result if isinstance(result, dict) else payloads.EMPTY
        event = ToolCompleted(
            frame.session_id,
            payloads.text(payload, "tool_id"),
            payloads.text(payload, "name"),
            blocked=blocked,
            timed_out=timed_out,
            todos=todos_of_tool(payload),
            command=payloads.text(args, "command")[:NOTICE_CHARS] if args is not None else "",
            exit_code=payloads.integer(ran, "exit_code"),
            output=payloads.text(ran, "output")[:NOTICE_CHARS],
            approval_note=payloads.text(ran, "approval")[:NOTICE_CHARS],
        )
        self.tool_completed(event)

    def _reclaimed(self, frame: EventFrame) -> None:
        session_id = payloads.text(frame.payload, "session_id") or frame.session_id
        reason = payloads.text(frame.payload, "reason") or "reclaimed"
        if session_id:
            self._following.remove(session_id, f"reclaimed ({excerpt(reason, 40)})")

    def _replay_gap(self, frame: EventFrame) -> None:
        """The canonical gateway retired this viewer's subscription: resume for a snapshot."""
        if frame.session_id:
            self._link.resume(frame.session_id)

    def _error(self, frame: EventFrame) -> None:
        text = payloads.text(frame.payload, "message")
        if text:
            self._emit(NoticeReceived(frame.session_id, text[:NOTICE_CHARS], "error"))

    def _notification(self, frame: EventFrame) -> None:
        text = payloads.text(frame.payload, "text")
        level = excerpt(payloads.text(frame.payload, "level") or "info", 20)
        if text:
            self._emit(NoticeReceived(frame.session_id, text[:NOTICE_CHARS], level))

    def _first_seen(self, session_id: str) -> bool:
        """A session first seen in a request or prompt is known, not followed (read-only)."""
        if self._sessions.get(session_id) is not None:
            return False
        self._sessions.ensure(session_id)
        self._sessions.follow(session_id, on=False)
        return True

    def _prompt_opened(self, event: PromptOpened) -> None:
        self._first_seen(event.session_id)
        self._prompts.opened(event, self._link.epoch, self._link.dialect)

    def _prompt_closed(self, event: PromptClosed) -> None:
        self._prompts.closed(event.via, event.ident, event.reason)

    def _cancelled(self, event: RequestCancelled) -> None:
        reason = prompt_book.CANCEL_REASONS.get(event.reason, prompt_book.CANCELLED)
        if self._prompts.closed(PromptVia.SERVER_REQUEST, event.reply_id, reason):
            return
        row = self._lifecycle.find(RowKind.SERVER_REQUEST, event.reply_id)
        if row is not None:
            self._lifecycle.withdrawn(row, outcomes.cancelled(event.reason))

    def _settled(self, event: PromptSettled) -> None:
        ended = prompt_book.EXPIRED if event.expired else prompt_book.ANSWERED_ELSEWHERE
        generation = event.execution_generation
        if self._prompts.closed(PromptVia.CANONICAL, event.prompt_id, ended, generation):
            return
        row = self._lifecycle.find(RowKind.PROMPT, event.prompt_id, event.execution_generation)
        if row is not None:
            self._lifecycle.settled_elsewhere(row, event.expired)

    def _refused(self, event: ServerRequestRefused) -> None:
        self._outbox.reply(
            encode_error(event.reply_id, event.code, event.message), self._link.epoch
        )

    def _window_requested(self, event: WindowRequested) -> None:
        """Decline with the gateway's not-shown code, or send nothing (see window_requests)."""
        code = window_requests.decline_code(
            event.method,
            declines_not_shown=self._link.handshake.declines_not_shown,
            owner_quorum=event.owner_quorum,
        )
        if code is not None:
            message = window_requests.DECLINE_MESSAGE
            self._outbox.reply(encode_error(event.reply_id, code, message), self._link.epoch)


def _blocked(result: object) -> tuple[bool, bool]:
    """Whether a tool result says "not run" (blocked), and whether because of a timeout."""
    if isinstance(result, payloads.OBJECT):
        error = payloads.text(result, "error")
        blocked = payloads.text(result, "status") == "blocked" or error.startswith("BLOCKED")
    elif isinstance(result, str):
        error = result
        blocked = "BLOCKED" in result or "not started" in result
    else:
        return False, False
    return blocked, blocked and "timed out" in error
