"""What each wire event does to sessions and approvals (the approvals' part: ``lifecycle``).

0.19.0 never says when a card is withdrawn, so the only signs are a ``tool.complete`` for the
command, the end of the turn, or ``running: false`` (protocol.md §3.2); newer gateways say it
(``request.cancel``, ``approval.settled``). Which row each sign ends, and how, is the
lifecycle's transition table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop.core import outcomes
from desktop.core.events import NoticeReceived, ProtocolErrorReceived
from desktop.core.jsonrpc import encode_error
from desktop.core.lifecycle import Row
from desktop.core.resubscribe import poll_pending, resume
from desktop.core.wire import (
    AgentSaid,
    ApprovalAsked,
    GenerationSeen,
    InfoReceived,
    Malformed,
    Notice,
    PromptSettled,
    ReplayGap,
    RequestCancelled,
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

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore


def apply_wire(core: GatewayCore, event: WireEvent) -> None:
    """Apply one wire event."""
    APPLY[type(event)](core, event)


def _info(core: GatewayCore, event: InfoReceived) -> None:
    book, session_id = core.session_book, event.session_id
    was_running = book.ensure(session_id).running
    book.apply_info(session_id, event.info, mark=core.outbox.issued)
    if was_running and not book.ensure(session_id).running:
        settle_session(core, session_id, outcomes.SESSION_STOPPED)


def _title(core: GatewayCore, event: TitleReceived) -> None:
    book = core.session_book
    known = book.ensure(event.session_id)
    if event.title:
        book.update(event.session_id, title=event.title)
    if event.stored_session_id and not known.stored_session_id:
        book.update(event.session_id, stored_session_id=event.stored_session_id)


def _turn_started(core: GatewayCore, event: TurnStarted) -> None:
    core.session_book.set_running(event.session_id, True)
    core.lifecycle.turn_boundary(event.session_id)


def _tool_started(core: GatewayCore, event: ToolStarted) -> None:
    core.session_book.ensure(event.session_id)
    core.lifecycle.tool_started(event.session_id, event.tool_id, event.name, event.command)


def _generation(core: GatewayCore, event: GenerationSeen) -> None:
    if core.session_book.get(event.session_id) is not None:  # else the request it stamps says it
        core.session_book.update(event.session_id, execution_generation=event.generation)


def _refused(core: GatewayCore, event: ServerRequestRefused) -> None:
    core.outbox.reply(encode_error(event.reply_id, event.code, event.message), core.epoch)


def ask(core: GatewayCore, asked: ApprovalAsked) -> Row:
    """A request arrived (or was re-delivered): its row (``lifecycle`` decides which)."""
    sessions = core.session_book
    if sessions.get(asked.session_id) is None:  # first seen in this very request
        sessions.ensure(asked.session_id)
        sessions.follow(asked.session_id, on=False)
        if asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
    sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
    return core.lifecycle.asked(asked, core.epoch)


def settle_session(
    core: GatewayCore, session_id: str, reason: str, *, interrupted: bool = False
) -> None:
    """The session's turn is over: every row still waiting there can no longer be answered."""
    core.lifecycle.turn_ended(session_id, reason, interrupted=interrupted)


def _turn_ended(core: GatewayCore, event: TurnEnded) -> None:
    if event.usage is not None:
        core.session_book.apply_usage(event.session_id, event.usage)
    core.session_book.set_running(event.session_id, False)
    core.lifecycle.turn_boundary(event.session_id)
    interrupted = event.status == "interrupted"
    settle_session(core, event.session_id, outcomes.TURN_ENDED, interrupted=interrupted)
    if core.lifecycle.open_rows(event.session_id):
        poll_pending(core, event.session_id)  # B: the gateway's list ends them, not this frame


def _tool_completed(core: GatewayCore, event: ToolCompleted) -> None:
    core.session_book.ensure(event.session_id)
    if event.todos is not None:
        core.session_book.apply_todos(event.session_id, event.todos)
    core.lifecycle.tool_completed(event)


def _cancelled(core: GatewayCore, event: RequestCancelled) -> None:
    row = core.lifecycle.find(RowKind.SERVER_REQUEST, event.reply_id)
    if row is not None:
        core.lifecycle.withdrawn(row, outcomes.cancelled(event.reason))


def _settled(core: GatewayCore, event: PromptSettled) -> None:
    row = core.lifecycle.find(RowKind.PROMPT, event.prompt_id, event.execution_generation)
    if row is not None:
        core.lifecycle.settled_elsewhere(row, event.expired)


APPLY: dict[type, Callable[[GatewayCore, Any], object]] = {
    ApprovalAsked: ask,
    RequestCancelled: _cancelled,
    PromptSettled: _settled,
    InfoReceived: _info,
    TitleReceived: _title,
    UsageReceived: lambda core, e: core.session_book.apply_usage(e.session_id, e.payload),
    TodosReceived: lambda core, e: core.session_book.apply_todos(e.session_id, e.todos),
    TurnStarted: _turn_started,
    TurnEnded: _turn_ended,
    ToolStarted: _tool_started,
    AgentSaid: lambda core, e: core.lifecycle.agent_said(e.session_id, e.text),
    ToolCompleted: lambda core, event: _tool_completed(core, event),
    GenerationSeen: _generation,
    ReplayGap: lambda core, event: resume(core, event.session_id),
    SessionGone: lambda core, e: core.remove_session(
        e.session_id, e.reason, outcomes.withdrawn(outcomes.SESSION_GONE)
    ),
    Notice: lambda core, e: core.emit(NoticeReceived(e.session_id, e.text, e.level)),
    ServerRequestRefused: _refused,
    Malformed: lambda core, e: core.emit(ProtocolErrorReceived(e.reason, e.excerpt)),
}
"""What each wire event does, by its type (``tool.complete``'s is looked up per call)."""
