"""The test peer: the gateway model plus every fault a test may plan or trigger.

Planned faults act per handshake attempt (``FakeGateway(attempt_faults=[...])`` or
:meth:`FakeGateway.plan_attempts`; index 0 = first handshake, ``None`` = behave). Triggers act on
one connection (``conn=<index>``) or on every open one (``conn=None``): drop without a close
frame, stall (no reads, no writes, no pong), send garbage, close with a code, delay replies,
retire a C subscription with a replay gap, reclaim a B session, or restart the gateway with new
epochs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection

from tests.gatewaymodel import wire
from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.connection import Connection
from tests.gatewaymodel.faults import (
    CloseOnOpen,
    DelayResponses,
    DropAfter,
    Fault,
    Garbage,
    GarbageKind,
    Refuse,
    StallAfter,
    garbage,
)
from tests.gatewaymodel.handshake import Gatekeeper, Handshake
from tests.gatewaymodel.records import ConnectionRecord
from tests.gatewaymodel.restart import restart_world
from tests.gatewaymodel.scenarios import default_book
from tests.gatewaymodel.server import GatewayModel


class FaultyConnection(Connection):
    """A connection that can drop after N frames, stall, and delay its replies."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.write_gate = asyncio.Event()
        self.write_gate.set()
        self.read_gate = asyncio.Event()
        self.read_gate.set()
        self.drop_after: int | None = None
        self.stall_after: int | None = None
        self.delay: DelayResponses | None = None

    def arm(self, fault: Fault | None) -> None:
        """Apply a per-connection fault planned for this handshake."""
        if isinstance(fault, DropAfter):
            self.drop_after = fault.frames
        elif isinstance(fault, StallAfter):
            if fault.frames <= 0:
                self.stall()
            else:
                self.stall_after = fault.frames
        elif isinstance(fault, DelayResponses):
            self.delay = fault

    @property
    def stalled(self) -> bool:
        """True while the fake neither reads nor writes on this connection."""
        return not self.write_gate.is_set()

    def stall(self) -> None:
        """Stop reading (so no pong either) and hold every outgoing frame."""
        self.write_gate.clear()
        self.read_gate.clear()
        with contextlib.suppress(RuntimeError):
            self.ws.transport.pause_reading()
        self._on_change()

    def unstall(self) -> None:
        """Resume reading and flush the held frames in order."""
        with contextlib.suppress(RuntimeError):
            self.ws.transport.resume_reading()
        self.read_gate.set()
        self.write_gate.set()
        self._on_change()

    async def readable(self) -> None:
        await self.read_gate.wait()

    async def writable(self) -> None:
        await self.write_gate.wait()

    def may_send(self) -> bool:
        return self.drop_after is None or self.sent_count < self.drop_after

    def sent(self) -> None:
        if self.stall_after is not None and self.sent_count >= self.stall_after:
            self.stall_after = None
            self.stall()


