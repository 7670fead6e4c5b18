"""Answers to requests: the handshake, decisions, resumes, pending lists and the app's calls.

Results of the app's calls that carry shown state (a new session, usage, YOLO and approval
mode, a close, an interrupt) are folded in here, so no caller has to remember it; the app
still gets every answer as ``RpcResponded`` (the core's own requests produce none).

A resume snapshot re-delivers its open requests (B ``open_requests``, C ``prompts``) onto the
rows already shown; open rows it no longer lists were settled elsewhere, but only rows that
arrived before the request was sent (its *watermark*) are judged. 0.19.0 lists no approvals:
its rows stay STALE unless the session stopped, and when a resume finds it running, approvals
published meanwhile are lost to the tray, so its FIFO head is in doubt until the turn ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from desktop.core import outcomes, payloads
from desktop.core.connection import poll_pending, resubscribe_all
from desktop.core.dialects import GONE_REASONS
from desktop.core.events import (
    HandshakeCompleted,
    NoticeReceived,
    ProtocolErrorReceived,
    RpcError,
    RpcResponded,
    SessionRemoved,
)
from desktop.core.jsonrpc import ResponseFrame, excerpt
from desktop.core.model import Dialect, TodoList
from desktop.core.observed import forget, stop_observing
from desktop.core.outbox import PendingCall, Purpose
from desktop.core.reports import parse_todos
from desktop.core.wire import ApprovalAsked, RowKind
from desktop.core.wire_effects import APPLY, ask

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

STORED_SESSION_NOT_FOUND = 4007
SESSION_NOT_FOUND = 4001
SNAPSHOT_METHODS = frozenset({"session.resume", "session.activate"})


def handle_response(core: GatewayCore, frame: ResponseFrame) -> None:
    if frame.rpc_id is None:
        message = frame.error.message if frame.error else ""
        core.emit(ProtocolErrorReceived("the gateway could not read a frame", excerpt(message)))
        return
    call = core.outbox.take_call(frame.rpc_id) if isinstance(frame.rpc_id, int) else None
    if call is None or call.epoch != core.epoch:
        return  # not ours, or from a connection that is gone
    if call.purpose is Purpose.CAPABILITIES:
        dialect = core.handshake.capabilities(frame.result if frame.error is None else None)
        handshake_done(core, dialect)
    elif call.purpose is Purpose.DECISION:
        _decision_answered(core, call, frame)
    elif call.purpose is Purpose.RESUME:
        _resume_answered(core, call, frame)
    elif call.purpose is Purpose.PENDING:
        if frame.result is not None:
            reconcile_pending(core, call.session_id, frame.result, call.watermark)
        elif frame.error is not None and _gone(frame.error):
            _observed_gone(core, call.session_id)
    elif call.purpose is Purpose.PROMPT:
        _answer_replied(core, call, frame)
    else:
        fold_app_result(core, call, frame)
        core.emit(RpcResponded(call.rpc_id, frame.result, frame.error))


def _answer_replied(core: GatewayCore, call: PendingCall, frame: ResponseFrame) -> None:
    """A clarify answer the gateway did not take: the person learns it went nowhere."""
    result = frame.result if frame.error is None else None
    prompt = core.prompt_book.answer_replied(call.rpc_id, result)
    if prompt is not None:
        question = excerpt(prompt.question, 80)
        text = f"Your answer to \u201c{question}\u201d was not taken: the question had expired."
        core.emit(NoticeReceived(call.session_id, text, "warning"))


def handshake_done(core: GatewayCore, dialect: Dialect) -> None:
    """The dialect is fixed: announce it, resume every followed session, poll 0.20's lists."""
    core.use_dialect(dialect)
    core.lifecycle.connection_opened(dialect, core.adapter.answers, core.epoch)
    core.prompt_book.rejudge(dialect)
    core.emit(
        HandshakeCompleted(
            dialect, core.epoch, core.handshake.server_requests, core.handshake.replay_epoch
        )
    )
    resubscribe_all(core)
    if dialect is not Dialect.HERMES020:
        stop_observing(core)  # another protocol now: what was observed is read-only
    else:  # what still waits (and what was asked while away)
        for session in core.session_book.followed():
            poll_pending(core, session.session_id)


