"""One client connection: an ordered outbox, and the switches faults pull.

Everything the fake sends to a client goes through :meth:`Connection.send`, which only enqueues.
That keeps emitting synchronous (a batch of N approval requests is published in one go, with no
other frame in between, as the real gateway does within ~16 ms) and lets one writer task own the
socket: it preserves order, counts frames for ``DropAfter``/``StallAfter`` and holds frames while
the connection is stalled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from desktop.gateway.fake import wire
from desktop.gateway.fake.faults import DelayResponses
from desktop.gateway.fake.records import ConnectionRecord

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
        self.write_gate = asyncio.Event()
        self.write_gate.set()
        self.read_gate = asyncio.Event()
        self.read_gate.set()
        self.drop_after: int | None = None
        self.stall_after: int | None = None
        self.delay: DelayResponses | None = None
        self.sent_count = 0
        self.closed = False

    @property
    def index(self) -> int:
        """The connection number, from 0, in accept order."""
        return self.record.index

    @property
    def stalled(self) -> bool:
        """True while the fake neither reads nor writes on this connection."""
        return not self.write_gate.is_set()

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

    def stall(self) -> None:
        """Stop reading (so no pong either) and hold every outgoing frame."""
        self.write_gate.clear()
        self.read_gate.clear()
        with contextlib.suppress(RuntimeError):
            self.ws.transport.pause_reading()
        self._on_change()

    def unstall(self) -> None:
        """Resume reading and flush the held frames in order."""
        with contextlib.suppress(RuntimeError):
            self.ws.transport.resume_reading()
        self.read_gate.set()
        self.write_gate.set()
        self._on_change()

    async def run_writer(self) -> None:
        """Own the socket's write side until the connection ends."""
        try:
            while True:
                item = await self._outbox.get()
                await self.write_gate.wait()
                if isinstance(item, _Control):
                    if item.action == "close":
                        await self.ws.close(item.code, item.reason)
                    else:
                        self.abort()
                    return
                if self.drop_after is not None and self.sent_count >= self.drop_after:
                    self.abort()
                    return
                text = wire.encode(item) if isinstance(item, dict) else item
                await self.ws.send(text)
                self.sent_count += 1
                self.record.sent.append(item)
                self._on_change()
                if self.drop_after is not None and self.sent_count >= self.drop_after:
                    self.abort()
                    return
                if self.stall_after is not None and self.sent_count >= self.stall_after:
                    self.stall_after = None
                    self.stall()
        except ConnectionClosed:
            return
        finally:
            self.closed = True
