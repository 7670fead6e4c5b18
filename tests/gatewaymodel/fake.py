"""Faults a test (or the demo) triggers on live connections.

Each trigger acts on one connection (``conn=<index>``) or on every open one (``conn=None``):
drop without a close frame, stall (no reads, no writes, no pong), send garbage, close with a
code, delay replies, retire a C subscription with a replay gap, or restart the gateway with new
epochs. Planned per-attempt faults live in :mod:`.handshake` and :mod:`.faults`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from desktop.gateway.fake import wire
from desktop.gateway.fake.connection import Connection
from desktop.gateway.fake.faults import GarbageKind, garbage
from desktop.gateway.fake.model import Outcome
from desktop.gateway.fake.restart import restart_world
from desktop.gateway.fake.world import World


class FaultControls:
    """Mixin for :class:`~desktop.gateway.fake.server.FakeGateway`: the runtime fault triggers."""

    world: World
    _clear_tickets: Callable[[], None]

    def _targets(self, conn: int | None) -> list[Connection]:
        return [c for c in self.world.connections.values() if conn is None or c.index == conn]

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
        """Send one malformed message (see :func:`~desktop.gateway.fake.faults.garbage`)."""
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
            self.world.response_delays.pop(method, None)
        else:
            self.world.response_delays[method] = seconds

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
        self._clear_tickets()
        restart_world(self.world, keep_sessions=keep_sessions)
        for target in self._targets(None):
            if how == "abort":
                target.abort()
            else:
                target.close_soon(1012, "service restart")
        await self.world.signal.wait_for(
            lambda: not self.world.connections, timeout, "connections closed after restart"
        )