def fold_app_result(core: GatewayCore, call: PendingCall, frame: ResponseFrame) -> None:
    method, params = call.method, call.params
    session_id = payloads.text(params, "session_id")
    if frame.error is not None:
        if method in SNAPSHOT_METHODS and _gone(frame.error):
            known = _known_session(core, session_id)
            if known:
                core.remove_session(known, "not found", outcomes.withdrawn(outcomes.SESSION_GONE))
        return
    result = frame.result or payloads.EMPTY
    if method == "session.create":  # nothing to fold without its session_id
        fold_snapshot(core, None, result, call.watermark, fresh=True)
    elif method in SNAPSHOT_METHODS:
        fold_snapshot(core, _known_session(core, session_id), result, call.watermark)
    elif method == "session.usage" and core.session_book.get(session_id) is not None:
        core.session_book.apply_usage(session_id, result)
    elif method in ("config.get", "config.set"):
        key = payloads.text(params, "key") or payloads.text(result, "key")
        apply_config_result(core, session_id, key, result, call.rpc_id)
    elif method == "session.close" and session_id:
        core.remove_session(session_id, "closed", outcomes.withdrawn(outcomes.SESSION_GONE))
    elif method == "session.interrupt" and core.session_book.get(session_id) is not None:
        core.lifecycle.turn_ended(session_id, outcomes.INTERRUPTED, interrupted=True)
    elif method == "approval.pending" and core.session_book.get(session_id) is not None:
        reconcile_pending(core, session_id, result, call.watermark)


def apply_config_result(
    core: GatewayCore, session_id: str, key: str, result: Mapping[str, Any], sent: int
) -> None:
    """A ``config.get``/``config.set`` result for ``yolo`` or the approval mode ("": global)."""
    value = result.get("value")
    if key == "yolo":
        on = payloads.truthy_setting(value)
        if on is None:
            return
        if payloads.text(result, "scope") == "global":
            core.session_book.set_mode_everywhere("off" if on else "manual")
        elif core.session_book.get(session_id) is not None:
            core.session_book.set_config_yolo(session_id, on, sent=sent)
    elif key in ("approvals.mode", "approval_mode") and isinstance(value, str):
        mode = value.strip().lower()
        if core.session_book.get(session_id) is not None:
            core.session_book.set_mode(session_id, mode)
        else:
            core.session_book.set_mode_everywhere(mode)


def _decision_answered(core: GatewayCore, call: PendingCall, frame: ResponseFrame) -> None:
    row = core.lifecycle.get(call.approval_key)
    if row is None or row.decision is None:
        return
    code, reason = (frame.error.code, frame.error.reason) if frame.error else (None, "")
    outcome = core.adapter.decision_outcome(row.decision, frame.result, code, reason)
    core.lifecycle.answered(row, outcome)
    poll_pending(core, row.session_id)  # what else the answer ended (0.20)


def _resume_answered(core: GatewayCore, call: PendingCall, frame: ResponseFrame) -> None:
    if frame.result is not None:
        fold_snapshot(core, call.session_id, frame.result, call.watermark)
    elif frame.error is not None and _gone(frame.error):
        core.remove_session(call.session_id, "not found", outcomes.withdrawn(outcomes.SESSION_GONE))
    elif frame.error is not None:
        text = f"could not follow the session again: {excerpt(frame.error.message, 160)}"
        core.emit(NoticeReceived(call.session_id, text, "warning"))


def _observed_gone(core: GatewayCore, session_id: str) -> None:
    """0.20 says 4001 to the pending list of a session it no longer has: its rows end."""
    if core.session_book.is_observed(session_id):
        forget(core, session_id)
        core.remove_session(session_id, "not found", outcomes.withdrawn(outcomes.SESSION_GONE))


def _gone(error: RpcError) -> bool:
    """A refusal meaning "this session is gone for this viewer" (canonical: ``data.reason``)."""
    if error.reason:
        return error.reason in GONE_REASONS
    return error.code in (STORED_SESSION_NOT_FOUND, SESSION_NOT_FOUND)


