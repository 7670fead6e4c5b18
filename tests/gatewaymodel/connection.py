"""One client connection: an ordered outbox and the one task that writes the socket.

Everything the fake sends to a client goes through :meth:`Connection.send`, which only enqueues.
That keeps emitting synchronous (a batch of N approval requests is published in one go, with no
other frame in between, as the real gateway does within ~16 ms) and lets one writer task own the
socket, so frames leave in order. The faults subclass it to drop, stall or delay.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from tests.gatewaymodel import wire
from tests.gatewaymodel.records import ConnectionRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Control:
    action: str  # "abort" | "close"
    code: int = 1000
    reason: str = ""


class Connection:
    """The fake's side of one accepted WebSocket."""

    def __init__(
        self, ws: ServerConnection, record: ConnectionRecord, on_change: Callable[[], None]
    ) -> None:
        self.ws = ws
        self.record = record
        self._on_change = on_change
        self._outbox: asyncio.Queue[Any] = asyncio.Queue()
        self.sent_count = 0
        self.closed = False

    @property
    def index(self) -> int:
        """The connection number, from 0, in accept order."""
        return self.record.index

    def send(self, frame: dict[str, Any] | str | bytes) -> None:
        """Queue one frame (a dict is JSON-encoded; str/bytes are sent as they are)."""
        if not self.closed:
            self._outbox.put_nowait(frame)

    def close_soon(self, code: int = 1000, reason: str = "") -> None:
        """Close with ``code`` after the frames already queued."""
        self._outbox.put_nowait(_Control("close", code, reason))

    def abort(self) -> None:
        """Drop the TCP connection now, without a close frame (the client sees 1006)."""
        self.closed = True
        self.ws.transport.abort()

    async def readable(self) -> None:
        """Return when the server may read the next frame (always, here)."""

    async def writable(self) -> None:
        """Return when the writer may send the next frame (always, here)."""

    def may_send(self) -> bool:
        """Whether the next frame goes out (False ends the connection without a close frame)."""
        return True

    def sent(self) -> None:
        """Called after each frame is written."""

    async def run_writer(self) -> None:
        """Own the socket's write side until the connection ends."""
        try:
            while True:
                item = await self._outbox.get()
                await self.writable()
                if isinstance(item, _Control):
                    if item.action == "close":
                        await self.ws.close(item.code, item.reason)
                    else:
                        self.abort()
                    return
                if not self.may_send():
                    self.abort()
                    return
                text = wire.encode(item) if isinstance(item, dict) else item
                await self.ws.send(text)
                self.sent_count += 1
                self.record.sent.append(item)
                self._on_change()
                if not self.may_send():
                    self.abort()
                    return
                self.sent()
        except ConnectionClosed:
            return
        finally:
            self.closed = True
