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
from typing import Any

from desktop.core import outcomes, payloads
from desktop.core.approvals import ApprovalMachine
from desktop.core.connection import Link
from desktop.core.dialects import GONE_REASONS, SESSION_NOT_FOUND
from desktop.core.events import (
    CoreEvent,
    HandshakeCompleted,
    NoticeReceived,
    ProtocolErrorReceived,
    RpcError,
    RpcResponded,
    SessionRemoved,
)
from desktop.core.following import Following
from desktop.core.jsonrpc import ResponseFrame, excerpt
from desktop.core.model import Dialect, TodoList
from desktop.core.outbox import Outbox, PendingCall, Purpose
from desktop.core.prompt_book import PromptBook
from desktop.core.reports import parse_todos
from desktop.core.session_state import SessionBook
from desktop.core.wire import ApprovalAsked, RowKind
from desktop.core.wire_effects import WireEffects

STORED_SESSION_NOT_FOUND = 4007
SNAPSHOT_METHODS = frozenset({"session.resume", "session.activate"})


class Responses:
    """Reads every answer to a request the core or the app sent, and folds it in."""

    def __init__(
        self,
        sessions: SessionBook,
        lifecycle: ApprovalMachine,
        prompts: PromptBook,
        outbox: Outbox,
        link: Link,
        following: Following,
        effects: WireEffects,
        events: list[CoreEvent],
    ) -> None:
        self._sessions, self._lifecycle, self._prompts = sessions, lifecycle, prompts
        self._outbox, self._link, self._following = outbox, link, following
        self._effects, self._emit = effects, events.append

    def handle(self, frame: ResponseFrame) -> None:
        if frame.rpc_id is None:
            message = frame.error.message if frame.error else ""
            error = ProtocolErrorReceived("the gateway could not read a frame", excerpt(message))
            self._emit(error)
            return
        call = self._outbox.take_call(frame.rpc_id) if isinstance(frame.rpc_id, int) else None
        if call is None or call.epoch != self._link.epoch:
            return  # not ours, or from a connection that is gone
        if call.purpose is Purpose.CAPABILITIES:
            result = frame.result if frame.error is None else None
            self.handshake_done(self._link.handshake.capabilities(result))
        elif call.purpose is Purpose.DECISION:
            self._decision_answered(call, frame)
        elif call.purpose is Purpose.RESUME:
            self._resume_answered(call, frame)
        elif call.purpose is Purpose.PENDING:
            if frame.result is not None:
                self.reconcile_pending(call.session_id, frame.result, call.watermark)
            elif frame.error is not None and _gone(frame.error):
                self._observed_gone(call.session_id)
        elif call.purpose is Purpose.PROMPT:
            self._answer_replied(call, frame)
        else:
            self.fold_app_result(call, frame)
            self._emit(RpcResponded(call.rpc_id, frame.result, frame.error))

    def _answer_replied(self, call: PendingCall, frame: ResponseFrame) -> None:
        """A clarify answer the gateway did not take: the person learns it went nowhere."""
        result = frame.result if frame.error is None else None
        prompt = self._prompts.answer_replied(call.rpc_id, result)
        if prompt is not None:
            question = excerpt(prompt.question, 80)
            text = f"Your answer to \u201c{question}\u201d was not taken: the question had expired."
            self._emit(NoticeReceived(call.session_id, text, "warning"))

    def handshake_done(self, dialect: Dialect) -> None:
        """The dialect is fixed: announce it, resume every followed session, poll 0.20's lists."""
        link, shake = self._link, self._link.handshake
        link.use(dialect)
        self._lifecycle.connection_opened(dialect, link.adapter.answers, link.epoch)
        self._prompts.rejudge(dialect)
        self._emit(
            HandshakeCompleted(dialect, link.epoch, shake.server_requests, shake.replay_epoch)
        )
        link.resubscribe_all()
        if dialect is not Dialect.HERMES020:
            self._following.stop_observing()  # another protocol now: what was observed is read-only
        else:  # what still waits (and what was asked while away)
            for session in self._sessions.followed():
                link.poll_pending(session.session_id)

    def fold_app_result(self, call: PendingCall, frame: ResponseFrame) -> None:
        method, params = call.method, call.params
        session_id = payloads.text(params, "session_id")
        if frame.error is not None:
            if method in SNAPSHOT_METHODS and _gone(frame.error):
                known = self._known_session(session_id)
                if known:
                    self._following.remove(known, "not found")
            return
        result = frame.result or payloads.EMPTY
        if method == "session.create":  # nothing to fold without its session_id
            self.fold_snapshot(None, result, call.watermark, fresh=True)
        elif method in SNAPSHOT_METHODS:
            self.fold_snapshot(self._known_session(session_id), result, call.watermark)
        elif method == "session.usage" and self._sessions.get(session_id) is not None:
            self._sessions.apply_usage(session_id, result)
        elif method in ("config.get", "config.set"):
            key = payloads.text(params, "key") or payloads.text(result, "key")
            self.apply_config_result(session_id, key, result, call.rpc_id)
        elif method == "session.close" and session_id:
            self._following.remove(session_id, "closed")
        elif method == "session.interrupt" and self._sessions.get(session_id) is not None:
            self._lifecycle.turn_ended(session_id, outcomes.INTERRUPTED, interrupted=True)
        elif method == "approval.pending" and self._sessions.get(session_id) is not None:
            self.reconcile_pending(session_id, result, call.watermark)

    def apply_config_result(
        self, session_id: str, key: str, result: Mapping[str, Any], sent: int
    ) -> None:
        """A ``config.get``/``config.set`` result for ``yolo`` or the approval mode ("": global)."""
        value = result.get("value")
        if key == "yolo":
            on = payloads.truthy_setting(value)
            if on is None:
                return
            if payloads.text(result, "scope") == "global":
                self._sessions.set_mode_everywhere("off" if on else "manual")
            elif self._sessions.get(session_id) is not None:
                self._sessions.set_config_yolo(session_id, on, sent=sent)
        elif key in ("approvals.mode", "approval_mode") and isinstance(value, str):
            mode = value.strip().lower()
            if self._sessions.get(session_id) is not None:
                self._sessions.set_mode(session_id, mode)
            else:
                self._sessions.set_mode_everywhere(mode)

    def _decision_answered(self, call: PendingCall, frame: ResponseFrame) -> None:
        row = self._lifecycle.get(call.approval_key)
        if row is None or row.decision is None:
            return
        code, reason = (frame.error.code, frame.error.reason) if frame.error else (None, "")
        outcome = self._link.adapter.decision_outcome(row.decision, frame.result, code, reason)
        self._lifecycle.answered(row, outcome)
        self._link.poll_pending(row.session_id)  # what else the answer ended (0.20)

    def _resume_answered(self, call: PendingCall, frame: ResponseFrame) -> None:
        if frame.result is not None:
            self.fold_snapshot(call.session_id, frame.result, call.watermark)
        elif frame.error is not None and _gone(frame.error):
            self._following.remove(call.session_id, "not found")
        elif frame.error is not None:
            text = f"could not follow the session again: {excerpt(frame.error.message, 160)}"
            self._emit(NoticeReceived(call.session_id, text, "warning"))

    def _observed_gone(self, session_id: str) -> None:
        """0.20 says 4001 to the pending list of a session it no longer has: its rows end."""
        if self._sessions.is_observed(session_id):
            self._following.remove(session_id, "not found")

    def _known_session(self, ident: str) -> str | None:
        """The runtime id the tray knows for ``ident`` (a runtime id or a stored id)."""
        if self._sessions.get(ident) is not None:
            return ident
        found = self._sessions.by_stored_id(ident) if ident else None
        return found.session_id if found else None

    def fold_snapshot(
        self,
        known_id: str | None,
        snapshot: Mapping[str, Any],
        watermark: int,
        *,
        fresh: bool = False,
    ) -> str | None:
        """Fold a resume/activate (``fresh``: create) result; returns the runtime id."""
        runtime, sessions = payloads.text(snapshot, "session_id") or known_id, self._sessions
        if not runtime:
            return None
        if known_id and known_id != runtime and sessions.get(known_id) is not None:
            self._migrate(known_id, runtime)
        sessions.ensure(runtime)
        if fresh:
            sessions.mark_started(runtime)
        if not sessions.is_followed(runtime) or sessions.is_observed(runtime):  # it follows it now
            self._following.follow(runtime)
        stored = payloads.text(snapshot, "stored_session_id")
        stored = stored or payloads.text(snapshot, "session_key")
        if stored:
            sessions.update(runtime, stored_session_id=stored)
        info = payloads.mapping(snapshot, "info")
        if info is not None:
            sessions.apply_info(runtime, info, mark=self._outbox.issued)
        usage = payloads.mapping(snapshot, "usage")
        if usage is not None:
            sessions.apply_usage(runtime, usage)
        self._fold_todo_state(runtime, snapshot)
        generation = payloads.integer(snapshot, "execution_generation")
        if generation is not None:
            sessions.update(runtime, execution_generation=generation)
        self._reconcile_requests(runtime, snapshot, watermark)
        self._effects.apply(self._link.adapter.snapshot_prompts(snapshot))
        running = payloads.flag(snapshot, "running")
        if running is None and info is not None:
            running = payloads.flag(info, "running")
        if running is not None:
            sessions.set_running(runtime, running)
        if running is False:
            self._lifecycle.turn_ended(runtime, outcomes.SESSION_STOPPED)
        elif running and not fresh and RowKind.FIFO in self._link.adapter.answers:
            self._lifecycle.doubt_head(runtime, watermark)
        return runtime

    def reconcile_pending(self, session_id: str, result: Mapping[str, Any], watermark: int) -> None:
        """``approval.pending {approvals: [{request_id, ...}]}``: close rows no longer pending."""
        items = payloads.objects(result, "approvals")
        if items is not None:
            for event in self._link.adapter.pending_requests(session_id, items):
                if isinstance(event, ApprovalAsked):
                    self._effects.ask(event)  # 0.20: also what was asked while the tray was away
            pending = [payloads.text(item, "request_id") for item in items]
            self._lifecycle.pending_listed(session_id, pending, watermark)

    def _reconcile_requests(
        self, session_id: str, snapshot: Mapping[str, Any], watermark: int
    ) -> None:
        delivered = self._link.adapter.snapshot_requests(snapshot)
        if delivered is None:
            return
        listed: set[str] = set()
        for event in delivered:
            if isinstance(event, ApprovalAsked):
                listed.add(self._effects.ask(event).key)
            else:
                self._effects.apply((event,))
        self._lifecycle.listed(session_id, listed, watermark)

    def _fold_todo_state(self, session_id: str, snapshot: Mapping[str, Any]) -> None:
        """``todo_state``: null clears the plan, a missing key keeps it (older gateways)."""
        if "todo_state" not in snapshot:
            return
        state = snapshot["todo_state"]
        if state is None:
            self._sessions.apply_todos(session_id, TodoList(), authoritative=True)
        elif isinstance(state, payloads.OBJECT):
            todos = parse_todos(state.get("todos"), state.get("revision"))
            if todos is not None:
                self._sessions.apply_todos(session_id, todos, authoritative=True)

    def _migrate(self, old: str, new: str) -> None:
        """tui_gateway rebuilt the session under a new runtime id; the old one's rows are gone."""
        self._lifecycle.session_gone(old, outcomes.withdrawn(outcomes.SESSION_GONE))
        self._sessions.rename(old, new)
        self._emit(SessionRemoved(old, f"resumed as {new}"))


def _gone(error: RpcError) -> bool:
    """A refusal meaning "this session is gone for this viewer" (canonical: ``data.reason``)."""
    if error.reason:
        return error.reason in GONE_REASONS
    return error.code in (STORED_SESSION_NOT_FOUND, SESSION_NOT_FOUND)
