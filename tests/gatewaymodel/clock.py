"""Time for the fake gateway: a parameter, never a hidden ``time.sleep``.

Every delay the fake makes (message pacing, simulated command runtime, approval timeouts, scripted
pauses) goes through one :class:`Clock`. :class:`ScaledClock` at speed 1.0 runs at human
pace; tests use a small speed factor (``ScaledClock(0.01)`` runs a 60 s timeout in 0.6 s) or a
:class:`ManualClock`, whose time only moves when the test calls :meth:`ManualClock.advance`, so
a timeout fires exactly when the test says and never because the machine was slow.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """What the fake needs from time: sleeping a number of *script* seconds."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of script time (never negative; 0 just yields)."""
        ...


class ScaledClock:
    """Real time multiplied by ``speed``: 1.0 is human pace, 0.01 is a hundred times faster.

    A speed of 0 turns every pause into a bare yield, which suits tests that only care about
    ordering. Approval timeouts are separate settings, so speed 0 never makes them fire at once
    unless a timeout is configured.
    """

    def __init__(self, speed: float = 1.0) -> None:
        if speed < 0:
            raise ValueError("speed must be >= 0")
        self.speed = speed

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds * speed`` real seconds."""
        await asyncio.sleep(max(0.0, seconds) * self.speed)


class ManualClock:
    """Time that stands still until the test moves it.

    ``await clock.advance(5)`` wakes, in deadline order, every sleeper whose deadline falls within
    the next five seconds. Sleepers cancelled meanwhile are skipped. Listeners (the gateway's
    change signal) hear about every new sleeper, so a test can wait for "the command is now
    running" (``fake.wait_for(lambda: clock.sleepers == 1)``) before it moves time.
    """

    def __init__(self) -> None:
        self._now = 0.0
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever a sleep starts or time moves."""
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in self._listeners:
            listener()

    @property
    def now(self) -> float:
        """Script seconds elapsed since the clock was made."""
        return self._now

    @property
    def sleepers(self) -> int:
        """How many sleeps are waiting for time to move (cancelled ones excluded)."""
        return sum(1 for _, _, fut in self._heap if not fut.done())

    async def sleep(self, seconds: float) -> None:
        """Wait until :meth:`advance` moves time past ``now + seconds``."""
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (self._now + seconds, next(self._order), future))
        self._notify()
        await future

    async def advance(self, seconds: float) -> None:
        """Move time forward and let every woken sleeper run until it blocks again."""
        target = self._now + max(0.0, seconds)
        while self._heap and self._heap[0][0] <= target:
            deadline, _, future = heapq.heappop(self._heap)
            self._now = max(self._now, deadline)
            if not future.done():
                future.set_result(None)
                # A few yields let the woken task, and whatever it wakes, run to its next await.
                for _ in range(8):
                    await asyncio.sleep(0)
        self._now = target
        self._notify()
