"""Helpers for the fake gateway's own tests: a strict async runner, a raw JSON-RPC client, and
the set-up every dialect test starts with (a fake with its clients, a scripted turn prompted), so
that a test body shows only the exchange it checks.

The client is deliberately dumb (plain ``websockets`` and ``json``): these tests check the fake
against the wire protocol, so nothing from ``desktop.core`` may sit in between. Its waiting is the
fake's own :class:`ChangeSignal` (re-check a predicate on every change, never sleep): the same
logic on both ends of the socket, kept in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from tests.gatewaymodel import Batch, Command, Dialect, FakeGateway, Turn
from tests.gatewaymodel.records import ChangeSignal

T = TypeVar("T")

# The commands the dialect tests script. The fake only simulates them: nothing is ever run.
A = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path")
B = Command("find /tmp/hermes-scratch/b -delete", "find -delete")
C = Command("rm -rf /tmp/hermes-scratch/c", "delete in root path")
FAILS = Command("rm -rf /tmp/hermes-scratch/r1 && false", "delete in root path", exit_code=1)
BATCH_ABC = Turn([Batch((A, B, C))], reply="batch: done.")


def run(body: Callable[[], Awaitable[T]], timeout: float = 20.0) -> T:
    """Run ``body()`` on a fresh loop; fail on leftover tasks or errors the loop swallowed."""
    errors: list[str] = []
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(
        lambda _loop, ctx: errors.append(f"{ctx.get('message')} {ctx.get('exception')!r}")
    )

    async def guarded() -> T:
        return await asyncio.wait_for(body(), timeout)

    try:
        result = loop.run_until_complete(guarded())
        leftover = [t for t in asyncio.all_tasks(loop) if not t.done()]
        assert not leftover, f"tasks still running after the test: {leftover}"
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    assert not errors, errors
    return result


class RawClient:
    """A recording JSON-RPC client: every received message lands in :attr:`frames`."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[Any] = []
        self.closed: ConnectionClosed | None = None
        self._ids = itertools.count(1)
        self._changed = ChangeSignal()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(cls, url: str, **kwargs: Any) -> AsyncIterator[RawClient]:
        """Open a connection (``proxy=None``: loopback never goes through a proxy)."""
        async with ws_connect(url, proxy=None, open_timeout=5, close_timeout=2, **kwargs) as ws:
            client = cls(ws)
            try:
                yield client
            finally:
                await client.ws.close()
                await client._reader

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                try:
                    self.frames.append(json.loads(message))
                except ValueError:
                    self.frames.append(message)
                self._changed.notify()
        except ConnectionClosed as exc:
            self.closed = exc
        finally:
            if self.closed is None:
                self.closed = self.ws.protocol.close_exc
            self._changed.notify()

    async def wait(self, predicate: Callable[[], T | None], timeout: float = 5.0) -> T:
        """The first truthy ``predicate()`` value, re-checked on every message (and the close)."""
        return await self._changed.wait_for(predicate, timeout)

    async def wait_closed(self, timeout: float = 5.0) -> ConnectionClosed:
        """Wait until the server ended the connection; return how."""
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        assert self.closed is not None
        return self.closed

    # -- frames ---------------------------------------------------------------------------------

    def mark(self) -> int:
        """A position in :attr:`frames`, for "only what arrived after this" queries."""
        return len(self.frames)

    def events(self, event_type: str | None = None, since: int = 0) -> list[dict[str, Any]]:
        """Event params received (after ``since``), optionally of one type."""
        return [
            f["params"]
            for f in self.frames[since:]
            if isinstance(f, dict)
            and f.get("method") == "event"
            and (event_type is None or f["params"].get("type") == event_type)
        ]

    def server_requests(self, method: str = "approval", since: int = 0) -> list[dict[str, Any]]:
        """Server→client request frames received (after ``since``)."""
        return [
            f
            for f in self.frames[since:]
            if isinstance(f, dict) and f.get("method") == method and "id" in f
        ]

    async def event(
        self,
        event_type: str,
        where: Callable[[dict[str, Any]], bool] = lambda p: True,
        *,
        since: int = 0,
        timeout: float = 5.0,
    ) -> dict[str, Any]:
        """Wait for the first event of ``event_type`` (after ``since``) matching ``where``."""

        def found() -> dict[str, Any] | None:
            return next((p for p in self.events(event_type, since) if where(p)), None)

        return await self.wait(found, timeout)

    async def requests(
        self, count: int, method: str = "approval", *, since: int = 0, timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` server requests arrived (after ``since``); return them."""

        def enough() -> list[dict[str, Any]] | None:
            got = self.server_requests(method, since)
            return got if len(got) >= count else None

        return await self.wait(enough, timeout)

    # -- sending --------------------------------------------------------------------------------

    async def send(self, frame: Any) -> None:
        """Send one object as JSON (or a str as it is)."""
        await self.ws.send(frame if isinstance(frame, str) else json.dumps(frame))

    async def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a request without waiting; returns its id."""
        rpc_id = next(self._ids)
        await self.send({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params or {}})
        return rpc_id

    async def reply(self, rpc_id: int, timeout: float = 5.0) -> dict[str, Any]:
        """Wait for the response frame to ``rpc_id``."""

        def found() -> dict[str, Any] | None:
            return next(
                (
                    f
                    for f in self.frames
                    if isinstance(f, dict)
                    and f.get("id") == rpc_id
                    and "method" not in f
                    and ("result" in f or "error" in f)
                ),
                None,
            )

        return await self.wait(found, timeout)

    async def call(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0
    ) -> dict[str, Any]:
        """Send a request and return its whole response frame."""
        return await self.reply(await self.request(method, params), timeout)

    async def call_raw_params(self, method: str, params: Any) -> dict[str, Any]:
        """Send a request whose ``params`` may be anything (to test the server's checks)."""
        rpc_id = next(self._ids)
        await self.send({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params})
        return await self.reply(rpc_id)

    async def result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and return its ``result`` (fails the test on an error reply)."""
        frame = await self.call(method, params)
        assert "result" in frame, frame
        return frame["result"]

    async def answer(self, srq_id: str, result: Any) -> None:
        """Answer a server→client request with a response frame."""
        await self.send({"jsonrpc": "2.0", "id": srq_id, "result": result})


def dial(fake: FakeGateway, **kwargs: Any) -> AbstractAsyncContextManager[RawClient]:
    """A raw client the way ``fake``'s dialect is dialled: C offers a freshly minted ticket
    subprotocol, A and B carry the token in :attr:`FakeGateway.url`."""
    if fake.dialect is Dialect.C:
        kwargs.setdefault("subprotocols", fake.subprotocols())
    return RawClient.connect(fake.url, **kwargs)


@contextlib.asynccontextmanager
async def fake_and_clients(
    dialect: str, count: int, **options: Any
) -> AsyncIterator[tuple[FakeGateway, list[RawClient]]]:
    """A started fake of ``dialect`` and ``count`` raw clients connected to it (in order), all
    closed after, the clients first.

    ``speed=0`` (script pauses take no time) unless ``options`` say otherwise; it has no effect
    when a ``clock`` is given.
    """
    options.setdefault("speed", 0)
    async with FakeGateway(dialect, **options) as fake, contextlib.AsyncExitStack() as stack:
        yield fake, [await stack.enter_async_context(dial(fake)) for _ in range(count)]


@contextlib.asynccontextmanager
async def fake_and_client(
    dialect: str, **options: Any
) -> AsyncIterator[tuple[FakeGateway, RawClient]]:
    """:func:`fake_and_clients` with one client: the common case."""
    async with fake_and_clients(dialect, 1, **options) as (fake, [client]):
        yield fake, client


async def submit_turn(
    fake: FakeGateway, client: RawClient, sid: str, turn: Turn, text: str = "go"
) -> Any:
    """Script the session's next turn as ``turn`` and prompt it; ``prompt.submit``'s result."""
    fake.queue_turn(turn)
    return await client.result("prompt.submit", {"session_id": sid, "text": text})


def executed_commands(fake: FakeGateway) -> list[str]:
    """The command lines the fake has (pretended to have) run, in order."""
    return [e.command for e in fake.executed]


async def caught_up(fake: FakeGateway, client: RawClient, conn: int = 0) -> None:
    """Barrier: the client has received every frame the fake has sent on connection ``conn``.

    ``fake.wait_for_idle`` is a server-side fact; frames may still be in flight. Call this
    before asserting on what the client saw.
    """
    await client.wait(lambda: len(client.frames) >= len(fake.connections[conn].sent))


async def settled(fake: FakeGateway, client: RawClient, sid: str, conn: int = 0) -> None:
    """The session's turn ended on the fake and the client has seen all of it."""
    await fake.wait_for_idle(sid)
    await caught_up(fake, client, conn)


async def ready(client: RawClient) -> dict[str, Any]:
    """Wait for ``gateway.ready`` and return its payload."""
    params = await client.event("gateway.ready")
    payload: dict[str, Any] = params["payload"]
    return payload


async def open_b(client: RawClient, *, caps: bool = True, source: str = "desktop") -> str:
    """B handshake (ready, capabilities) plus ``session.create``; returns the session id."""
    await ready(client)
    if caps:
        await client.result("client.capabilities", {"server_requests": True})
    created = await client.result(
        "session.create", {"source": source, "close_on_disconnect": False}
    )
    return str(created["session_id"])
