"""What each wire event does to sessions and approvals (the approvals' part: ``lifecycle``).

0.19.0 never says when a card is withdrawn, so the only signs are a ``tool.complete`` for the
command, the end of the turn, or ``running: false`` (protocol.md §3.2); newer gateways say it
(``request.cancel``, ``approval.settled``). Which row each sign ends, and how, is the
lifecycle's transition table.
"""

from __future__ import annotations

from desktop.core import outcomes, prompt_book
from desktop.core.core_state import CoreState
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
    PromptClosed,
    PromptOpened,
    PromptSettled,
    PromptVia,
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


def apply_wire(core: CoreState, event: WireEvent) -> None:
    """Apply one wire event."""
    sessions = core.sessions
    match event:
        case ApprovalAsked():
            ask(core, event)
        case PromptOpened():
            _prompt_opened(core, event)
        case PromptClosed(_, via, ident, reason):
            core.prompts.closed(via, ident, reason)
        case RequestCancelled():
            _cancelled(core, event)
        case PromptSettled():
            _settled(core, event)
        case InfoReceived(session_id, info):
            was_running = (sessions.get(session_id) or sessions.ensure(session_id)).running
            sessions.apply_info(session_id, info, mark=core.outbox.issued)
            state = sessions.get(session_id)
            if state is not None and was_running and not state.running:
                settle_session(core, session_id, outcomes.SESSION_STOPPED)
        case TitleReceived(session_id, title, stored):
            known = sessions.ensure(session_id)
            if title:
                sessions.update(session_id, title=title)
            if stored and not known.stored_session_id:
                sessions.update(session_id, stored_session_id=stored)
        case UsageReceived(session_id, payload):
            sessions.apply_usage(session_id, payload)
        case TodosReceived(session_id, todos):
            sessions.apply_todos(session_id, todos)
        case TurnStarted(session_id):
            sessions.set_running(session_id, True)
            core.approvals.turn_boundary(session_id)
        case TurnEnded():
            _turn_ended(core, event)
        case ToolStarted(session_id, tool_id, name, command):
            sessions.ensure(session_id)
            core.approvals.tool_started(session_id, tool_id, name, command)
        case AgentSaid(session_id, text):
            core.approvals.agent_said(session_id, text)
        case ToolCompleted():
            _tool_completed(core, event)
        case GenerationSeen(session_id, generation):
            if sessions.get(session_id) is not None:  # else the request it stamps says it
                sessions.update(session_id, execution_generation=generation)
        case ReplayGap(session_id):
            resume(core, session_id)
        case SessionGone(session_id, reason):
            core.remove_session(session_id, reason, outcomes.withdrawn(outcomes.SESSION_GONE))
        case Notice(session_id, text, level):
            core.emit(NoticeReceived(session_id, text, level))
        case ServerRequestRefused(reply_id, _, code, message):
            core.outbox.reply(encode_error(reply_id, code, message), core.epoch)
        case Malformed(reason, excerpt):
            core.emit(ProtocolErrorReceived(reason, excerpt))


def ask(core: CoreState, asked: ApprovalAsked) -> Row:
    """A request arrived (or was re-delivered): its row (``lifecycle`` decides which)."""
    sessions = core.sessions
    if sessions.get(asked.session_id) is None:  # first seen in this very request
        sessions.ensure(asked.session_id)
        sessions.follow(asked.session_id, on=False)
        if asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
    sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
    return core.approvals.asked(asked, core.epoch)


def _prompt_opened(core: CoreState, event: PromptOpened) -> None:
    sessions = core.sessions
    if sessions.get(event.session_id) is None:  # first seen in this very prompt
        sessions.ensure(event.session_id)
        sessions.follow(event.session_id, on=False)
    core.prompts.opened(event, core.epoch, core.dialect)


def settle_session(
    core: CoreState, session_id: str, reason: str, *, interrupted: bool = False
) -> None:
    """The session's turn is over: every row still waiting there can no longer be answered."""
    core.approvals.turn_ended(session_id, reason, interrupted=interrupted)


def _turn_ended(core: CoreState, event: TurnEnded) -> None:
    if event.usage is not None:
        core.sessions.apply_usage(event.session_id, event.usage)
    core.sessions.set_running(event.session_id, False)
    core.approvals.turn_boundary(event.session_id)
    core.prompts.turn_ended(event.session_id)
    interrupted = event.status == "interrupted"
    settle_session(core, event.session_id, outcomes.TURN_ENDED, interrupted=interrupted)
    if core.approvals.open_rows(event.session_id):
        poll_pending(core, event.session_id)  # B: the gateway's list ends them, not this frame


def _tool_completed(core: CoreState, event: ToolCompleted) -> None:
    core.sessions.ensure(event.session_id)
    if event.todos is not None:
        core.sessions.apply_todos(event.session_id, event.todos)
    core.approvals.tool_completed(event)
    core.prompts.tool_completed(event.session_id, event.name)


def _cancelled(core: CoreState, event: RequestCancelled) -> None:
    reason = prompt_book.CANCEL_REASONS.get(event.reason, prompt_book.CANCELLED)
    if core.prompts.closed(PromptVia.SERVER_REQUEST, event.reply_id, reason):
        return
    row = core.approvals.find(RowKind.SERVER_REQUEST, event.reply_id)
    if row is not None:
        core.approvals.withdrawn(row, outcomes.cancelled(event.reason))


def _settled(core: CoreState, event: PromptSettled) -> None:
    ended = prompt_book.EXPIRED if event.expired else prompt_book.ANSWERED_ELSEWHERE
    generation = event.execution_generation
    if core.prompts.closed(PromptVia.CANONICAL, event.prompt_id, ended, generation):
        return
    row = core.approvals.find(RowKind.PROMPT, event.prompt_id, event.execution_generation)
    if row is not None:
        core.approvals.settled_elsewhere(row, event.expired)
