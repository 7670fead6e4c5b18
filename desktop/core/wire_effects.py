"""What each frame does to sessions, approvals and prompts.

Events every dialect shapes alike are read and applied in one step (:data:`EVENTS`); approvals,
prompts and their withdrawals differ per dialect, so the adapter reads them into wire events
that :data:`APPLY` applies. 0.19.0 never says a card was withdrawn: the only signs are a
``tool.complete``, the turn's end or ``running: false`` (protocol.md §3.2); which row each
ends, and how, is the lifecycle's transition table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop.core import outcomes, payloads, prompt_book, window_requests
from desktop.core.connection import CAPABILITIES_METHOD, CAPABILITIES_PARAMS, poll_pending, resume
from desktop.core.events import NoticeReceived, ProtocolErrorReceived
from desktop.core.jsonrpc import EventFrame, encode_error, excerpt
from desktop.core.lifecycle import Row
from desktop.core.outbox import Purpose
from desktop.core.reports import todos_in, todos_of_tool
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
)

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

NOTICE_CHARS = 4000
NAME_CHARS = 80


def ask(core: GatewayCore, asked: ApprovalAsked) -> Row:
    """A request arrived (or was re-delivered): its row, new or known."""
    sessions = core.session_book
    if sessions.get(asked.session_id) is None:  # first seen in this very request
        sessions.ensure(asked.session_id)
        sessions.follow(asked.session_id, on=False)
        if asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
    sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
    return core.lifecycle.asked(asked, core.epoch)


def stamp_generation(core: GatewayCore, frame: EventFrame) -> None:
    """A canonical event's stamp: the session's current execution generation."""
    generation = payloads.integer(frame.params, "execution_generation")
    known = frame.session_id and core.session_book.get(frame.session_id) is not None
    if generation is not None and known:  # else the request it stamps says it
        core.session_book.update(frame.session_id, execution_generation=generation)


def _tool_completed(core: GatewayCore, event: ToolCompleted) -> None:
    core.session_book.ensure(event.session_id)
    if event.todos is not None:
        core.session_book.apply_todos(event.session_id, event.todos)
    core.lifecycle.tool_completed(event)
    core.prompt_book.tool_completed(event.session_id, event.name)


# -- event frames every dialect shapes alike ------------------------------------------------
def _ready(core: GatewayCore, frame: EventFrame) -> None:
    if core.connected and core.handshake.ready(frame.payload):
        core.outbox.request(
            CAPABILITIES_METHOD, CAPABILITIES_PARAMS, Purpose.CAPABILITIES, core.epoch
        )


def _info(core: GatewayCore, frame: EventFrame) -> None:
    book, session_id = core.session_book, frame.session_id
    if session_id:
        was_running = book.ensure(session_id).running
        book.apply_info(session_id, frame.payload, mark=core.outbox.issued)
        if was_running and not book.ensure(session_id).running:
            core.lifecycle.turn_ended(session_id, outcomes.SESSION_STOPPED)


def _title(core: GatewayCore, frame: EventFrame) -> None:
    book, session_id = core.session_book, frame.session_id
    if session_id:
        known = book.ensure(session_id)
        title = payloads.text(frame.payload, "title")
        stored = payloads.text(frame.payload, "session_id")
        if title:
            book.update(session_id, title=title)
        if stored and not known.stored_session_id:
            book.update(session_id, stored_session_id=stored)


def _usage(core: GatewayCore, frame: EventFrame) -> None:
    if frame.session_id:
        core.session_book.apply_usage(frame.session_id, frame.payload)


def _todos(core: GatewayCore, frame: EventFrame) -> None:
    todos = todos_in(frame.payload)
    if todos and frame.session_id:
        core.session_book.apply_todos(frame.session_id, todos)


def _turn_started(core: GatewayCore, frame: EventFrame) -> None:
    if frame.session_id:
        core.session_book.set_running(frame.session_id, True)
        core.lifecycle.turn_boundary(frame.session_id)


def _turn_ended(core: GatewayCore, frame: EventFrame) -> None:
    """``message.complete``: the turn is over (``status`` complete|error|interrupted)."""
    session_id = frame.session_id
    if not session_id:
        return
    usage = payloads.mapping(frame.payload, "usage")
    if usage is not None:
        core.session_book.apply_usage(session_id, usage)
    core.session_book.set_running(session_id, False)
    core.lifecycle.turn_boundary(session_id)
    core.prompt_book.turn_ended(session_id)
    interrupted = payloads.text(frame.payload, "status") == "interrupted"
    core.lifecycle.turn_ended(session_id, outcomes.TURN_ENDED, interrupted=interrupted)
    if core.lifecycle.open_rows(session_id):
        poll_pending(core, session_id)  # B: the gateway's list ends them, not this frame


def _tool_started(core: GatewayCore, frame: EventFrame) -> None:
    if not frame.session_id:
        return
    payload = frame.payload
    name = payloads.text(payload, "name")[:NAME_CHARS]
    args = payloads.mapping(payload, "args")
    command = payloads.text(args, "command") if args is not None else ""  # not sent by 0.19.0
    tool_id = payloads.text(payload, "tool_id")
    core.session_book.ensure(frame.session_id)
    limit = core.settings.max_command_chars
    core.lifecycle.tool_started(frame.session_id, tool_id, name, command[:limit])


def _subagent_tool(core: GatewayCore, frame: EventFrame) -> None:
    """``subagent.tool``: a sub-agent (``delegate_task``) calls a tool on the parent session."""
    payload = frame.payload
    command = payloads.text(payload, "tool_preview") or payloads.text(payload, "text")
    if frame.session_id and command:
        goal = payloads.text(payload, "goal")[:NOTICE_CHARS]
        name = payloads.text(payload, "tool_name")[:NAME_CHARS]
        limit = core.settings.max_command_chars
        core.lifecycle.subagent_tool(frame.session_id, goal, name, command[:limit])


def _interim(core: GatewayCore, frame: EventFrame) -> None:
    """``message.interim``: what the agent said just before its next tool call."""
    text = payloads.text(frame.payload, "text")
    if frame.session_id and text:
        core.lifecycle.agent_said(frame.session_id, text[:NOTICE_CHARS])


def _tool_complete(core: GatewayCore, frame: EventFrame) -> None:
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
    _tool_completed(core, event)


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


def _reclaimed(core: GatewayCore, frame: EventFrame) -> None:
    session_id = payloads.text(frame.payload, "session_id") or frame.session_id
    reason = payloads.text(frame.payload, "reason") or "reclaimed"
    if session_id:
        gone = outcomes.withdrawn(outcomes.SESSION_GONE)
        core.remove_session(session_id, f"reclaimed ({excerpt(reason, 40)})", gone)


def _replay_gap(core: GatewayCore, frame: EventFrame) -> None:
    """The canonical gateway retired this viewer's subscription: resume for a snapshot."""
    if frame.session_id:
        resume(core, frame.session_id)