class PlannedGatekeeper(Gatekeeper):
    """The handshake checks, with a fault planned per attempt."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.faults: dict[int, Fault] = {}

    def plan(self, *faults: Fault | None) -> None:
        """Faults for the next attempts, counted from the next handshake."""
        for offset, fault in enumerate(faults):
            if fault is not None:
                self.faults[self.attempts + offset] = fault

    def refusal(self, attempt: int) -> int | None:
        fault = self.faults.get(attempt)
        return fault.status if isinstance(fault, Refuse) else None


class FakeGateway(GatewayModel):
    """:class:`~tests.gatewaymodel.server.GatewayModel` with fault injection.

    ``attempt_faults``: a fault (or None) per handshake attempt, from attempt 0. ``turns``
    defaults to the ``[[scenario:name]]`` book of :func:`.scenarios.default_book`.
    Every other argument is :class:`GatewayModel`'s.
    """

    _gate: PlannedGatekeeper

    def __init__(self, *args: Any, attempt_faults: Sequence[Fault | None] = (), **kwargs: Any):
        kwargs["turns"] = kwargs.get("turns") or default_book()
        super().__init__(*args, **kwargs)
        self._gate.plan(*attempt_faults)
        self.response_delays: dict[str, float] = {}
        self._dispatcher.delay_for = self._delay_for

    def _gatekeeper(self, auth_failure: Literal["http", "close"]) -> PlannedGatekeeper:
        return PlannedGatekeeper(
            self.dialect, self.token, auth_failure, self.world.changed, self._public_status
        )

    def _connection(
        self, ws: ServerConnection, record: ConnectionRecord, hs: Handshake
    ) -> FaultyConnection:
        conn = FaultyConnection(ws, record, self.world.changed)
        conn.arm(self._fault(hs))
        return conn

    def _fault(self, hs: Handshake) -> Fault | None:
        return self._gate.faults.get(hs.attempt)

    def _close_on_open(self, hs: Handshake) -> tuple[int, str] | None:
        fault = self._fault(hs)
        if isinstance(fault, CloseOnOpen):
            return fault.code, fault.reason
        return super()._close_on_open(hs)

    def _ready_sent(self, conn: Connection, hs: Handshake) -> None:
        fault = self._fault(hs)
        if isinstance(fault, Garbage):
            conn.send(garbage(fault.kind, fault.size))

    def _delay_for(self, conn: Connection, method: str) -> float:
        fault = conn.delay if isinstance(conn, FaultyConnection) else None
        if fault is not None and (not fault.methods or method in fault.methods):
            return fault.seconds
        return self.response_delays.get(method, 0.0)

    async def stop(self) -> None:
        for conn in self._targets(None):
            if conn.stalled:
                conn.abort()  # a stalled peer never completes a closing handshake
        await super().stop()

    def plan_attempts(self, *faults: Fault | None) -> None:
        """Faults for the next handshake attempts, counted from the next one (None = behave)."""
        self._gate.plan(*faults)

    def _targets(self, conn: int | None) -> list[FaultyConnection]:
        return [
            c
            for c in self.world.connections.values()
            if isinstance(c, FaultyConnection) and (conn is None or c.index == conn)
        ]

    def drop(self, conn: int | None = None) -> None:
        """Abort the TCP connection(s) without a close frame (the client sees 1006)."""
        for target in self._targets(conn):
            target.abort()

    def stall(self, conn: int | None = None) -> None:
        """Stop reading, answering and sending on the connection(s); no pong either."""
        for target in self._targets(conn):
            target.stall()

    def unstall(self, conn: int | None = None) -> None:
        """Resume stalled connection(s); the frames held meanwhile go out in order."""
        for target in self._targets(conn):
            target.unstall()

    def send_garbage(
        self, kind: GarbageKind = "not_json", conn: int | None = None, *, size: int = 9 << 20
    ) -> None:
        """Send one malformed message (see :func:`~tests.gatewaymodel.faults.garbage`)."""
        for target in self._targets(conn):
            target.send(garbage(kind, size))

    def close_connections(
        self, code: int = 1000, reason: str = "", conn: int | None = None
    ) -> None:
        """Close the connection(s) cleanly with ``code`` (4401, 4403, 1012 …)."""
        for target in self._targets(conn):
            target.close_soon(code, reason)

    def set_response_delay(self, method: str, seconds: float | None) -> None:
        """Answer ``method`` ``seconds`` (script time) late on every connection; None resets.

        Later requests are answered first meanwhile: replies arrive out of order.
        """
        if seconds is None:
            self.response_delays.pop(method, None)
        else:
            self.response_delays[method] = seconds

    def replay_gap(self, session_id: str, conn: int | None = None) -> int:
        """C: send ``session.replay_gap`` and retire those subscriptions until a re-resume.

        Returns how many viewers were retired.
        """
        session = self.world.find_session(session_id)
        if session is None:
            raise KeyError(session_id)
        retired = 0
        for viewer in list(session.viewers.values()):
            if conn is not None and viewer.conn.index != conn:
                continue
            payload = {"replay_epoch": self.world.replay_epoch, "latest_seq": session.seq}
            params = {
                "type": "session.replay_gap",
                "session_id": session.sid,
                "payload": payload,
                "authority_epoch": self.world.authority_epoch,
                "replay_epoch": self.world.replay_epoch,
            }
            viewer.conn.send(wire.event(params))
            viewer.retired = True
            retired += 1
        self.world.changed()
        return retired

    def reclaim(self, session_id: str, reason: str = "ws_orphan_reap") -> None:
        """B: the gateway reaps a session (idle_timeout | lru_evict | ws_orphan_reap).

        Open requests end without a cancel, the session is forgotten, and every connection gets
        the global ``session.reclaimed {session_id, stored_session_id, reason}`` event.
        """
        session = self.world.find_session(session_id)
        if session is None:
            raise KeyError(session_id)
        session.viewers.clear()
        session.closed = True
        session.interrupt.set()
        for req in self.world.open_requests(session):
            self.world.reqs.close(req, Outcome("closed", via="reclaim"))
        self.world.sessions.pop(session.sid, None)
        payload = {"session_id": session.sid, "stored_session_id": session.stored_id}
        self.world.pub.broadcast("session.reclaimed", {**payload, "reason": reason})
        self.world.changed()

    async def restart(
        self,
        *,
        keep_sessions: bool = True,
        how: Literal["abort", "close"] = "abort",
        timeout: float = 5.0,
    ) -> None:
        """Restart on the same port: new ``replay_epoch``/``authority_epoch``/``instance_id``.

        Every connection is dropped (``abort``) or closed with 1012 (``close``), and unused
        tickets die. With ``keep_sessions`` sessions, running turns and open requests survive
        (replay logs do not); without it everything is forgotten.
        """
        self._gate.tickets.clear()
        restart_world(self.world, keep_sessions=keep_sessions)
        for target in self._targets(None):
            if how == "abort":
                target.abort()
            else:
                target.close_soon(1012, "service restart")
        await self.world.signal.wait_for(
            lambda: not self.world.connections, timeout, "connections closed after restart"
        )
