"""One connection's handshake, and the requests the core sends on its own over it.

The handshake fixes the dialect, never a guess (protocol.md §1.2-1.3, §6.2): subprotocol
``hermes-gateway-v1`` means C; after ``gateway.ready``, a ``client.capabilities`` answer means B,
an error 0.19.0 (the strictest guess) unless the ready frame said ``change_events`` (0.20). A
new socket is a new viewer: every followed session is resumed after each handshake (§5).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import payloads
from desktop.core.approvals import ApprovalMachine
from desktop.core.dialects import ADAPTERS, DialectAdapter
from desktop.core.model import Dialect
from desktop.core.outbox import Outbox, Purpose
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings

CANONICAL_SUBPROTOCOL = "hermes-gateway-v1"
CAPABILITIES_METHOD = "client.capabilities"
CAPABILITIES_PARAMS: Mapping[str, Any] = {"server_requests": True}
POLLS_PENDING = (Dialect.B, Dialect.HERMES020)
LIST_ROW_BYTES = 512  # what a pending list spends on one request besides its command, generously


class Link:
    """The current (or last) connection: its handshake, its adapter, the core's own requests."""

    def __init__(
        self,
        settings: CoreSettings,
        clock: Callable[[], float],
        outbox: Outbox,
        sessions: SessionBook,
        lifecycle: ApprovalMachine,
    ) -> None:
        self._settings, self._clock, self._outbox = settings, clock, outbox
        self._sessions, self._lifecycle = sessions, lifecycle
        self.epoch = 0  # the current (or last) connection's number
        self.connected = False
        self.dialect: Dialect | None = None  # once the handshake fixed it
        self.adapter: DialectAdapter = ADAPTERS[None](settings)
        self.awaiting_ready = False
        self.replay_epoch = ""
        self.server_requests: tuple[str, ...] = ()
        self.change_events = False
        self.declines_not_shown = False  # B counts a 4404 decline (``window_requests``)
        self.poll_at: float | None = None  # when open rows' pending lists are next asked
        self._asked_at: dict[str, float] = {}  # when each session's list was last asked so

    @property
    def ready(self) -> bool:
        """Connected and past the handshake: answers and resumes may go."""
        return self.connected and self.dialect is not None

    def opened(self, epoch: int, subprotocol: str | None) -> bool:
        """A new transport; True when the subprotocol alone fixed the dialect (C)."""
        self.epoch, self.connected = epoch, True
        self.replay_epoch, self.server_requests = "", ()
        self.change_events = self.declines_not_shown = False
        self.awaiting_ready = subprotocol != CANONICAL_SUBPROTOCOL
        return not self.awaiting_ready

    def lost(self) -> None:
        self.connected = self.awaiting_ready = False
        self.use(None)

    def use(self, dialect: Dialect | None) -> None:
        self.dialect, self.adapter = dialect, ADAPTERS[dialect](self._settings)

    def gateway_ready(self, payload: Mapping[str, Any]) -> None:
        """``gateway.ready``: ask ``client.capabilities`` when the handshake needs it."""
        if not self.connected:
            return
        self.replay_epoch = payloads.text(payload, "replay_epoch") or self.replay_epoch
        if self.awaiting_ready:
            self.awaiting_ready = False
            self.change_events = "change_events" in payload
            self._outbox.request(
                CAPABILITIES_METHOD, CAPABILITIES_PARAMS, Purpose.CAPABILITIES, self.epoch
            )

    def capabilities(self, result: Mapping[str, Any] | None) -> Dialect:
        """The ``client.capabilities`` answer (None for an error response) fixes the dialect."""
        if result is None:
            return Dialect.HERMES020 if self.change_events else Dialect.A
        self.server_requests = payloads.strings(result, "server_requests")
        self.declines_not_shown = payloads.flag(result, "declines_not_shown") is True
        return Dialect.B

    def request(
        self, method: str, params: Mapping[str, Any], purpose: Purpose, session_id: str = ""
    ) -> int:
        """A request whose answer judges only the rows that arrived before it (its watermark)."""
        watermark = self._lifecycle.last_seq
        frame = self._outbox.request(
            method, params, purpose, self.epoch, watermark=watermark, session_id=session_id
        )
        return frame.rpc_id or 0  # requests always carry an id

    def resume(self, session_id: str, purpose: Purpose = Purpose.RESUME) -> int | None:
        """Queue ``session.resume`` (its snapshot is folded in on answer); None if it cannot go."""
        session = self._sessions.get(session_id)
        if session is None or not self.ready:
            return None
        params = self.adapter.resume_params(session, self._settings.session_source)
        if params is None:  # tui_gateway needs the stored id
            return None
        return self.request("session.resume", params, purpose, session_id)

    def poll_while_open(self) -> None:
        """Ask the lists of followed sessions whose open rows only a list can close (bounded)."""
        book = self._sessions
        polled = self._lifecycle.polled if self.dialect in POLLS_PENDING and self.connected else ()
        sessions = sorted(s for s in polled if book.is_followed(s) and not book.is_observed(s))
        if not sessions:
            self.poll_at = None
            return
        now = self._clock()
        if self.poll_at is not None and now >= self.poll_at:
            asked = self._asked_at
            for gone in asked.keys() - set(sessions):
                del asked[gone]
            turn = sorted(sessions, key=lambda s: asked.get(s, -math.inf))
            for session_id in turn[: self._settings.open_polls_per_interval]:
                if self.poll_pending(session_id) is not None:
                    asked[session_id] = now
        if self.poll_at is None or now >= self.poll_at:
            self.poll_at = next_on_grid(now, self._settings.open_poll_interval)

    def poll_pending(self, session_id: str) -> int | None:
        """B and 0.20: ask ``approval.pending`` what still waits; None if it is not asked now."""
        if self.dialect not in POLLS_PENDING or self._sessions.get(session_id) is None:
            return None
        if self._outbox.awaits(Purpose.PENDING, session_id):
            return None
        if self._list_too_big(session_id):
            return None
        params = {"session_id": session_id}
        return self.request("approval.pending", params, Purpose.PENDING, session_id)

    def _list_too_big(self, session_id: str) -> bool:
        """Whether the answer (every open command again) may pass half the frame limit.

        Past it the connection closes, again after each reconnect; rows end by their own frames.
        """
        rows = self._lifecycle.open_rows(session_id)
        size = sum(len(row.asked.command) + LIST_ROW_BYTES for row in rows)
        return size > self._settings.max_frame_bytes // 2


def next_on_grid(now: float, interval: float) -> float:
    """The first multiple of ``interval`` after ``now``: sessions on one plan are asked together."""
    return (math.floor(now / interval) + 1) * interval
