"""A minimal canonical control socket (identify + session-ticket) for the safety rigs.

Why not ``tests.gateway.control_server``: that helper lets a connection that closes before
sending a line (a dial cancelled by ``GatewayClient.close()`` mid-way) raise inside the
server's callback, which the strict loop guard of this tier reports as a loop error. This one
treats an empty or unreadable request as a closed connection. Tickets come from the fake
gateway (``mint``), so each is single use, as on a real canonical gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from typing import Any


class ControlSocket:
    def __init__(self, path: str, *, home: str, api_origin: str, mint: Callable[[], str]) -> None:
        self.path, self.home, self.api_origin, self.mint = path, home, api_origin, mint
        self.tickets: list[str] = []
        self._server: asyncio.AbstractServer | None = None

    async def __aenter__(self) -> ControlSocket:
        self._server = await asyncio.start_unix_server(self._handle, self.path)
        os.chmod(self.path, 0o600)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        base = {"ok": True, "protocol": 1, "id": request.get("id")}
        if request.get("verb") == "identify":
            return base | {
                "result": {
                    "runtime_protocol": 1,
                    "served_profiles": [{"home": self.home, "profile_id": "default"}],
                    "state": "ready",
                    "capabilities": ["session-authority-v1"],
                    "authority_epoch": 1,
                    "instance_id": "inst-safety",
                    "api_origin": self.api_origin,
                    "supervisor": "none",
                }
            }
        if request.get("verb") == "session-ticket":
            ticket = self.mint()
            self.tickets.append(ticket)
            params = request.get("params") or {}
            return base | {
                "result": {
                    "ticket": ticket,
                    "profile_id": params.get("profile_id"),
                    "instance_id": params.get("instance_id"),
                    "runtime_protocol": 1,
                }
            }
        return {
            "ok": False,
            "protocol": 1,
            "id": request.get("id"),
            "error": {"code": "unknown_verb"},
        }

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            try:
                request = json.loads(line)
            except ValueError:
                return  # the client went away before asking
            if isinstance(request, dict):
                writer.write(json.dumps(self._answer(request)).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
