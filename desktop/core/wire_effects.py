"""What each frame does to sessions, approvals and prompts, and what each answer folds in.

Events every dialect shapes alike are applied here (``WireEffects.events``), and so are server
requests and the events that end requests (those the adapter ``ends``); approvals and prompts
are shaped per dialect, so the adapter reads them into values applied here. Which row each 0.19.0 sign (``tool.complete``, the turn's
end, ``running: false``) ends, and how, is the lifecycle's transition table.

Results of the app's calls that carry shown state (a new session, usage, YOLO and approval
mode, a close, an interrupt) are folded in here too. A resume snapshot re-delivers its open
requests onto the rows already shown; open rows it no longer lists were settled elsewhere, but
only rows that arrived before the request was sent (its *watermark*) are judged. 0.19.0 lists
no approvals: when a resume finds it running, its FIFO head is in doubt until the turn ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import outcomes, payloads, prompt_book, window_requests
from desktop.core.approvals import ApprovalMachine, Row
from desktop.core.connection import Link
from desktop.core.dialects import (
    GONE_REASONS,
    PROMPT_EXPIRES,
    PROMPT_METHODS,
    SESSION_NOT_FOUND,
    server_request_approval,
    server_request_prompt,
)
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
from desktop.core.jsonrpc import (
    INVALID_PARAMS,
    EventFrame,
    ResponseFrame,
    ServerRequestFrame,
    encode_error,
    excerpt,
)
from desktop.core.model import Dialect, TodoList
from desktop.core.outbox import Outbox, PendingCall, Purpose
from desktop.core.prompt_book import PromptBook
from desktop.core.reports import parse_todos, todos_in, todos_of_tool
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings
from desktop.core.wire import (
    ApprovalAsked,
    PromptOpened,
    PromptVia,
    RowKind,
    ToolCompleted,
    WireEvent,
)

NOTICE_CHARS = 4000
NAME_CHARS = 80
STORED_SESSION_NOT_FOUND = 4007
SNAPSHOT_METHODS = frozenset({"session.resume", "session.activate"})


class WireEffects:
    """Applies what frames and answers say to the sessions, approvals and prompts it is given."""

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
        self._ends: dict[str, Callable[[EventFrame], None]] = {  # as the adapter takes them
            "request.cancel": self._cancelled,
            "approval.settled": self._settled,
            "clarify.settled": self._settled,
            **dict.fromkeys(PROMPT_EXPIRES, self._prompt_expired),
        }

    def event(self, frame: EventFrame) -> None:
        """One event: what the dialect reads (or ends) its own way, else what all share."""
        adapter = self._link.adapter
        if adapter.dialect is Dialect.C:  # any canonical event may carry the generation
            self._stamp_generation(frame)
        read = adapter.event_handlers.get(frame.type)
        if read is not None:  # approvals and prompts
            for event in read(adapter, frame):
                self._heard(event)
        elif frame.type in adapter.ends:
            self._ends[frame.type](frame)
        elif (handler := self.events.get(frame.type)) is not None:
            handler(frame)

    def _heard(self, event: WireEvent | ServerRequestFrame) -> Row | None:
        if isinstance(event, ServerRequestFrame):
            return self.server_request(event)
        if isinstance(event, ApprovalAsked):
            return self.ask(event)
        if isinstance(event, PromptOpened):
            self._first_seen(event.session_id)
            self._prompts.opened(event, self._link.epoch, self._link.dialect)
        else:
            self._emit(event)
        return None

    def server_request(self, frame: ServerRequestFrame) -> Row | None:
        """Approvals become rows, clarify/sudo/secret prompts; the rest is a window's."""
        epoch = self._link.epoch
        if frame.method in PROMPT_METHODS:
            return self._heard(server_request_prompt(frame))
        if frame.method != "approval":
            self._window_requested(frame)
            return None
        asked = server_request_approval(frame, self._settings.max_command_chars)
        if isinstance(asked, ProtocolErrorReceived):
            self._emit(asked)
            error = encode_error(frame.request_id, INVALID_PARAMS, asked.reason)
            self._outbox.reply(error, epoch)
            return None
        return self.ask(asked)

    def ask(self, asked: ApprovalAsked) -> Row:
        """A request arrived (or was re-delivered): its row, new or known."""
        sessions = self._sessions
        if self._first_seen(asked.session_id) and asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
        sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
        return self._lifecycle.asked(asked, self._link.epoch)

    def _stamp_generation(self, frame: EventFrame) -> None:
        """A canonical event's stamp: the session's current execution generation."""
        generation = payloads.integer(frame.params, "execution_generation")
        known = frame.session_id and self._sessions.get(frame.session_id) is not None
        if generation is not None and known:  # else the request it stamps says it
            self._sessions.update(frame.session_id, execution_generation=generation)

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
            command=payloads.text(args, "command")[:NOTICE_CHARS] if args is not None else "",
            exit_code=payloads.integer(ran, "exit_code"),
            output=payloads.text(ran, "output")[:NOTICE_CHARS],
            approval_note=payloads.text(ran, "approval")[:NOTICE_CHARS],
        )
        self._sessions.ensure(event.session_id)
        if (todos := todos_of_tool(payload)) is not None:
            self._sessions.apply_todos(event.session_id, todos)
        self._lifecycle.tool_completed(event)
        self._prompts.tool_completed(event.session_id, event.name)

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

    def _prompt_expired(self, frame: EventFrame) -> None:
        """0.19.0 / 0.20: ``sudo.expire`` / ``secret.expire`` (and ``clarify.expire``, if sent)."""
        request_id = payloads.text(frame.payload, "request_id")
        if request_id:
            self._prompts.closed(PromptVia.EVENT, request_id, prompt_book.EXPIRED)

    def _cancelled(self, frame: EventFrame) -> None:
        """``request.cancel``: ``{id, method, reason}`` in the payload (measured), else params."""
        source = frame.payload if "id" in frame.payload else frame.params
        reply_id = payloads.wire_id(source.get("id"))
        if reply_id is None:
            return
        why = payloads.text(source, "reason")
        reason = prompt_book.CANCEL_REASONS.get(why, prompt_book.CANCELLED)
        if self._prompts.closed(PromptVia.SERVER_REQUEST, reply_id, reason):
            return
        row = self._lifecycle.find(RowKind.SERVER_REQUEST, reply_id)
        if row is not None:
            self._lifecycle.withdrawn(row, outcomes.cancelled(why))

    def _settled(self, frame: EventFrame) -> None:
        """``approval.settled {prompt_id, execution_generation}``; an expiry if it says so."""
        prompt_id = payloads.text(frame.payload, "prompt_id")
        if not prompt_id:
            return
        why = payloads.text(frame.payload, "reason") + payloads.text(frame.payload, "status")
        expired = "expire" in why.lower() or "timeout" in why.lower()
        generation = payloads.integer(frame.payload, "execution_generation")
        ended = prompt_book.EXPIRED if expired else prompt_book.ANSWERED_ELSEWHERE
        if self._prompts.closed(PromptVia.CANONICAL, prompt_id, ended, generation):
            return
        row = self._lifecycle.find(RowKind.PROMPT, prompt_id, generation)
        if row is not None:
            self._lifecycle.settled_elsewhere(row, expired)

    def _window_requested(self, frame: ServerRequestFrame) -> None:
        """Decline with the gateway's not-shown code, or send nothing (see window_requests)."""
        code = window_requests.decline_code(
            frame.method,
            declines_not_shown=self._link.declines_not_shown,
            owner_quorum=frame.params is not None and frame.params.get("owner_quorum") is True,
        )
        if code is not None:
            message = window_requests.DECLINE_MESSAGE
            self._outbox.reply(encode_error(frame.request_id, code, message), self._link.epoch)

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
            self.handshake_done(self._link.capabilities(result))
        elif call.purpose is Purpose.DECISION:
            self._decision_answered(call, frame)
        elif call.purpose is Purpose.RESUME:
            self._resume_answered(call, frame)
        elif call.purpose is Purpose.PENDING:
            if frame.result is not None:
                self.reconcile_pending(call.session_id, frame.result, call.watermark)
            elif frame.error and _gone(frame.error) and self._sessions.is_observed(call.session_id):
                self._following.remove(call.session_id, "not found")  # 0.20 no longer has it
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
        link = self._link
        link.use(dialect)
        self._lifecycle.connection_opened(dialect, link.adapter.answers, link.epoch)
        self._prompts.rejudge(dialect)
        self._emit(HandshakeCompleted(dialect, link.epoch, link.server_requests, link.replay_epoch))
        followed = self._sessions.followed()
        for session in followed:
            link.resume(session.session_id)
        if dialect is not Dialect.HERMES020:
            self._following.stop_observing()  # another protocol now: what was observed is read-only
        else:  # what still waits (and what was asked while away)
            for session in followed:
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
        for event in self._link.adapter.snapshot_prompts(snapshot):
            self._heard(event)
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
                    self.ask(event)  # 0.20: also what was asked while the tray was away
            pending = [payloads.text(item, "request_id") for item in items]
            self._lifecycle.pending_listed(session_id, pending, watermark)

    def _reconcile_requests(
        self, session_id: str, snapshot: Mapping[str, Any], watermark: int
    ) -> None:
        delivered = self._link.adapter.snapshot_requests(snapshot)
        if delivered is None:
            return
        rows = [self._heard(event) for event in delivered]
        self._lifecycle.listed(session_id, {row.key for row in rows if row}, watermark)

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


def _gone(error: RpcError) -> bool:
    """A refusal meaning "this session is gone for this viewer" (canonical: ``data.reason``)."""
    if error.reason:
        return error.reason in GONE_REASONS
    return error.code in (STORED_SESSION_NOT_FOUND, SESSION_NOT_FOUND)
