"""The sans-I/O heart of one gateway connection: text in, typed events and texts out.

Theory of operation (modelled on websockets' ``protocol.py`` and h11's state table):

* The I/O adapter (``desktop.gateway.client`` with its ``pump``) owns the socket. For every
  WebSocket text message it calls :meth:`GatewayCore.receive_text`, then drains
  :meth:`data_to_send` (write each frame, then report :meth:`frame_written` or
  :meth:`frame_failed`) and :meth:`events_received`.
* The core owns the handshake (answering ``gateway.ready`` with ``client.capabilities``), the
  dialect, the sessions, the approvals and their batches, and the per-dialect answer rule. It
  also issues its own housekeeping calls (resubscribe after reconnect, approval reconciliation);
  the adapter just writes whatever :meth:`data_to_send` yields.
* Time is a parameter: ``clock`` is injected; the adapter calls :meth:`tick` at
  :meth:`next_deadline` (no polling) so local timeouts and safety margins fire.
* A person's decision enters through :meth:`decide`, which queues **exactly one** frame aimed at
  exactly the request the person saw — or nothing, with the reason, when the view may be stale.

One ``GatewayCore`` lives as long as a configured gateway; each (re)connection is announced
with :meth:`connection_opened` (a new epoch) and ended with :meth:`connection_lost`.

Where things live: framing in ``jsonrpc``; what each frame does in ``wire_effects`` (with one
adapter per dialect in ``dialects`` for approvals and prompts); sessions in ``session_state``;
the approval lifecycle in ``lifecycle`` (answerability in ``answer_rules``); clarify, sudo and
secret questions in ``prompt_book``; decisions in ``decisions``; resuming sessions in
``resubscribe``; 0.20 sessions other clients run in ``observed``; answers to requests (and the
snapshots they carry) in ``responses``. Those modules are functions over this object's public
attributes; every input ends with one flush of events (:meth:`_finish`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import decisions, jsonrpc, observed, resubscribe
from desktop.core.dialects import DialectAdapter, adapter_for
from desktop.core.events import CoreEvent, RpcError, RpcResponded, SessionChanged, SessionRemoved
from desktop.core.handshake import Handshake
from desktop.core.jsonrpc import EventFrame, ResponseFrame, ServerRequestFrame
from desktop.core.lifecycle import ApprovalLifecycle
from desktop.core.model import (
    Approval,
    Choice,
    DecisionResult,
    Dialect,
    Outcome,
    Prompt,
    SessionState,
)
from desktop.core.observed import ObservedSessions
from desktop.core.outbox import OutboundFrame, Outbox, Purpose
from desktop.core.prompt_book import PromptBook
from desktop.core.responses import apply_config_result, handle_response, handshake_done
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings
from desktop.core.wire_effects import APPLY, EVENTS, stamp_generation

__all__ = ["CoreSettings", "GatewayCore", "OutboundFrame"]

NOT_CONNECTED = -32096  # local code: call() while no connection is open; nothing was sent
DECISION_METHODS = frozenset({"approval.respond", "request.answer", "clarify.respond"})
NEVER_SENT = frozenset({"sudo.respond", "secret.respond"})  # only the window that asked answers


class GatewayCore:
    """Sans-I/O state machine for one configured gateway (see module docstring)."""

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
        self.session_book: SessionBook = SessionBook()
        self.outbox: Outbox = Outbox()
        self.handshake = Handshake()
        self.lifecycle: ApprovalLifecycle = ApprovalLifecycle(
            settings, self.events, self.outbox, clock, self._cwd_of, self.session_book.is_followed
        )
        self.prompt_book: PromptBook = PromptBook(
            self.emit, self.outbox, clock, self.session_book.is_followed, settings.staleness_margin
        )
        self.use_dialect(None)
        self.epoch = 0  # the current (or last) connection's number
        self.connected = False
        self.poll_at: float | None = None  # 0.20: when approval.pending is next asked (rows open)
        self.observed = ObservedSessions()  # 0.20 sessions other clients run

    # -- connection lifecycle -------------------------------------------------------------
    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        """A new transport is up. ``subprotocol == "hermes-gateway-v1"`` fixes dialect C.

        Open rows stay as the lost connection left them (STALE) until the new server confirms
        them; followed sessions are resumed once the handshake ends. A connection still open
        is lost first.
        """
        if self.connected:
            decisions.connection_lost(self)
        self.epoch, self.connected = epoch, True
        self.lifecycle.transport_opened()
        if self.handshake.opened(subprotocol):
            handshake_done(self, Dialect.C)
        self._finish()

    def connection_lost(self) -> None:
        """The transport is gone. Decisions in flight become UNKNOWN; nothing is resent."""
        if self.connected:
            decisions.connection_lost(self)
        observed.connection_lost(self)
        self._finish()

    # -- input ------------------------------------------------------------------------------
    def receive_text(self, data: str | bytes) -> None:
        """Feed one WebSocket message (may hold several newline-separated objects). Never raises."""
        settings = self.settings
        frames = jsonrpc.parse_message(
            data, max_bytes=settings.max_frame_bytes, max_depth=settings.max_json_depth
        )
        for frame in frames:
            if type(frame) is EventFrame:
                if self._stamped:  # any canonical event may carry the generation
                    stamp_generation(self, frame)
                handler = self._on_event.get(frame.type)
                if handler is not None:
                    handler(self, frame)
            elif type(frame) is ServerRequestFrame:
                for event in self.adapter.parse_server_request(frame):
                    APPLY[type(event)](self, event)
            elif type(frame) is ResponseFrame:
                handle_response(self, frame)
            else:  # a ProtocolErrorReceived
                self.events.append(frame)  # type: ignore[arg-type]
        self._finish()

    def tick(self) -> None:
        """Apply local timeouts and safety margins at the current clock time."""
        self._finish()

    def next_deadline(self) -> float | None:
        """The clock time at which :meth:`tick` must next run, or None when nothing counts down."""
        deadlines = (
            self.lifecycle.next_deadline(),
            self.prompt_book.next_deadline(),
            self.poll_at,
            self.observed.at,
        )
        due = [d for d in deadlines if d is not None]
        return min(due) if due else None

    # -- output -----------------------------------------------------------------------------
    def data_to_send(self) -> list[OutboundFrame]:
        """Drain the frames to write, in order."""
        return self.outbox.drain()

    def events_received(self) -> list[CoreEvent]:
        """Drain the events produced since the last call, in order."""
        events = self.events
        if not events:
            return []
        drained = events[:]
        events.clear()  # the lifecycle holds this very list
        return drained

    def frame_written(self, frame_id: int) -> None:
        """The adapter handed the frame to the socket successfully."""
        decisions.frame_written(self, frame_id)
        self._finish()

    def frame_failed(self, frame_id: int, *, maybe_sent: bool) -> None:
        """Writing failed.

        ``maybe_sent=False``: certainly not sent (a decision returns to WAITING on the same
        epoch); ``True``: outcome unknown (a decision becomes UNKNOWN).
        """
        decisions.frame_failed(self, frame_id, maybe_sent)
        self._finish()

    # -- commands from the app --------------------------------------------------------------
    def call(self, method: str, params: Mapping[str, Any]) -> int:
        """Queue a JSON-RPC request; returns its integer id. Its answer comes as RpcResponded.

        While no connection is open nothing is queued and the answer (an error) comes at once.
        Results the tray shows (new sessions, usage, YOLO/mode, close, interrupt) are also
        folded into the core's state (see ``desktop.core.responses``).

        Raises:
            ValueError: ``method`` answers an approval or a prompt; decisions go through
                :meth:`decide` and :meth:`answer_prompt`, the only ways an answer reaches the
                wire, and sudo/secret answers are never sent. Also for NaN/infinite params.
            TypeError: ``params`` holds values JSON cannot carry.
        """
        if method in NEVER_SENT:
            raise ValueError(f"{method} is never sent by the tray")
        if method in DECISION_METHODS:
            raise ValueError(f"{method} is only sent by decide() or answer_prompt(), not call()")
        if not self.connected:
            rpc_id = self.outbox.next_rpc_id()
            error = RpcError(NOT_CONNECTED, f"not connected; {method} was not sent")
            self.events.append(RpcResponded(rpc_id, None, error))
            return rpc_id
        frame = self.outbox.request(
            method, params, Purpose.APP, self.epoch, watermark=self.lifecycle.last_seq
        )
        return frame.rpc_id or 0  # requests always carry an id

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        """Answer approval ``key`` with ``choice``: exactly one frame for exactly that request.

        Refuses (``sent=False`` plus a reason, nothing queued) when the approval is not WAITING,
        not answerable (0.19.0: not the FIFO head), ``choice`` is not among its choices, it is
        inside the safety margin, or it is STALE and ``confirm_stale`` is False.
        """
        result = decisions.decide(self, key, choice, confirm_stale)
        self._finish()
        return result

    def answer_prompt(self, key: str, answer: str) -> DecisionResult:
        """Answer clarify prompt ``key`` with ``answer`` (a choice, or free text where taken).

        Exactly one frame for exactly that prompt, or nothing and the reason: the prompt is no
        longer open ("expired: …"), is a sudo or secret prompt (never answered here), belongs
        to a session the tray does not follow, or the answer is not one the gateway takes.
        There is no way to answer sudo or secret prompts.
        """
        result = self.prompt_book.answer(
            key, answer, self.epoch, self.connected and self.handshake.done
        )
        self._finish()
        return result

    def watch_session(self, session_id: str, *, stored_session_id: str = "") -> None:
        """Remember a session to follow; it is resubscribed after every reconnect."""
        book = self.session_book
        book.ensure(session_id)
        book.follow(session_id)
        if stored_session_id:
            book.update(session_id, stored_session_id=stored_session_id)
        self.follow_changed()
        self._finish()

    def unwatch_session(self, session_id: str) -> None:
        """Stop following ``session_id``: not resubscribed after reconnects, rows read-only."""
        if self.session_book.get(session_id) is not None:
            self.session_book.follow(session_id, on=False)
            self.follow_changed()  # its rows are read-only from now on
            self._finish()

    def resume_session(self, session_id: str) -> int | None:
        """Queue ``session.resume`` for a known session with this dialect's params.

        Its snapshot (info, usage, plan, open requests, generation) is folded in and the answer
        also comes as ``RpcResponded``. None when it cannot be sent (not connected, handshake
        not done, unknown session, or no stored id on tui_gateway).
        """
        rpc_id = resubscribe.resume(self, session_id, Purpose.APP)
        self._finish()
        return rpc_id

    def observe_sessions(self, result: Mapping[str, Any]) -> None:
        """0.20: fold a ``session.active_list`` result; other clients' sessions are observed.

        Observed sessions are never resumed (that would take their window's events); their
        rows come from ``approval.pending`` and are answered by id (``desktop.core.observed``).
        Ignored on every other dialect.
        """
        observed.observe_listed(self, result)
        self._finish()

    def stop_observing(self) -> None:
        """Observe no session any more; their rows become read-only."""
        observed.stop_observing(self)
        self._finish()

    @property
    def observed_sessions(self) -> frozenset[str]:
        return frozenset(self.session_book.observed())

    def reconcile_approvals(self, session_id: str) -> int | None:
        """B only: poll ``approval.pending`` to close cards another viewer answered by frame."""
        rpc_id = resubscribe.poll_pending(self, session_id)
        self._finish()
        return rpc_id

    def set_approval_timeout(self, seconds: float) -> None:
        """The server's real approval timeout (``approvals.timeout``, seconds), learned outside.

        Open rows counted from the assumed default are re-timed to ``arrived_at + seconds``
        (longer or shorter); rows already counted from a learned value only ever get shorter;
        new rows count from ``seconds``. Emits ``ApprovalChanged`` for each re-timed row. The
        value holds until the connection ends (see ``desktop.core.timeouts`` for why).

        Raises:
            ValueError: ``seconds`` is negative, NaN or infinite.
        """
        self.lifecycle.set_timeout(seconds)
        self._finish()

    @property
    def approval_timeout(self) -> float | None:
        """The learned approval timeout of this connection, or None while it is assumed."""
        return self.lifecycle.learned_timeout

    def apply_usage_result(self, session_id: str, result: Mapping[str, Any]) -> None:
        """Fold a ``session.usage`` RPC result (any shape) into ``session_id``."""
        self.session_book.apply_usage(session_id, result)
        self._finish()

    def apply_config_result(self, session_id: str, key: str, result: Mapping[str, Any]) -> None:
        """Fold a ``config.get``/``config.set`` result for ``yolo`` or ``approvals.mode``.

        ``session_id`` may be "" for the global approval mode (applies to every session).
        """
        apply_config_result(self, session_id, key, result)
        self._finish()

    # -- shared by the frame-reading modules --------------------------------------------------
    def emit(self, event: CoreEvent) -> None:
        self.events.append(event)

    def use_dialect(self, dialect: Dialect | None) -> None:
        self.adapter: DialectAdapter = adapter_for(dialect, self.settings)
        self._on_event = {**EVENTS, **dict.fromkeys(self.adapter.event_handlers, _by_adapter)}
        self._stamped = dialect is Dialect.C

    def remove_session(self, session_id: str, reason: str, outcome: Outcome) -> None:
        """Drop a session: its open approvals end with ``outcome``; it is not followed again."""
        self.lifecycle.session_gone(session_id, outcome)
        self.prompt_book.session_gone(session_id)
        if self.session_book.remove(session_id):
            self.events.append(SessionRemoved(session_id, reason))

    def follow_changed(self) -> None:
        """A session was followed or let go: its rows and prompts are judged again."""
        self.lifecycle.follow_changed()
        self.prompt_book.rejudge(self.dialect)

    def _cwd_of(self, session_id: str) -> str:
        session = self.session_book.get(session_id)
        return session.cwd if session is not None else ""

    def _finish(self) -> None:
        """End of every input: 0.20's pending lists, time-driven changes, SessionChanged."""
        lifecycle, prompts = self.lifecycle, self.prompt_book
        if lifecycle.by_id or self.poll_at is not None:
            lifecycle.tick()  # the open rows as of now
            resubscribe.poll_while_open(self)
        if self.observed.active:
            lifecycle.tick()
            observed.poll_due(self)
        lifecycle.tick()
        prompts.tick()
        book = self.session_book
        if lifecycle.waiting_moved or prompts.moved:
            lifecycle.waiting_moved = prompts.moved = False
            book.set_waiting(lifecycle.waiting | prompts.sessions())
        if book.changed:
            self.events.extend(SessionChanged(session) for session in book.drain_changed())

    # -- read-only state --------------------------------------------------------------------
    @property
    def dialect(self) -> Dialect | None:
        """The dialect of the current connection, once its handshake fixed it."""
        return self.handshake.dialect if self.handshake.done else None

    def sessions(self) -> tuple[SessionState, ...]:
        return self.session_book.all()

    def session(self, session_id: str) -> SessionState | None:
        return self.session_book.get(session_id)

    def approvals(self) -> tuple[Approval, ...]:
        """Every approval the core still tracks (open and recently resolved), oldest first."""
        return self.lifecycle.rows()

    def prompts(self) -> tuple[Prompt, ...]:
        """Every open prompt (clarify, sudo, secret), oldest first."""
        return self.prompt_book.all()

    def prompt(self, key: str) -> Prompt | None:
        return self.prompt_book.get(key)

    def approval(self, key: str) -> Approval | None:
        row = self.lifecycle.get(key)
        return row.approval() if row else None


def _by_adapter(core: GatewayCore, frame: EventFrame) -> None:
    """An event the dialect's adapter reads (approvals and their withdrawals)."""
    for event in core.adapter.parse_event(frame):
        APPLY[type(event)](core, event)
