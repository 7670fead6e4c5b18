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

Where things live: framing in ``jsonrpc``; one adapter per dialect in ``dialects``; the meaning
of each frame in ``wire_effects``; sessions in ``session_state``; the approval lifecycle in
``lifecycle`` (answerability in ``answer_rules``); decisions in ``decisions``; resume snapshots
in ``snapshots`` and ``resubscribe``; answers to requests in ``responses``. This class is the
facade that owns the shared ``CoreState`` and ends every input with one flush of events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import decisions, inbound, observed, resubscribe
from desktop.core.core_state import CoreState
from desktop.core.events import CoreEvent, RpcError, RpcResponded
from desktop.core.model import Approval, Choice, DecisionResult, Dialect, Prompt, SessionState
from desktop.core.outbox import OutboundFrame, Purpose
from desktop.core.responses import apply_config_result, handshake_done
from desktop.core.settings import CoreSettings

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
        self._core = CoreState(gateway_id, clock, settings or CoreSettings())

    # -- connection lifecycle -------------------------------------------------------------
    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        """A new transport is up. ``subprotocol == "hermes-gateway-v1"`` fixes dialect C.

        Marks every open 0.19.0 approval STALE (its server may have timed it out or the head
        may have moved), and queues resubscription of watched sessions once the handshake ends.
        """
        core = self._core
        if core.connected:
            decisions.connection_lost(core)
        core.epoch, core.connected = epoch, True
        core.approvals.transport_opened()
        if core.handshake.opened(subprotocol):
            handshake_done(core, Dialect.C)
        self._finish()

    def connection_lost(self) -> None:
        """The transport is gone. Decisions in flight become UNKNOWN; nothing is resent."""
        if self._core.connected:
            decisions.connection_lost(self._core)
        observed.connection_lost(self._core)
        self._finish()

    # -- input ------------------------------------------------------------------------------
    def receive_text(self, data: str | bytes) -> None:
        """Feed one WebSocket message (may hold several newline-separated objects). Never raises."""
        inbound.receive(self._core, data)
        self._finish()

    def tick(self) -> None:
        """Apply local timeouts and safety margins at the current clock time."""
        self._finish()

    def next_deadline(self) -> float | None:
        """The clock time at which :meth:`tick` must next run, or None when nothing counts down."""
        return self._core.next_deadline()

    # -- output -----------------------------------------------------------------------------
    def data_to_send(self) -> list[OutboundFrame]:
        """Drain the frames to write, in order."""
        return self._core.outbox.drain()

    def events_received(self) -> list[CoreEvent]:
        """Drain the events produced since the last call, in order."""
        events = list(self._core.events)
        self._core.events.clear()
        return events

    def frame_written(self, frame_id: int) -> None:
        """The adapter handed the frame to the socket successfully."""
        decisions.frame_written(self._core, frame_id)
        self._finish()

    def frame_failed(self, frame_id: int, *, maybe_sent: bool) -> None:
        """Writing failed.

        ``maybe_sent=False``: certainly not sent (a decision returns to WAITING on the same
        epoch); ``True``: outcome unknown (a decision becomes UNKNOWN).
        """
        decisions.frame_failed(self._core, frame_id, maybe_sent)
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
        core = self._core
        if not core.connected:
            rpc_id = core.outbox.next_rpc_id()
            error = RpcError(NOT_CONNECTED, f"not connected; {method} was not sent")
            core.emit(RpcResponded(rpc_id, None, error))
            return rpc_id
        frame = core.outbox.request(
            method, params, Purpose.APP, core.epoch, watermark=core.approvals.last_seq
        )
        return frame.rpc_id or 0  # requests always carry an id

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        """Answer approval ``key`` with ``choice``: exactly one frame for exactly that request.

        Refuses (``sent=False`` plus a reason, nothing queued) when the approval is not WAITING,
        not answerable (0.19.0: not the FIFO head), ``choice`` is not among its choices, it is
        inside the safety margin, or it is STALE and ``confirm_stale`` is False.
        """
        result = decisions.decide(self._core, key, choice, confirm_stale)
        self._finish()
        return result

    def answer_prompt(self, key: str, answer: str) -> DecisionResult:
        """Answer clarify prompt ``key`` with ``answer`` (a choice, or free text where taken).

        Exactly one frame for exactly that prompt, or nothing and the reason: the prompt is no
        longer open ("expired: …"), is a sudo or secret prompt (never answered here), belongs
        to a session the tray does not follow, or the answer is not one the gateway takes.
        There is no way to answer sudo or secret prompts.
        """
        core = self._core
        result = core.prompts.answer(
            key, answer, core.epoch, core.connected and core.handshake.done
        )
        self._finish()
        return result

    def watch_session(self, session_id: str, *, stored_session_id: str = "") -> None:
        """Remember a session to follow; it is resubscribed after every reconnect."""
        sessions = self._core.sessions
        sessions.ensure(session_id)
        sessions.follow(session_id)
        if stored_session_id:
            sessions.update(session_id, stored_session_id=stored_session_id)
        self._core.follow_changed()
        self._finish()

    def unwatch_session(self, session_id: str) -> None:
        """Stop following ``session_id``: not resubscribed after reconnects, rows read-only."""
        if self._core.sessions.get(session_id) is not None:
            self._core.sessions.follow(session_id, on=False)
            self._core.follow_changed()  # its rows are read-only from now on
            self._finish()

    def resume_session(self, session_id: str) -> int | None:
        """Queue ``session.resume`` for a known session with this dialect's params.

        Its snapshot (info, usage, plan, open requests, generation) is folded in and the answer
        also comes as ``RpcResponded``. None when it cannot be sent (not connected, handshake
        not done, unknown session, or no stored id on tui_gateway).
        """
        rpc_id = resubscribe.resume(self._core, session_id, Purpose.APP)
        self._finish()
        return rpc_id

    def observe_sessions(self, result: Mapping[str, Any]) -> None:
        """0.20: fold a ``session.active_list`` result; other clients' sessions are observed.

        Observed sessions are never resumed (that would take their window's events); their
        rows come from ``approval.pending`` and are answered by id (``desktop.core.observed``).
        Ignored on every other dialect.
        """
        observed.observe_listed(self._core, result)
        self._finish()

    def stop_observing(self) -> None:
        """Observe no session any more; their rows become read-only."""
        observed.stop_observing(self._core)
        self._finish()

    @property
    def observed_sessions(self) -> frozenset[str]:
        return frozenset(self._core.sessions.observed())

    def reconcile_approvals(self, session_id: str) -> int | None:
        """B only: poll ``approval.pending`` to close cards another viewer answered by frame."""
        rpc_id = resubscribe.poll_pending(self._core, session_id)
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
        self._core.approvals.set_timeout(seconds)
        self._finish()

    @property
    def approval_timeout(self) -> float | None:
        """The learned approval timeout of this connection, or None while it is assumed."""
        return self._core.approvals.learned_timeout

    def apply_usage_result(self, session_id: str, result: Mapping[str, Any]) -> None:
        """Fold a ``session.usage`` RPC result (any shape) into ``session_id``."""
        self._core.sessions.apply_usage(session_id, result)
        self._finish()

    def apply_config_result(self, session_id: str, key: str, result: Mapping[str, Any]) -> None:
        """Fold a ``config.get``/``config.set`` result for ``yolo`` or ``approvals.mode``.

        ``session_id`` may be "" for the global approval mode (applies to every session).
        """
        apply_config_result(self._core, session_id, key, result)
        self._finish()

    def _finish(self) -> None:
        """End of every input: 0.20's timed pending lists, then the core's own end of input."""
        core = self._core
        if core.approvals.by_id or core.poll_at is not None:
            core.approvals.tick()  # the open rows as of now
            resubscribe.poll_while_open(core)
        if core.observed.active:
            core.approvals.tick()
            observed.poll_due(core)
        core.finish()

    # -- read-only state --------------------------------------------------------------------
    @property
    def dialect(self) -> Dialect | None:
        return self._core.dialect

    @property
    def epoch(self) -> int:
        return self._core.epoch

    def sessions(self) -> tuple[SessionState, ...]:
        return self._core.sessions.all()

    def session(self, session_id: str) -> SessionState | None:
        return self._core.sessions.get(session_id)

    def approvals(self) -> tuple[Approval, ...]:
        """Every approval the core still tracks (open and recently resolved), oldest first."""
        return self._core.approvals.rows()

    def prompts(self) -> tuple[Prompt, ...]:
        """Every open prompt (clarify, sudo, secret), oldest first."""
        return self._core.prompts.all()

    def prompt(self, key: str) -> Prompt | None:
        return self._core.prompts.get(key)

    def approval(self, key: str) -> Approval | None:
        row = self._core.approvals.get(key)
        return row.approval() if row else None
