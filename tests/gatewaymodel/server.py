"""The gateway model's server: a real websockets server on 127.0.0.1 over the model.

Tests use its subclass with fault injection, ``tests.gatewaymodel.FakeGateway``::

    async with FakeGateway("B", speed=0.01) as fake:
        async with connect(fake.url, proxy=None) as ws:
            ...
            first, *_ = await fake.wait_for_requests(3)
"""

from __future__ import annotations

import asyncio
import secrets
import urllib.parse
from collections.abc import Callable
from typing import Any, Literal, Self, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tests.gatewaymodel import rpc_approvals, rpc_config, rpc_sessions, wire
from tests.gatewaymodel.agent import start_turn
from tests.gatewaymodel.clock import Clock, ManualClock, ScaledClock
from tests.gatewaymodel.connection import Connection
from tests.gatewaymodel.dialect import (
    PUBLIC_SUBPROTOCOL,
    TICKET_PREFIX,
    VERSION,
    WS_PATH,
    Dialect,
    gateway_ready_payload,
)
from tests.gatewaymodel.handshake import Gatekeeper, Handshake
from tests.gatewaymodel.model import Execution, PendingRequest, Session
from tests.gatewaymodel.publish import Publisher
from tests.gatewaymodel.records import ConnectionRecord
from tests.gatewaymodel.requests import RequestBroker
from tests.gatewaymodel.rpc import Dispatcher
from tests.gatewaymodel.script import Command, ScenarioBook, Turn, TurnSource
from tests.gatewaymodel.world import Policy, World

T = TypeVar("T")


