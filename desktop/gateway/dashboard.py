"""Attach to a running loopback ``hermes dashboard`` (opt-in only).

Opt-in: the token is scraped from the page (an implementation detail) and a dashboard's
sessions belong to the person's browser. Probed on every dial: a restart makes a new token.
"""

from __future__ import annotations

import asyncio
import json
import re

from desktop.gateway.errors import ConnectError
from desktop.logsetup import register_secret
from desktop.settings.model import is_loopback_host

DEFAULT_PORT = 9119
TOKEN_RE = re.compile(r"""__HERMES_SESSION_TOKEN__\s*=\s*["']([^"'<>\s]+)["']""")
MAX_BODY = 4 * 1024 * 1024


async def http_get(host: str, port: int, path: str, *, timeout: float = 3.0) -> tuple[int, bytes]:
    """A minimal HTTP/1.1 GET to a loopback host: (status, body)."""
    if not is_loopback_host(host):
        raise ConnectError(f"Refusing to probe non-loopback host {host}.", fatal=True)
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Accept: */*\r\nConnection: close\r\n\r\n".encode()
            )
            await writer.drain()
            raw = await reader.read(MAX_BODY)
            while chunk := await reader.read(MAX_BODY):
                raw += chunk
                if len(raw) > MAX_BODY:
                    break
        finally:
            writer.close()
            await writer.wait_closed()
    head, _, body = raw.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise ConnectError(f"http://{host}:{port}{path} did not answer HTTP.") from None
    if b"transfer-encoding: chunked" in head.lower():
        body = _dechunk(body)
    return status, body


def _dechunk(body: bytes) -> bytes:
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2 :]
    return out


async def probe_dashboard(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> str:
    """Probe ``/api/status``, scrape the session token from ``/``: the dial URL (a secret)."""
    where = f"http://{host}:{port}"
    try:
        status, body = await http_get(host, port, "/api/status")
    except (OSError, TimeoutError):
        raise ConnectError(
            f"No Hermes dashboard answers at {where}. Start one with `hermes dashboard`."
        ) from None
    if status != 200:
        raise ConnectError(f"{where}/api/status answered HTTP {status}; not a Hermes dashboard.")
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        raise ConnectError(f"{where}/api/status is not a Hermes dashboard.") from None
    try:
        status, page = await http_get(host, port, "/")
    except (OSError, TimeoutError):
        raise ConnectError(f"The Hermes dashboard at {where} stopped answering.") from None
    match = TOKEN_RE.search(page.decode("utf-8", "replace")) if status == 200 else None
    if match is None:
        raise ConnectError(
            f"The Hermes dashboard at {where} does not expose its session token (gated or "
            "headless mode). Configure its URL and token in Settings instead.",
            fatal=True,
        )
    token = match.group(1)
    register_secret(token)
    return f"ws://{host}:{port}/api/ws?token={token}"
