"""A tiny scripted websockets server on 127.0.0.1:0 for transport tests.

Each accepted connection runs ``behaviour(conn_index)``'s choice: ``"ok"`` (0.19.0-style
ready, answers every request with ``{"echo": method}``, except methods in ``silent`` which are
never answered), ``"no-ready"`` (accepts and says nothing), ``"close:<code>"`` (sends ready,
then closes with that code once the handshake request arrives) or ``"drop-on:<method>"``
(aborts the TCP connection when that method arrives). Every text received is recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

READY_A = {
    "jsonrpc": "2.0",
    "method": "event",
    "params": {"type": "gateway.ready", "payload": {"skin": {}}},
}


class MiniGateway:
    def __init__(
        self,
        behaviour: Callable[[int], str] = lambda _i: "ok",
        *,
        token: str | None = None,
        silent: frozenset[str] = frozenset(),
        canonical: bool = False,
        echo_subprotocol: bool = True,
        results: dict[str, Any] | None = None,
        version: str = "",
        redirects: dict[str, str] | None = None,
    ) -> None:
        self.version = version  # served at /api/status when set
        # request path -> Location of a 302 answer ("{port}" is replaced by this server's port)
        self.redirects = redirects or {}
        self.behaviour = behaviour
        self.results = results or {}  # method -> result (default: {"echo": method})
        self.canonical = canonical  # demand a valid single-use ticket subprotocol
        self.echo_subprotocol = echo_subprotocol
        self.tickets: set[str] = set()  # valid, unused tickets (the control socket adds them)
        self.used_tickets: list[str] = []
        self.token = token
        self.silent = silent
        self.received: list[list[dict[str, Any]]] = []
        self.close_codes: list[int | None] = []
        self.accepted = 0
        self.rejected = 0
        self.changed = asyncio.Event()
        self._server: Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        suffix = f"?token={self.token}" if self.token else ""
        return f"ws://127.0.0.1:{self.port}/api/ws{suffix}"

    async def start(self, port: int = 0) -> MiniGateway:
        self._server = await serve(
            self._handle,
            "127.0.0.1",
            port,
            process_request=self._check,
            select_subprotocol=self._select if self.canonical else None,
        )
        self.port = self._server.sockets[0].getsockname()[1] if port == 0 else port
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> MiniGateway:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/api/status" and self.version:
            return connection.respond(200, json.dumps({"version": self.version}))
        if request.path in self.redirects:
            response = connection.respond(302, "moved\n")
            response.headers["Location"] = self.redirects[request.path].format(port=self.port)
            return response
        if self.token is not None and f"token={self.token}" not in request.path:
            self.rejected += 1
            self._notify()
            return connection.respond(403, "forbidden\n")
        return None

    def _select(self, connection: ServerConnection, offered: Any) -> Any:
        if not self.echo_subprotocol:
            return None
        return "hermes-gateway-v1" if "hermes-gateway-v1" in offered else None

    def _ticket_ok(self, ws: ServerConnection) -> bool:
        header = ws.request.headers.get("Sec-WebSocket-Protocol", "") if ws.request else ""
        offered = [p.strip() for p in header.split(",")]
        tickets = [
            p.removeprefix("hermes-gateway-ticket.")
            for p in offered
            if p.startswith("hermes-gateway-ticket.")
        ]
        if len(tickets) != 1 or tickets[0] not in self.tickets:
            return False
        self.tickets.discard(tickets[0])  # single use
        self.used_tickets.append(tickets[0])
        return True

    def _notify(self) -> None:
        self.changed.set()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

    def methods(self, index: int) -> list[str]:
        return [f.get("method", "") for f in self.received[index]]

    async def _handle(self, ws: ServerConnection) -> None:
        index = self.accepted
        self.accepted += 1
        self.received.append([])
        mode = self.behaviour(index)
        self._notify()
        try:
            if self.canonical and not self._ticket_ok(ws):
                await ws.close(4401, "ticket refused")
                return
            if mode != "no-ready":
                await ws.send(json.dumps(READY_A))
            async for raw in ws:
                frame = json.loads(raw)
                self.received[index].append(frame)
                self._notify()
                method = frame.get("method")
                if mode.startswith("close:") and method == "client.capabilities":
                    await ws.close(int(mode.split(":")[1]), "scripted close")
                    break
                if mode == f"drop-on:{method}":
                    ws.transport.abort()
                    break
                if method and "id" in frame and method not in self.silent:
                    value = self.results.get(method, {"echo": method})
                    answer = {"jsonrpc": "2.0", "id": frame["id"], "result": value}
                    await ws.send(json.dumps(answer))
        except Exception:  # the client went away; the record is what matters
            pass
        finally:
            self.close_codes.append(ws.close_code)
            self._notify()