def _known_session(core: GatewayCore, ident: str) -> str | None:
    """The runtime id the tray knows for ``ident`` (a runtime id or a stored id)."""
    if core.session_book.get(ident) is not None:
        return ident
    found = core.session_book.by_stored_id(ident) if ident else None
    return found.session_id if found else None


def fold_snapshot(
    core: GatewayCore,
    known_id: str | None,
    snapshot: Mapping[str, Any],
    watermark: int,
    *,
    fresh: bool = False,
) -> str | None:
    """Fold a resume/activate (``fresh``: create) result; returns the runtime id."""
    runtime = payloads.text(snapshot, "session_id") or known_id
    if not runtime:
        return None
    if known_id and known_id != runtime and core.session_book.get(known_id) is not None:
        _migrate(core, known_id, runtime)
    sessions = core.session_book
    sessions.ensure(runtime)
    if fresh:
        sessions.mark_started(runtime)
    if not sessions.is_followed(runtime) or sessions.is_observed(runtime):  # it follows it now
        sessions.follow(runtime)
        core.follow_changed()
    stored = payloads.text(snapshot, "stored_session_id") or payloads.text(snapshot, "session_key")
    if stored:
        sessions.update(runtime, stored_session_id=stored)
    info = payloads.mapping(snapshot, "info")
    if info is not None:
        sessions.apply_info(runtime, info, mark=core.outbox.issued)
    usage = payloads.mapping(snapshot, "usage")
    if usage is not None:
        sessions.apply_usage(runtime, usage)
    _fold_todo_state(core, runtime, snapshot)
    generation = payloads.integer(snapshot, "execution_generation")
    if generation is not None:
        sessions.update(runtime, execution_generation=generation)
    _reconcile_requests(core, runtime, snapshot, watermark)
    for event in core.adapter.snapshot_prompts(snapshot):
        APPLY[type(event)](core, event)
    running = payloads.flag(snapshot, "running")
    if running is None and info is not None:
        running = payloads.flag(info, "running")
    if running is not None:
        sessions.set_running(runtime, running)
    if running is False:
        core.lifecycle.turn_ended(runtime, outcomes.SESSION_STOPPED)
    elif running and not fresh and RowKind.FIFO in core.adapter.answers:
        core.lifecycle.doubt_head(runtime, watermark)
    return runtime


def reconcile_pending(
    core: GatewayCore, session_id: str, result: Mapping[str, Any], watermark: int
) -> None:
    """``approval.pending {approvals: [{request_id, ...}]}``: close rows no longer pending."""
    items = payloads.objects(result, "approvals")
    if items is not None:
        for event in core.adapter.pending_requests(session_id, items):
            if isinstance(event, ApprovalAsked):
                ask(core, event)  # 0.20: also what was asked while the tray was away
        pending = [payloads.text(item, "request_id") for item in items]
        core.lifecycle.pending_listed(session_id, pending, watermark)


def _reconcile_requests(
    core: GatewayCore, session_id: str, snapshot: Mapping[str, Any], watermark: int
) -> None:
    delivered = core.adapter.snapshot_requests(snapshot)
    if delivered is None:
        return
    listed: set[str] = set()
    for event in delivered:
        if isinstance(event, ApprovalAsked):
            listed.add(ask(core, event).key)
        else:
            APPLY[type(event)](core, event)
    core.lifecycle.listed(session_id, listed, watermark)


def _fold_todo_state(core: GatewayCore, session_id: str, snapshot: Mapping[str, Any]) -> None:
    """``todo_state``: null clears the plan, a missing key keeps it (older gateways)."""
    if "todo_state" not in snapshot:
        return
    state = snapshot["todo_state"]
    if state is None:
        core.session_book.apply_todos(session_id, TodoList(), authoritative=True)
    elif isinstance(state, payloads.OBJECT):
        todos = parse_todos(state.get("todos"), state.get("revision"))
        if todos is not None:
            core.session_book.apply_todos(session_id, todos, authoritative=True)


def _migrate(core: GatewayCore, old: str, new: str) -> None:
    """tui_gateway rebuilt the session under a new runtime id; the old one's requests are gone."""
    core.lifecycle.session_gone(old, outcomes.withdrawn(outcomes.SESSION_GONE))
    core.session_book.rename(old, new)
    core.emit(SessionRemoved(old, f"resumed as {new}"))
