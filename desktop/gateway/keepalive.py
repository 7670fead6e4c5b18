"""Notice a silent gateway: pings whose pace follows what is at stake.

Not websockets' own keepalive: its pace is fixed when the socket opens, so a SIGSTOPped gateway
would go unnoticed for up to 50 s while a person clicks Approve into it. While approvals are
open the pace is short (noticed within 10 s), else the idle one; a row that opens mid-wait
shortens the wait at once. Any frame received counts as a sign of life as well as a pong: a
gateway sending a burst is not hung, and its pong may sit behind thousands of frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeepalivePace:
    """Seconds between pings and how long to wait for a sign of life after each."""

    interval: float
    timeout: float


class Keepalive:
    """Ping at ``pace()``; ``on_silent(waited)`` once when no pong and no frame came in time."""

    def __init__(
        self,
        *,
        ping: Callable[[], Awaitable[Awaitable[object]]],
        pace: Callable[[], KeepalivePace],
        signs_of_life: Callable[[], int],
        on_silent: Callable[[float], None],
    ) -> None:
        self._ping = ping
        self._pace = pace
        self._signs_of_life = signs_of_life
        self._on_silent = on_silent
        self._nudge: asyncio.Future[None] | None = None
        self._sleeping_at: KeepalivePace | None = None  # the pace of the current sleep

    def retune(self) -> None:
        """A row opened: sleep on at the pace that now applies (no wake-up if unchanged)."""
        if self._nudge is not None and not self._nudge.done() and self._pace() != self._sleeping_at:
            self._nudge.set_result(None)

    async def run(self) -> None:
        """Until cancelled or the gateway went silent."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            pace = self._pace()
            remaining = last + pace.interval - loop.time()
            if remaining > 0:
                self._sleeping_at = pace
                await self._sleep(remaining)
                continue  # re-read the pace; the time since ``last`` still counts
            if not await self._answered(pace.timeout):
                self._on_silent(pace.timeout)
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
        """Ping once; True when a pong came, or any frame, within ``timeout`` seconds."""
        seen = self._signs_of_life()
        try:
            async with asyncio.timeout(timeout):
                pong = await self._ping()
                with contextlib.suppress(Exception):  # the socket closed: the reader says so
                    await pong
        except TimeoutError:
            return self._signs_of_life() != seen
        return True


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