def _error(core: GatewayCore, frame: EventFrame) -> None:
    text = payloads.text(frame.payload, "message")
    if text:
        core.emit(NoticeReceived(frame.session_id, text[:NOTICE_CHARS], "error"))


def _notification(core: GatewayCore, frame: EventFrame) -> None:
    text = payloads.text(frame.payload, "text")
    level = excerpt(payloads.text(frame.payload, "level") or "info", 20)
    if text:
        core.emit(NoticeReceived(frame.session_id, text[:NOTICE_CHARS], level))


EVENTS: dict[str, Callable[[GatewayCore, EventFrame], None]] = {
    "gateway.ready": _ready,
    "session.info": _info,
    "session.updated": _info,
    "session.title": _title,
    "session.usage": _usage,
    "todo.updated": _todos,
    "message.start": _turn_started,
    "message.complete": _turn_ended,
    "tool.start": _tool_started,
    "message.interim": _interim,
    "subagent.tool": _subagent_tool,
    "tool.complete": _tool_complete,
    "session.reclaimed": _reclaimed,
    "session.replay_gap": _replay_gap,
    "error": _error,
    "notification.show": _notification,
}


# -- wire events: what the dialect adapters read ------------------------------------------
def _prompt_opened(core: GatewayCore, event: PromptOpened) -> None:
    book = core.session_book
    if book.get(event.session_id) is None:  # first seen in this very prompt
        book.ensure(event.session_id)
        book.follow(event.session_id, on=False)
    core.prompt_book.opened(event, core.epoch, core.dialect)


def _prompt_closed(core: GatewayCore, event: PromptClosed) -> None:
    core.prompt_book.closed(event.via, event.ident, event.reason)


def _cancelled(core: GatewayCore, event: RequestCancelled) -> None:
    reason = prompt_book.CANCEL_REASONS.get(event.reason, prompt_book.CANCELLED)
    if core.prompt_book.closed(PromptVia.SERVER_REQUEST, event.reply_id, reason):
        return
    row = core.lifecycle.find(RowKind.SERVER_REQUEST, event.reply_id)
    if row is not None:
        core.lifecycle.withdrawn(row, outcomes.cancelled(event.reason))


def _settled(core: GatewayCore, event: PromptSettled) -> None:
    ended = prompt_book.EXPIRED if event.expired else prompt_book.ANSWERED_ELSEWHERE
    generation = event.execution_generation
    if core.prompt_book.closed(PromptVia.CANONICAL, event.prompt_id, ended, generation):
        return
    row = core.lifecycle.find(RowKind.PROMPT, event.prompt_id, event.execution_generation)
    if row is not None:
        core.lifecycle.settled_elsewhere(row, event.expired)


def _refused(core: GatewayCore, event: ServerRequestRefused) -> None:
    core.outbox.reply(encode_error(event.reply_id, event.code, event.message), core.epoch)


def _window_requested(core: GatewayCore, event: WindowRequested) -> None:
    """Decline at once with the gateway's not-shown code, or send nothing (``window_requests``)."""
    code = window_requests.decline_code(
        event.method,
        declines_not_shown=core.handshake.declines_not_shown,
        owner_quorum=event.owner_quorum,
    )
    if code is not None:
        message = window_requests.DECLINE_MESSAGE
        core.outbox.reply(encode_error(event.reply_id, code, message), core.epoch)


APPLY: dict[type, Callable[[GatewayCore, Any], object]] = {
    ApprovalAsked: ask,
    PromptOpened: _prompt_opened,
    PromptClosed: _prompt_closed,
    RequestCancelled: _cancelled,
    PromptSettled: _settled,
    ServerRequestRefused: _refused,
    WindowRequested: _window_requested,
    Malformed: lambda core, e: core.emit(ProtocolErrorReceived(e.reason, e.excerpt)),
}
