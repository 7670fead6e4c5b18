"""A minimal loopback HTTP server standing in for ``hermes dashboard`` (status + page)."""

from __future__ import annotations

import asyncio
import json


class FakeDashboard:
    def __init__(
        self, *, token: str | None, version: str = "0.19.0", chunked: bool = False
    ) -> None:
        self.token = token
        self.version = version
        self.chunked = chunked
        self.paths: list[str] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> FakeDashboard:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        path = head.split(b" ")[1].decode()
        self.paths.append(path)
        if path == "/api/status":
            body = json.dumps({"version": self.version, "auth_required": False}).encode()
        else:
            script = (
                f'<script>window.__HERMES_SESSION_TOKEN__="{self.token}";</script>'
                if self.token
                else ""
            )
            body = f"<html><head>{script}</head><body>Hermes</body></html>".encode()
        if self.chunked:
            payload = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
            headers = b"Transfer-Encoding: chunked\r\n"
        else:
            payload, headers = body, b"Content-Length: %d\r\n" % len(body)
        writer.write(b"HTTP/1.1 200 OK\r\n" + headers + b"Connection: close\r\n\r\n" + payload)
        await writer.drain()
        writer.close()
        await writer.wait_closed()
