"""Move frames between one open WebSocket and the sans-I/O core.

One writer sends in the core's order and reports each frame's fate exactly once: not OPEN or
still queued: ``maybe_sent=False`` (websockets writes nothing unless OPEN on entry); ``send``
raised or was cancelled: ``maybe_sent=True``; else ``frame_written``.

websockets reads a pong only after every frame before it, so a reader task only fills a bounded
inbox, handed to the core in batches bounded in count and time: a burst cannot starve the loop.
A batch that took in new approvals ends at the first frame that brings none: their rows are
painted before the flood behind them is read, and a burst of approvals still comes in batches.

The keepalive is our own because websockets fixes its pace at open: while approvals are open a
hung gateway must show within 10 s. Any frame received counts as a sign of life, like a pong.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from websockets.asyncio.client import ClientConnection
from websockets.protocol import State

from desktop.core.gateway_core import GatewayCore, OutboundFrame

log = logging.getLogger(__name__)
wire_log = logging.getLogger("desktop.gateway.wire")  # "< in" / "> out" frames at DEBUG

FrameFate = Callable[[OutboundFrame, bool | None], None]  # (frame, None): written

BATCH_FRAMES = 200  # at most this many frames reach the core per loop turn...
BATCH_SECONDS = 0.02  # ...and no more once this much time went into a batch
INBOX_FRAMES = 20_000  # the reader waits while this many frames (or bytes below) are unread
INBOX_BYTES = 64 << 20


@dataclass(frozen=True)
class KeepalivePace:
    """Seconds between pings and how long to wait for a sign of life after each."""

    interval: float
    timeout: float


class SocketPump:
    def __init__(
        self,
        ws: ClientConnection,
        core: GatewayCore,
        *,
        on_received: Callable[[], bool],  # True: a new approval to show
        on_fate: FrameFate,
        peek: Callable[[str | bytes], None],
        pace: Callable[[], KeepalivePace] | None = None,
    ) -> None:
        self.ws = ws
        self._core = core
        self._on_received = on_received
        self._on_fate = on_fate
        self._peek = peek  # sees each message before the core
        self._queue: collections.deque[OutboundFrame] = collections.deque()
        self._wake = asyncio.Event()
        self._closing = False
        self._writer: asyncio.Task[None] | None = None
        self.sending: OutboundFrame | None = None
        self._inbox: collections.deque[str | bytes] = collections.deque()
        self._inbox_bytes = 0
        self._arrived = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._read_done = False
        self._closed_by: BaseException | None = None
        self.frames_received = 0  # every message read (the keepalive's signs of life)
        self.silent_for: float | None = None  # set when the keepalive gave the gateway up
        self._pace = pace  # None: no keepalive
        self._nudge: asyncio.Future[None] | None = None
        self._sleeping_at: KeepalivePace | None = None  # the pace of the current sleep

    # -- writing ---------------------------------------------------------------------------
    def flush(self) -> None:
        """Take every frame the core wants written and wake the writer. Synchronous."""
        frames = self._core.data_to_send()
        if not frames:
            return
        if self._closing:
            for frame in frames:
                self._fail(frame, maybe_sent=False)
            return
        self._queue.extend(frames)
        self._wake.set()

    def withdraw_rpc(self, rpc_id: int) -> bool:
        """Unqueue request ``rpc_id`` whose caller gave up; False if in flight or written."""
        for frame in self._queue:
            if frame.rpc_id == rpc_id:
                self._queue.remove(frame)
                self._fail(frame, maybe_sent=False)
                return True
        return False

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                frame = self._queue.popleft()
                if self.ws.protocol.state is not State.OPEN:
                    self._fail(frame, maybe_sent=False)
                    continue
                self.sending = frame
                if wire_log.isEnabledFor(logging.DEBUG):
                    wire_log.debug("> %.2000s", frame.text)
                try:
                    await self.ws.send(frame.text)
                except asyncio.CancelledError:
                    self._fail(frame, maybe_sent=True)
                    raise
                except Exception as exc:  # ConnectionClosed, OSError: it may have gone out
                    log.debug("send failed after the socket accepted it: %s", type(exc).__name__)
                    self._fail(frame, maybe_sent=True)
                else:
                    self._core.frame_written(frame.frame_id)
                    self._on_fate(frame, None)
                finally:
                    self.sending = None

    def _fail(self, frame: OutboundFrame, *, maybe_sent: bool) -> None:
        self._core.frame_failed(frame.frame_id, maybe_sent=maybe_sent)
        self._on_fate(frame, maybe_sent)

    # -- reading ---------------------------------------------------------------------------
    async def run(self) -> BaseException | None:
        """The closing exception (None: clean); every frame settled, every message processed."""
        self._writer = asyncio.create_task(self._write_loop(), name="gateway-writer")
        reader = asyncio.create_task(self._read_loop(), name="gateway-reader")
        pinger = (
            asyncio.create_task(self._keepalive(self._pace), name="gateway-keepalive")
            if self._pace is not None
            else None
        )
        try:
            await self._process_loop()
        finally:
            for task in (reader, pinger):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
            await self._stop_writer()
        return self._closed_by

    async def _read_loop(self) -> None:
        """Socket to inbox; cheap, so pongs are read promptly."""
        try:
            async for message in self.ws:
                self.frames_received += 1
                self._inbox.append(message)
                self._inbox_bytes += len(message)
                self._arrived.set()
                if len(self._inbox) >= INBOX_FRAMES or self._inbox_bytes >= INBOX_BYTES:
                    self._room.clear()
                    await self._room.wait()
        except Exception as exc:  # ConnectionClosedError and friends end the pump
            self._closed_by = exc
        finally:
            self._read_done = True
            self._arrived.set()

    async def _process_loop(self) -> None:
        while True:
            await self._arrived.wait()
            self._arrived.clear()
            if self._inbox:
                try:
                    self._process_batch()
                except Exception as exc:  # the core failed on a frame: this connection ends
                    self._closed_by = exc
                    return
                self._arrived.set()  # look again after yielding: more may be waiting
                await asyncio.sleep(0)
            elif self._read_done:
                return

    def _process_batch(self) -> None:
        started = time.monotonic()
        asked_before = False
        for _ in range(BATCH_FRAMES):
            if not self._inbox:
                break
            message = self._inbox.popleft()
            self._inbox_bytes -= len(message)
            if wire_log.isEnabledFor(logging.DEBUG):
                wire_log.debug("< %.2000s", message)
            self._peek(message)
            self._core.receive_text(message)
            self.flush()
            asked = self._on_received()  # the listener's time counts against the batch too
            if (asked_before and not asked) or time.monotonic() - started >= BATCH_SECONDS:
                break
            asked_before = asked_before or asked
        self._room.set()

    # -- keepalive ---------------------------------------------------------------------------
    def retune(self) -> None:
        """A row opened: sleep on at the pace that now applies (no wake-up if unchanged)."""
        nudge, pace = self._nudge, self._pace
        if nudge is not None and not nudge.done() and pace and pace() != self._sleeping_at:
            nudge.set_result(None)

    async def _keepalive(self, pace_now: Callable[[], KeepalivePace]) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            pace = pace_now()
            remaining = last + pace.interval - loop.time()
            if remaining > 0:
                self._sleeping_at = pace
                await self._sleep(remaining)
                continue  # re-read the pace; the time since ``last`` still counts
            if not await self._answered(pace.timeout):
                self._gone_silent(pace.timeout)
                return
            last = loop.time()

    async def _sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if :meth:`retune` is called (one timer, no helper task)."""
        loop = asyncio.get_running_loop()
        self._nudge = nudge = loop.create_future()
        timer = loop.call_later(seconds, _settle, nudge)
        try:
            await nudge
        finally:
            timer.cancel()
            self._nudge = None

    async def _answered(self, timeout: float) -> bool:
        seen = self.frames_received
        try:
            async with asyncio.timeout(timeout):
                pong = await self.ws.ping()
                with contextlib.suppress(Exception):  # the socket closed: the reader says so
                    await pong
        except TimeoutError:
            return self.frames_received != seen
        return True

    def _gone_silent(self, waited: float) -> None:
        if self._closing:
            return
        self.silent_for = waited
        log.info("no sign of life %.1fs after a keepalive ping; dropping the connection", waited)
        self.ws.transport.abort()

    async def _stop_writer(self) -> None:
        """Let an in-flight send finish (its fate is then known), fail what is still queued."""
        self._closing = True
        writer, self._writer = self._writer, None
        if writer is not None:
            if self.sending is not None:
                # The socket is closed, so the in-flight send ends promptly on its own.
                await asyncio.wait({writer}, timeout=1.0)
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
        while self._queue:
            self._fail(self._queue.popleft(), maybe_sent=False)
        self.flush()  # frames the core produced meanwhile: certainly not sent


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
