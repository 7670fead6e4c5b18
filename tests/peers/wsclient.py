"""A deliberately dumb JSON-RPC WebSocket client for talking to a real Hermes gateway in tests.

Why not the app's own client: these tests prove the *peer* behaves as the docs say, so they
must not depend on the code under test. This client keeps every frame it receives in order,
matches responses to calls by id, answers desktop-window server requests (``terminal.read``
and friends) with ``-32601`` so the agent does not wait them out, and leaves ``approval``
requests to the test. Everything waits with a timeout (the ``within`` arguments, in seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect

Frame = dict[str, Any]
T = TypeVar("T")
DEFAULT_TIMEOUT_S = 30.0


class RpcError(Exception):
    """The gateway answered a call with a JSON-RPC error."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.code = error.get("code")
        self.error = error


def run_async(coro: Coroutine[Any, Any, T], timeout: float = 120.0) -> T:
    """Run ``coro`` from a sync test on a fresh loop, bounded by ``timeout`` seconds."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def is_event(frame: Frame, type_: str | None = None, session_id: str | None = None) -> bool:
    """True for an ``event`` notification (optionally of one type / session)."""
    if frame.get("method") != "event":
        return False
    params = frame.get("params") or {}
    return (type_ is None or params.get("type") == type_) and (
        session_id is None or params.get("session_id") == session_id
    )


def is_server_request(frame: Frame, method: str | None = None) -> bool:
    """True for a server→client request (string ``srq-`` id plus a method other than event)."""
    return (
        "id" in frame
        and frame.get("method") not in (None, "event")
        and (method is None or frame.get("method") == method)
    )


class RawGateway:
    """One connection. Use ``async with RawGateway.connect(url) as gw``."""

    def __init__(self, ws: ClientConnection, auto_decline: bool = True) -> None:
        self.ws = ws
        self.frames: list[Frame] = []
        self.auto_decline = auto_decline  # answer non-approval server requests with -32601
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Frame]] = {}
        self._arrived = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    def connect(cls, url: str, **kwargs: Any) -> _Connect:
        return _Connect(url, kwargs)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame: Frame = json.loads(raw)
                pending = self._pending.pop(frame["id"], None) if "method" not in frame else None
                if pending is not None and not pending.done():
                    pending.set_result(frame)
                    continue
                self.frames.append(frame)
                self._arrived.set()
                if self.auto_decline and is_server_request(frame) and frame["method"] != "approval":
                    await self.reply_error(frame["id"], -32601, "not handled by the test client")
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("gateway connection closed"))
            self._arrived.set()  # wake waiters so they see the closed reader

    async def send(self, frame: Frame) -> None:
        await self.ws.send(json.dumps(frame))

    async def call(
        self, method: str, params: dict[str, Any], within: float = DEFAULT_TIMEOUT_S
    ) -> Any:
        """Send a request and return its ``result`` (raises :class:`RpcError` on ``error``)."""
        self._next_id += 1
        rid = self._next_id
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        await self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            frame = await asyncio.wait_for(future, within)
        finally:
            self._pending.pop(rid, None)
        if "error" in frame:
            raise RpcError(method, frame["error"])
        return frame.get("result")

    async def reply(self, request_id: str, result: dict[str, Any]) -> None:
        """Answer a server→client request."""
        await self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def reply_error(self, request_id: str, code: int, message: str) -> None:
        await self.send(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        )

    async def wait_for(
        self, predicate: Callable[[Frame], bool], within: float = DEFAULT_TIMEOUT_S, start: int = 0
    ) -> tuple[int, Frame]:
        """First frame at index >= ``start`` matching ``predicate``, as (index, frame)."""

        async def scan() -> tuple[int, Frame]:
            index = start
            while True:
                while index < len(self.frames):
                    if predicate(self.frames[index]):
                        return index, self.frames[index]
                    index += 1
                self._arrived.clear()
                if self._reader is not None and self._reader.done():
                    raise ConnectionError("gateway connection closed while waiting")
                await self._arrived.wait()

        return await asyncio.wait_for(scan(), within)

    async def collect(
        self, predicate: Callable[[Frame], bool], count: int, within: float = DEFAULT_TIMEOUT_S
    ) -> list[Frame]:
        """Wait until ``count`` frames match ``predicate``; return them in arrival order."""
        await self.wait_for(lambda _: sum(map(predicate, self.frames)) >= count, within)
        return [f for f in self.frames if predicate(f)][:count]

    async def handshake(self, dialect: str, within: float = DEFAULT_TIMEOUT_S) -> Frame:
        """Wait for ``gateway.ready``; on dialect B also opt in to server requests."""
        _, ready = await self.wait_for(lambda f: is_event(f, "gateway.ready"), within)
        if dialect == "B":
            await self.call("client.capabilities", {"server_requests": True}, within)
        return ready


class _Connect:
    """Async context manager behind :meth:`RawGateway.connect` (starts/stops the reader)."""

    def __init__(self, url: str, kwargs: dict[str, Any]) -> None:
        self.url = url
        self.kwargs = kwargs
        self.gateway: RawGateway | None = None

    async def __aenter__(self) -> RawGateway:
        auto_decline = self.kwargs.pop("auto_decline", True)
        ws = await connect(self.url, proxy=None, open_timeout=10, **self.kwargs)
        self.gateway = RawGateway(ws, auto_decline)
        self.gateway._reader = asyncio.create_task(self.gateway._read())
        return self.gateway

    async def __aexit__(self, *exc: object) -> None:
        assert self.gateway is not None
        await self.gateway.ws.close()  # a clean 1000 close before the reader stops
        reader = self.gateway._reader
        if reader is not None:
            # How the reader ended (clean close or not) is not the test's concern here.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader, 5)
