"""What each wire event does to sessions and approvals.

Why the staleness rules live here: 0.19.0 never says when a card is withdrawn, so the only
signs are a ``tool.complete`` for the command, the end of the turn, or ``running: false``
(protocol.md §3.2). When one of them arrives while a FIFO row still waits, the core stops
offering it (WITHDRAWN "settled elsewhere", or EXPIRED when it looks like the server's
timeout), because answering it now would resolve whatever the session asks next. Rows that are
SENDING are left to the answer of their own request, unless that answer certainly never leaves:
then they end as the sign said instead of waiting again (``ApprovalBook.end_if_unsent``). Newer
gateways say it explicitly (``request.cancel``, ``approval.settled``); their rows are also
closed when the turn ends.
"""

from __future__ import annotations

from desktop.core import answer_rules, outcomes
from desktop.core.answer_rules import in_margin
from desktop.core.approval_rows import OPEN_WAITING, Row
from desktop.core.core_state import CoreState
from desktop.core.events import NoticeReceived, ProtocolErrorReceived
from desktop.core.jsonrpc import encode_error
from desktop.core.model import ApprovalPhase, Outcome
from desktop.core.resubscribe import resume
from desktop.core.wire import (
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

OTHER_TOOL_FINISHED = "another tool finished while this waited; answer only if Hermes shows it"


def apply_wire(core: CoreState, event: WireEvent) -> None:
    """Apply one wire event."""
    sessions = core.sessions
    match event:
        case ApprovalAsked():
            ask(core, event)
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
        case ToolStarted(session_id, tool_id):
            sessions.ensure(session_id)
            core.approvals.note_tool_started(session_id, tool_id)
        case ToolCompleted():
            _tool_completed(core, event)
        case GenerationSeen(session_id, generation):
            sessions.ensure(session_id)
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
    """A request arrived (or was re-delivered): add its row, or confirm the existing one.

    When the gateway re-uses an id for another request, the rows that id meant until now are
    closed first (:func:`_replaced`): the person sees the new request as a new row. If an answer
    to one of them already left under the very address the new request now has, the gateway may
    take it for the new one: that row starts STALE (``answer_rules.ANSWER_UNDER_ID``).
    """
    core.sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
    doubt = ""
    for old in core.approvals.replaced_by(asked):
        left = not _replaced(core, old)
        if left and old.asked.execution_generation == asked.execution_generation:
            doubt = answer_rules.ANSWER_UNDER_ID
    return core.approvals.ask(asked, core.now(), core.epoch, core.context(), doubt)


def _replaced(core: CoreState, row: Row) -> bool:
    """An answer to ``row`` would now land on another request: it is never sent.

    A decision still queued is taken back; one that already left is settled by its own answer
    (it left while the id still meant what the person saw). False in that case.
    """
    if row.phase is ApprovalPhase.SENDING:
        frame = row.decision_frame
        if frame is None or not core.outbox.withdraw(frame):
            return False
    core.resolve(row, outcomes.withdrawn(outcomes.REPLACED))
    return True


def settle_session(
    core: CoreState, session_id: str, reason: str, *, interrupted: bool = False
) -> None:
    """The session's turn is over: every row still waiting there can no longer be answered."""
    core.approvals.trust_head(session_id)
    for row in core.approvals.open_rows(session_id):
        if row.phase in OPEN_WAITING:
            core.resolve(row, _ended(core, row, reason, interrupted))
        else:
            core.approvals.end_if_unsent(row, _ended(core, row, reason, interrupted))


def _ended(core: CoreState, row: Row, reason: str, interrupted: bool) -> Outcome:
    if interrupted:
        return outcomes.withdrawn(outcomes.INTERRUPTED)
    if row.kind is RowKind.FIFO and in_margin(
        row.approval, core.now(), core.settings.staleness_margin
    ):
        return outcomes.expired()
    return outcomes.withdrawn(reason)


def _turn_ended(core: CoreState, event: TurnEnded) -> None:
    if event.usage is not None:
        core.sessions.apply_usage(event.session_id, event.usage)
    core.sessions.set_running(event.session_id, False)
    core.approvals.turn_boundary(event.session_id)
    interrupted = event.status == "interrupted"
    settle_session(core, event.session_id, outcomes.TURN_ENDED, interrupted=interrupted)


def _tool_completed(core: CoreState, event: ToolCompleted) -> None:
    core.sessions.ensure(event.session_id)
    core.approvals.note_tool_finished(event.session_id, event.tool_id)
    if event.todos is not None:
        core.sessions.apply_todos(event.session_id, event.todos)
    for row in core.approvals.open_rows(event.session_id):
        if row.kind is not RowKind.FIFO:
            continue
        if row.tool_id and event.tool_id and row.tool_id != event.tool_id:
            core.approvals.mark_stale(row, OTHER_TOOL_FINISHED)
            continue
        gave_up = event.timed_out or (
            event.blocked and in_margin(row.approval, core.now(), core.settings.staleness_margin)
        )
        settled = outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
        outcome = outcomes.expired() if gave_up else settled
        if row.phase is ApprovalPhase.SENDING:
            core.approvals.end_if_unsent(row, outcome)  # its own answer may be what ended it
        else:
            core.resolve(row, outcome)


def _cancelled(core: CoreState, event: RequestCancelled) -> None:
    row = core.approvals.find(RowKind.SERVER_REQUEST, event.reply_id)
    if row is None or row.phase is ApprovalPhase.RESOLVED:
        return
    if row.decision_frame is not None:
        core.outbox.withdraw(row.decision_frame)  # nothing is sent after a cancel
    core.resolve(row, outcomes.cancelled(event.reason))


def _settled(core: CoreState, event: PromptSettled) -> None:
    row = core.approvals.find(RowKind.PROMPT, event.prompt_id, event.execution_generation)
    if row is None or row.phase is ApprovalPhase.RESOLVED:
        return
    if row.phase is ApprovalPhase.SENDING and row.decision is not None:
        frame = row.decision_frame
        if frame is None or not core.outbox.withdraw(frame):
            core.resolve(row, outcomes.decided(row.decision))  # our answer is what settled it
            return
    settled = outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
    core.resolve(row, outcomes.expired() if event.expired else settled)