class GatewayModel:
    """A protocol-faithful fake gateway speaking dialect ``A``, ``B`` or ``C``.

    Args:
        dialect: ``"A"`` (hermes-agent 0.19.0), ``"B"`` (main tui_gateway) or ``"C"`` (canonical).
        token: the ``?token=`` credential for A/B (minted when omitted).
        clock: the time source; default ``ScaledClock(speed)``.
        speed: real seconds per script second when no clock is given (1.0 = human pace).
        turns: picks the scripted turn for each ``prompt.submit`` text (default: an empty
            book, whose turn just answers; a test may submit its own turns).
        approval_timeout: script seconds before an unanswered approval times out (None: never).
        hermes_home: the HERMES_HOME ``config.get {key: "profile"}`` answers with (A/B); with
            "" (the default) that key is unknown (4002), as on a gateway that has no profile.
        approvals_mode: initial ``approvals.mode`` (manual | smart | off).
        env_yolo: YOLO frozen on for the whole process (``HERMES_YOLO_MODE``).
        default_source: ``source`` of sessions created without one (``desktop`` batches).
        auth_failure: ``"http"`` answers a bad credential with 403; ``"close"`` accepts, then
            closes with 4401.
        host: where to listen (loopback).
        port: 0 picks a free port.
        history: keep only this many closed requests, executions and frames per connection
            (trimmed after each turn); None keeps everything, as tests want.
    """

    def __init__(
        self,
        dialect: Dialect | str = "B",
        *,
        token: str | None = None,
        clock: Clock | None = None,
        speed: float = 1.0,
        turns: TurnSource | None = None,
        approval_timeout: float | None = None,
        hermes_home: str = "",
        approvals_mode: str = "manual",
        env_yolo: bool = False,
        default_source: str = "desktop",
        auth_failure: Literal["http", "close"] = "http",
        host: str = "127.0.0.1",
        port: int = 0,
        history: int | None = None,
    ) -> None:
        self.dialect = Dialect(dialect)
        self.token = token or secrets.token_urlsafe(24)
        self.clock: Clock = clock if clock is not None else ScaledClock(speed)
        if isinstance(self.clock, ManualClock):
            self.clock.subscribe(lambda: self.world.changed())
        self.host, self._port = host, port
        policy = Policy(approvals_mode, env_yolo, approval_timeout, hermes_home)
        self.world = World(
            self.dialect, self.clock, turns or ScenarioBook(), policy, default_source, history
        )
        self.world.pub = Publisher(self.world)
        self.world.reqs = RequestBroker(self.world)
        table = {
            **rpc_sessions.handlers(self.dialect),
            **rpc_approvals.handlers(self.dialect),
            **rpc_config.handlers(self.dialect),
        }
        self._dispatcher = Dispatcher(self.world, table)
        self._gate = self._gatekeeper(auth_failure)
        self._server: Server | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def _gatekeeper(self, auth_failure: Literal["http", "close"]) -> Gatekeeper:
        return Gatekeeper(
            self.dialect, self.token, auth_failure, self.world.changed, self._public_status
        )

    async def start(self) -> Self:
        """Listen on ``host:port`` (port 0 picks a free one)."""
        if self._server is None:
            self._server = await serve(
                self._serve_connection,
                self.host,
                self._port,
                process_request=self._gate.check,
                select_subprotocol=self._gate.select,
                ping_interval=None,
                max_size=None,
            )
            self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Stop the agent, close every connection (1001) and stop listening."""
        tasks = list(self.world.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server, self._server = self._server, None
        if server is not None:
            server.close(close_connections=True)
            await server.wait_closed()

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        return self._port

    @property
    def base_url(self) -> str:
        """``ws://127.0.0.1:<port>/api/ws`` with no credential."""
        return f"ws://{self.host}:{self._port}{WS_PATH}"

    @property
    def url(self) -> str:
        """The URL a client dials: with ``?token=`` on A/B; C needs a ticket subprotocol."""
        if self.dialect is Dialect.C:
            return self.base_url
        return f"{self.base_url}?token={urllib.parse.quote(self.token)}"

    def issue_ticket(self) -> str:
        """C: mint a single-use ticket (offer ``hermes-gateway-ticket.<ticket>``)."""
        return self._gate.issue_ticket()

    def subprotocols(self, ticket: str | None = None) -> list[str]:
        """C: the subprotocol list for one connect (mints a ticket when none is given)."""
        return [PUBLIC_SUBPROTOCOL, TICKET_PREFIX + (ticket or self.issue_ticket())]

    def _public_status(self) -> dict[str, Any]:
        """``GET /api/status``: what the real dashboard/serve process tells anyone."""
        return {
            "version": VERSION[self.dialect],
            "gateway_running": True,
            "active_sessions": len(self.world.sessions),
            "auth_required": True,
        }

    # -- one connection ------------------------------------------------------------------------

    async def _serve_connection(self, ws: ServerConnection) -> None:
        hs = self._gate.take(ws)
        index = len(self.world.records)
        record = ConnectionRecord(index, hs.attempt, hs.path, hs.query, ws.subprotocol, hs.offered)
        self.world.records.append(record)
        conn = self._connection(ws, record, hs)
        self.world.connections[conn.index] = conn
        writer = asyncio.get_running_loop().create_task(conn.run_writer())
        try:
            refusal = self._close_on_open(hs)
            if refusal is not None:
                conn.close_soon(*refusal)
                await writer
                return
            ready = gateway_ready_payload(
                self.dialect,
                replay_epoch=self.world.replay_epoch,
                authority_epoch=self.world.authority_epoch,
                instance_id=self.world.instance_id,
            )
            conn.send(wire.event({"type": "gateway.ready", "payload": ready}))
            self._ready_sent(conn, hs)
            await self._read_loop(conn)
        finally:
            conn.closed = True
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
            record.open, record.close_code = False, ws.close_code
            self.world.connections.pop(conn.index, None)
            self._detach(conn)

    def _connection(
        self, ws: ServerConnection, record: ConnectionRecord, hs: Handshake
    ) -> Connection:
        """The connection object for one accepted socket (tests hand out faulty ones)."""
        return Connection(ws, record, self.world.changed)

    def _close_on_open(self, hs: Handshake) -> tuple[int, str] | None:
        """The close code and reason an accepted connection gets at once (None: serve it)."""
        return None if hs.authorized else (4401, "unauthorized")

    def _ready_sent(self, conn: Connection, hs: Handshake) -> None:
        """Called once ``gateway.ready`` is queued."""

    async def _read_loop(self, conn: Connection) -> None:
        while True:
            await conn.readable()
            try:
                raw = await conn.ws.recv()
            except ConnectionClosed:
                return
            incoming = wire.parse(raw)
            conn.record.received.append(incoming.raw)
            self.world.changed()
            await conn.readable()
            self._dispatcher.handle(conn, incoming)

    def _detach(self, conn: Connection) -> None:
        for session in list(self.world.sessions.values()):
            was_viewer = session.viewers.pop(conn.index, None) is not None
            if was_viewer and session.close_on_disconnect and not session.viewers:
                rpc_sessions.close_session(self.world, session)
        self.world.changed()

    # -- observability -------------------------------------------------------------------------

    @property
    def connections(self) -> list[ConnectionRecord]:
        """Every accepted connection, in accept order (closed ones included)."""
        return self.world.records

    @property
    def executed(self) -> list[Execution]:
        """Every simulated command execution, in order."""
        return self.world.executed

    @property
    def requests(self) -> list[PendingRequest]:
        """Every approval/window request ever opened, in order (open and closed)."""
        return self.world.requests

    @property
    def sessions(self) -> dict[str, Session]:
        """Live sessions by runtime id."""
        return self.world.sessions

    @property
    def late_answers(self) -> list[dict[str, Any]]:
        """Response frames to closed or unknown request ids (they got no reply)."""
        return self.world.late_answers

    @property
    def clarify_answers(self) -> list[dict[str, Any]]:
        """What each ``clarify`` step got: ``{answers, outcome}`` as the tool reports it."""
        return self.world.clarify_answers

    @property
    def handshake_attempts(self) -> int:
        """Opening handshakes seen so far, refused ones included."""
        return self._gate.attempts

    def session(self, key: str) -> Session:
        """A live session by runtime id, stored id or title (KeyError if none)."""
        found = self.world.find_session(key)
        if found is None:
            raise KeyError(key)
        return found

    def open_requests(self, session_id: str | None = None) -> list[PendingRequest]:
        """Open requests, oldest first, for one session or all."""
        session = self.session(session_id) if session_id else None
        return self.world.open_requests(session)

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float | None = 5.0, what: str = ""
    ) -> T:
        """Wait (real seconds; None: no limit) until ``predicate()`` is truthy; return it."""
        return await self.world.signal.wait_for(predicate, timeout, what)

    async def wait_for_requests(
        self, count: int, session_id: str | None = None, *, timeout: float = 5.0
    ) -> list[PendingRequest]:
        """Wait until at least ``count`` requests are open; return the open ones, oldest first."""

        def enough() -> list[PendingRequest]:
            found = [
                r
                for r in self.world.open_requests()
                if session_id is None or r.session.sid == session_id
            ]
            return found if len(found) >= count else []

        return await self.wait_for(enough, timeout, f"{count} open request(s)")

    async def wait_for_idle(self, session_id: str, *, timeout: float | None = 5.0) -> Session:
        """Wait until the session's turn (and any queued turn) has ended."""
        session = self.session(session_id)

        def idle() -> Session | None:
            return session if session.turn_task is None and not session.running else None

        return await self.wait_for(idle, timeout, f"session {session_id} idle")

    # -- driving the agent from a test -----------------------------------------------------------

    def create_session(
        self, *, source: str | None = None, cwd: str | None = None, title: str = ""
    ) -> Session:
        """Create a session server-side, as another surface would (no viewer yet)."""
        return rpc_sessions.new_session(self.world, source=source, cwd=cwd, title=title)

    def submit(self, session_id: str, text: str = "", turn: Turn | None = None) -> str:
        """Start a turn server-side (``turn`` wins over the ``text`` lookup)."""
        return start_turn(self.world, self.session(session_id), text, turn)

    def queue_turn(self, turn: Turn) -> None:
        """The next ``prompt.submit`` (any session) runs ``turn`` instead of a scenario."""
        self.world.queued_turns.append(turn)

    def raise_approval(self, session_id: str, command: Command) -> PendingRequest:
        """Open an approval outside the scripted turn, as a parallel tool would.

        On A this is the only way to get two approvals pending on one session at once, which is
        what makes its FIFO ``approval.respond`` observable. Nothing runs when it is answered:
        ``await req.future`` tells the test how it ended.
        """
        return self.world.reqs.open_approval(self.session(session_id), command)

    def set_yolo(self, session_id: str, on: bool) -> None:
        """Flip a session's YOLO flag server-side (a ``session.info`` follows)."""
        session = self.session(session_id)
        session.yolo = on
        self.world.pub.send_info(session)

    def set_approvals_mode(self, mode: str) -> None:
        """Change ``approvals.mode`` server-side (``session.info`` to every session)."""
        self.world.policy.approvals_mode = mode
        for session in list(self.world.sessions.values()):
            self.world.pub.send_info(session)
