"""Notice a silent gateway: pings whose pace follows what is at stake.

Why not websockets' own keepalive: its interval is fixed when the socket opens, and at the
idle pace (30 s, 20 s timeout) a SIGSTOPped gateway goes unnoticed for up to 50 s while a
person may be clicking Approve into a socket nobody reads. While approvals are open the pace
is short (``busy_interval``/``busy_timeout``: silence noticed within their sum); otherwise the
idle pace, one wake-up per ping. A row that opens mid-wait shortens the wait at once
(:meth:`Keepalive.retune`).

Any frame that arrives counts as a sign of life as well as a pong does: a gateway that is busy
sending a burst is not hung, and its pong may sit behind thousands of frames in the stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeepalivePace:
    """Seconds between pings and how long to wait for a sign of life after each."""

    interval: float
    timeout: float

    @property
    def detection_s(self) -> float:
        """The longest a silent gateway can go unnoticed at this pace."""
        return self.interval + self.timeout


class Keepalive:
    """Ping on a pace chosen per turn; call ``on_silent`` once when a ping goes unanswered.

    Args:
        ping: sends one ping, returns an awaitable that completes on its pong.
        pace: the pace to use now (asked before every ping; the client knows the rows).
        signs_of_life: a counter that grows with every frame received.
        on_silent: called with the seconds waited when neither pong nor frame came.
    """

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
        """The stakes may have changed (a row opened): sleep on at the pace they call for.

        Called once per batch of new rows; a burst at the pace already kept wakes nothing.
        """
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
        """Sleep ``seconds``, or less if :meth:`retune` is called meanwhile.

        One timer and one future, no helper task: an idle connection wakes the loop once per
        ping for the timer, not once per task hop of ``wait_for``.
        """
        loop = asyncio.get_running_loop()
        self._nudge = nudge = loop.create_future()
        timer = loop.call_later(seconds, _settle, nudge)
        try:
            await nudge
        finally:
            timer.cancel()
            self._nudge = None

    async def _answered(self, timeout: float) -> bool:
        """Ping once; True when a pong or any frame arrives within ``timeout`` seconds."""
        seen = self._signs_of_life()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            async with asyncio.timeout(timeout):
                pong = await self._ping()
        except TimeoutError:  # even the ping could not be written in time
            return self._signs_of_life() != seen
        pong_task = asyncio.ensure_future(pong)
        try:
            while True:
                left = deadline - loop.time()
                if left <= 0:
                    return self._signs_of_life() != seen
                # Wake at least every quarter of the timeout to see whether frames arrived.
                done, _ = await asyncio.wait({pong_task}, timeout=min(left, timeout / 4))
                if done:  # a pong, or the socket closed (the reader reports that)
                    return True
                if self._signs_of_life() != seen:
                    return True
        finally:
            if not pong_task.done():
                pong_task.cancel()
                await asyncio.gather(pong_task, return_exceptions=True)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
