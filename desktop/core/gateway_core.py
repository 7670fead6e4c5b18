"""The sans-I/O heart of one gateway connection: text in, typed events and texts out.

Theory of operation (modelled on websockets' ``protocol.py`` and h11's state table):

* The I/O adapter (``desktop.gateway.connection``) owns the socket. For every WebSocket text
  message it calls :meth:`GatewayCore.receive_text`, then drains :meth:`data_to_send` (write each
  frame, then report :meth:`frame_written` or :meth:`frame_failed`) and :meth:`events_received`.
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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.events import CoreEvent
from desktop.core.model import Approval, Choice, DecisionResult, Dialect, SessionState


@dataclass(frozen=True, slots=True)
class CoreSettings:
    """Tunables with safe defaults. Times are in seconds of the injected clock."""

    max_frame_bytes: int = 8 * 1024 * 1024  # larger frames become ProtocolErrorReceived
    max_command_chars: int = 1_000_000  # longer commands are refused as unanswerable, not cut
    a_approval_timeout: float = 60.0  # 0.19.0 default approvals.timeout; nothing is sent on it
    b_approval_timeout: float = 300.0  # newer main default (the server says when, via cancel)
    c_approval_timeout: float = 300.0
    staleness_margin: float = 5.0  # refuse to answer this close to the server's timeout (A)
    session_source: str = "desktop"  # `source` on tui_gateway create/resume ("gui" on canonical)


@dataclass(frozen=True, slots=True)
class OutboundFrame:
    """One text for the socket. ``frame_id`` lets the adapter report its fate back."""

    frame_id: int
    text: str
    is_decision: bool = False  # a decision frame is never resent, whatever happens
    rpc_id: int | None = None  # set when the frame is a request expecting a response


class GatewayCore:
    """Sans-I/O state machine for one configured gateway (see module docstring)."""

    def __init__(
        self,
        gateway_id: str,
        *,
        clock: Callable[[], float],
        settings: CoreSettings | None = None,
    ) -> None:
        raise NotImplementedError

    # -- connection lifecycle -------------------------------------------------------------
    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        """A new transport is up. ``subprotocol == "hermes-gateway-v1"`` fixes dialect C.

        Marks every open 0.19.0 approval STALE (its server may have timed it out or the head
        may have moved), and queues resubscription of watched sessions once the handshake ends.
        """
        raise NotImplementedError

    def connection_lost(self) -> None:
        """The transport is gone. Decisions in flight become UNKNOWN; nothing is resent."""
        raise NotImplementedError

    # -- input ------------------------------------------------------------------------------
    def receive_text(self, data: str | bytes) -> None:
        """Feed one WebSocket message (may hold several newline-separated objects). Never raises."""
        raise NotImplementedError

    def tick(self) -> None:
        """Apply local timeouts and safety margins at the current clock time."""
        raise NotImplementedError

    def next_deadline(self) -> float | None:
        """The clock time at which :meth:`tick` must next run, or None when nothing counts down."""
        raise NotImplementedError

    # -- output -----------------------------------------------------------------------------
    def data_to_send(self) -> list[OutboundFrame]:
        """Drain the frames to write, in order."""
        raise NotImplementedError

    def events_received(self) -> list[CoreEvent]:
        """Drain the events produced since the last call, in order."""
        raise NotImplementedError

    def frame_written(self, frame_id: int) -> None:
        """The adapter handed the frame to the socket successfully."""
        raise NotImplementedError

    def frame_failed(self, frame_id: int, *, maybe_sent: bool) -> None:
        """Writing failed. ``maybe_sent=False``: certainly not sent (a decision returns to
        WAITING on the same epoch); ``True``: outcome unknown (a decision becomes UNKNOWN)."""
        raise NotImplementedError

    # -- commands from the app --------------------------------------------------------------
    def call(self, method: str, params: Mapping[str, Any]) -> int:
        """Queue a JSON-RPC request; returns its integer id. Its answer comes as RpcResponded."""
        raise NotImplementedError

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        """Answer approval ``key`` with ``choice``: exactly one frame for exactly that request.

        Refuses (``sent=False`` plus a reason, nothing queued) when the approval is not WAITING,
        not answerable (0.19.0: not the FIFO head), ``choice`` is not among its choices, it is
        inside the safety margin, or it is STALE and ``confirm_stale`` is False.
        """
        raise NotImplementedError

    def watch_session(self, session_id: str, *, stored_session_id: str = "") -> None:
        """Remember a session to follow; it is resubscribed after every reconnect."""
        raise NotImplementedError

    # -- read-only state --------------------------------------------------------------------
    @property
    def dialect(self) -> Dialect | None:
        raise NotImplementedError

    @property
    def epoch(self) -> int:
        raise NotImplementedError

    def sessions(self) -> tuple[SessionState, ...]:
        raise NotImplementedError

    def approvals(self) -> tuple[Approval, ...]:
        """Every approval the core still tracks (open and recently resolved), oldest first."""
        raise NotImplementedError
