"""The sans-I/O heart of one gateway connection: text in, typed events and texts out.

The I/O adapter (``desktop.gateway.client``) feeds every message to ``receive_text``, writes
what ``data_to_send`` yields (reporting each frame's fate back), drains ``events_received``
and calls ``tick`` at ``next_deadline``; the clock is injected. A person's decision enters
through ``decide``: exactly one frame aimed at exactly the request the person saw, or nothing
and the reason. Every input ends with one flush of events (``_finish``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import jsonrpc
from desktop.core.approvals import ApprovalMachine
from desktop.core.connection import Link
from desktop.core.decisions import decision, refusal
from desktop.core.events import CoreEvent, RpcError, RpcResponded, SessionChanged
from desktop.core.following import Following
from desktop.core.jsonrpc import EventFrame, ResponseFrame, ServerRequestFrame, encode_result
from desktop.core.model import (
    Approval,
    ApprovalPhase,
    Choice,
    DecisionResult,
    Dialect,
    Prompt,
    SessionState,
)
from desktop.core.outbox import OutboundFrame, Outbox, Purpose
from desktop.core.prompt_book import PromptBook
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings
from desktop.core.wire_effects import WireEffects

__all__ = ["CoreSettings", "GatewayCore", "OutboundFrame"]

NOT_CONNECTED = -32096  # local code: call() while no connection is open; nothing was sent
CONNECTION_LOST = -32097  # local code: the connection went before the answer came
DECISION_METHODS = frozenset({"approval.respond", "request.answer", "clarify.respond"})
NEVER_SENT = frozenset({"sudo.respond", "secret.respond"})  # only the window that asked answers


class GatewayCore:
    """Lives as long as a configured gateway; each connection is one epoch."""

    def __init__(
        self,
        gateway_id: str,
        *,
        clock: Callable[[], float],
        settings: CoreSettings | None = None,
    ) -> None:
        self.gateway_id = gateway_id
        self.clock = clock
        self.settings = settings = settings or CoreSettings()
        self.events: list[CoreEvent] = []
        self.session_book = book = SessionBook()
        self.outbox = outbox = Outbox()
        self.lifecycle = lifecycle = ApprovalMachine(
            settings, self.events, outbox, clock, self._cwd_of, book.is_followed
        )
        self.prompt_book = prompts = PromptBook(
            self.events.append, outbox, clock, book.is_followed, settings.staleness_margin
        )
        self.link = link = Link(settings, clock, outbox, book, lifecycle)
        self.following = following = Following(
            settings, clock, book, lifecycle, prompts, link, self.events
        )
        self.effects = WireEffects(
            settings, book, lifecycle, prompts, outbox, link, following, self.events
        )

    # -- connection lifecycle -------------------------------------------------------------
    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        """A new transport is up (one still open is lost first); open rows stay STALE."""
        if self.link.connected:
            self._lose()
        self.lifecycle.transport_opened()
        if self.link.opened(epoch, subprotocol):
            self.effects.handshake_done(Dialect.C)
        self._finish()

    def connection_lost(self) -> None:
        """The transport is gone. Decisions in flight become UNKNOWN; nothing is resent."""
        if self.link.connected:
            self._lose()
        self.following.connection_lost()
        self._finish()

    def _lose(self) -> None:
        """Decisions that may have left end UNKNOWN, the rest wait (stale); calls get an error."""
        self.link.lost()
        frames, calls = self.outbox.reset()
        left = [record.approval_key for record in frames if record.approval_key and record.drained]
        queued = [r.approval_key for r in frames if r.approval_key and not r.drained]
        for call in calls:
            if call.approval_key:
                if call.approval_key not in queued:  # a queued one never left: it waits again
                    left.append(call.approval_key)
            elif call.purpose is Purpose.APP:
                error = RpcError(CONNECTION_LOST, "the connection was lost before an answer came")
                self.events.append(RpcResponded(call.rpc_id, None, error))
        self.lifecycle.connection_lost(left, queued)
        self.prompt_book.connection_lost()

    # -- input ------------------------------------------------------------------------------
    def receive_text(self, data: str | bytes) -> None:
        """Feed one WebSocket message (may hold several newline-separated objects). Never raises."""
        settings, effects = self.settings, self.effects
        frames = jsonrpc.parse_message(
            data, max_bytes=settings.max_frame_bytes, max_depth=settings.max_json_depth
        )
        for frame in frames:
            if type(frame) is EventFrame:
                effects.event(frame)
            elif type(frame) is ServerRequestFrame:
                effects.server_request(frame)
            elif type(frame) is ResponseFrame:
                self.effects.handle(frame)
            else:  # a ProtocolErrorReceived
                self.events.append(frame)  # type: ignore[arg-type]
        self._finish()

    def tick(self) -> None:
        """Apply local timeouts and safety margins at the current clock time."""
        self._finish()

    def next_deadline(self) -> float | None:
        """When :meth:`tick` must next run, or None when nothing counts down."""
        deadlines = (
            self.lifecycle.next_deadline(),
            self.prompt_book.next_deadline(),
            self.link.poll_at,
            self.following.at,
        )
        due = [d for d in deadlines if d is not None]
        return min(due) if due else None

    # -- output -----------------------------------------------------------------------------
    def data_to_send(self) -> list[OutboundFrame]:
        return self.outbox.drain()

    def events_received(self) -> list[CoreEvent]:
        events = self.events
        if not events:
            return []
        drained = events[:]
        events.clear()  # the collaborators hold this very list
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
                outbox.drop_call(record.frame.rpc_id)  # no answer can come for it
            row = self.lifecycle.get(record.approval_key) if record.approval_key else None
            if row and row.phase is ApprovalPhase.SENDING and row.decision_frame == frame_id:
                outbox.drop_call(record.frame.rpc_id)
                same_link = record.epoch == self.link.epoch and self.link.connected
                self.lifecycle.frame_failed(
                    row, frame_id, maybe_sent=maybe_sent, same_link=same_link
                )
        self._finish()

    # -- commands from the app --------------------------------------------------------------
    def call(self, method: str, params: Mapping[str, Any]) -> int:
        """Queue a JSON-RPC request; its answer comes as RpcResponded (at once if offline).

        ValueError for a method that answers (only ``decide`` and ``answer_prompt`` do) and for
        NaN/infinities; TypeError for what JSON cannot carry.
        """
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
        # Rows only exist with the ids their kind is answered by (checked when parsed), so the
        # encoder's ValueError cannot happen here.
        reply_id, body = decision(row.asked, choice)
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
        """Follow a session: it is resumed after every reconnect."""
        book = self.session_book
        book.ensure(session_id)
        if stored_session_id:
            book.update(session_id, stored_session_id=stored_session_id)
        self.following.follow(session_id)
        self._finish()

    def unwatch_session(self, session_id: str) -> None:
        """Stop following ``session_id``: not resumed after reconnects, its rows read-only."""
        if self.session_book.get(session_id) is not None:
            self.following.follow(session_id, on=False)
            self._finish()

    def resume_session(self, session_id: str) -> int | None:
        """Queue ``session.resume``; its snapshot is folded in and answered as RpcResponded."""
        rpc_id = self.link.resume(session_id, Purpose.APP)
        self._finish()
        return rpc_id

    def observe_sessions(self, result: Mapping[str, Any]) -> None:
        """0.20: fold a ``session.active_list`` result (see ``desktop.core.following``)."""
        self.following.observe_listed(result)
        self._finish()

    def stop_observing(self) -> None:
        """Observe no session any more; their rows become read-only."""
        self.following.stop_observing()
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
        self.following.tick()
        prompts.tick()
        book.set_waiting(lifecycle.waiting | prompts.sessions())
        if book.changed:
            self.events.extend(SessionChanged(session) for session in book.drain_changed())

    # -- read-only state --------------------------------------------------------------------
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

    def prompts(self) -> tuple[Prompt, ...]:
        """Every open prompt (clarify, sudo, secret), oldest first."""
        return self.prompt_book.all()

    def approval(self, key: str) -> Approval | None:
        row = self.lifecycle.get(key)
        return row.approval() if row else None
