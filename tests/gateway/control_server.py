"""A small fake of the canonical gateway's control socket (identify + session-ticket).

Serves one JSON line per connection like the real one (protocol.md §1.2), records every
request, and mints numbered single-use tickets (or asks ``mint``, e.g. the fake gateway's
``issue_ticket``); ``on_ticket`` lets a test hand each ticket to a server that checks them.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any


class FakeControlSocket:
    def __init__(
        self,
        path: str,
        *,
        home: str,
        api_origin: str,
        state: str = "ready",
        profile_id: str = "default",
        instance_id: str = "inst-1",
        capabilities: tuple[str, ...] = ("session-authority-v1",),
        on_ticket: Callable[[str], None] | None = None,
        mint: Callable[[], str] | None = None,
    ) -> None:
        self.path = path
        self.home = home
        self.api_origin = api_origin
        self.state = state
        self.profile_id = profile_id
        self.instance_id = instance_id
        self.capabilities = capabilities
        self.on_ticket = on_ticket
        self.mint = mint  # e.g. FakeGateway.issue_ticket: tickets the fake will accept
        self.requests: list[dict[str, Any]] = []
        self.tickets: list[str] = []
        self.identify_override: dict[str, Any] | None = None
        self._server: asyncio.AbstractServer | None = None

    async def __aenter__(self) -> FakeControlSocket:
        self._server = await asyncio.start_unix_server(self._handle, self.path)
        os.chmod(self.path, 0o600)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def identity(self) -> dict[str, Any]:
        result = {
            "runtime_protocol": 1,
            "served_profiles": [{"home": self.home, "profile_id": self.profile_id}],
            "state": self.state,
            "capabilities": list(self.capabilities),
            "authority_epoch": 7,
            "instance_id": self.instance_id,
            "api_origin": self.api_origin,
            "supervisor": "none",
        }
        result.update(self.identify_override or {})
        return result

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = json.loads(await reader.readline())
            self.requests.append(request)
            if request.get("verb") == "identify":
                answer: dict[str, Any] = {
                    "ok": True,
                    "protocol": 1,
                    "id": request["id"],
                    "result": self.identity(),
                }
            elif request.get("verb") == "session-ticket":
                ticket = (
                    self.mint()
                    if self.mint is not None
                    else f"ticket-{len(self.tickets) + 1}-{os.urandom(4).hex()}"
                )
                self.tickets.append(ticket)
                if self.on_ticket is not None:
                    self.on_ticket(ticket)
                params = request.get("params", {})
                answer = {
                    "ok": True,
                    "protocol": 1,
                    "id": request["id"],
                    "result": {
                        "ticket": ticket,
                        "profile_id": params.get("profile_id"),
                        "instance_id": params.get("instance_id"),
                        "runtime_protocol": 1,
                    },
                }
            else:
                answer = {
                    "ok": False,
                    "protocol": 1,
                    "id": request.get("id"),
                    "error": {"code": "unknown_verb"},
                }
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        finally:
            writer.close()
            await writer.wait_closed()
