"""qasync's asyncio loop, with timers that stop when they are cancelled.

qasync (0.27, 0.28) leaves a cancelled ``call_later``'s Qt timer running: every early-ended
``asyncio.timeout`` woke the idle tray, and a burst of answers left thousands of timers to fire.
Timers are precise: Qt's coarse ones fire up to 5 % early, two wake-ups for code that re-checks.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QObject, Qt, QTimerEvent
from PySide6.QtWidgets import QApplication

MAX_TIMER_MS = 2**31 - 1  # Qt's timer interval is an int of milliseconds


class _QtTimers(QObject):
    def __init__(self) -> None:
        super().__init__()
        self._handles: dict[int, TimerHandle] = {}

    def start(self, handle: TimerHandle, delay: float) -> int:
        millis = min(MAX_TIMER_MS, math.ceil(max(0.0, delay) * 1000))
        timer_id = self.startTimer(millis, Qt.TimerType.PreciseTimer)
        self._handles[timer_id] = handle
        return timer_id

    def kill(self, timer_id: int) -> None:
        if self._handles.pop(timer_id, None) is not None:
            self.killTimer(timer_id)

    def kill_all(self) -> None:
        for timer_id in list(self._handles):
            self.kill(timer_id)

    def timerEvent(self, event: QTimerEvent) -> None:
        handle = self._handles.pop(event.timerId(), None)
        self.killTimer(event.timerId())
        if handle is not None and not handle.cancelled():
            handle._run()


class TimerHandle(asyncio.Handle):
    __slots__ = ("_timer_id", "_timers")

    def __init__(
        self,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        loop: QuietEventLoop,
        context: contextvars.Context | None,
        timers: _QtTimers,
        delay: float,
    ) -> None:
        super().__init__(callback, args, loop, context)
        self._timers = timers
        self._timer_id = timers.start(self, delay)

    def cancel(self) -> None:
        if not self.cancelled():
            self._timers.kill(self._timer_id)
        super().cancel()


class QuietEventLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync is untyped
    def __init__(self, app: QApplication | None = None) -> None:
        super().__init__(app)
        self._quiet_timers = _QtTimers()

    def call_later(
        self,
        delay: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> TimerHandle:
        if asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with call_later")
        if not callable(callback):
            raise TypeError(f"callback must be callable: {type(callback).__name__}")
        return TimerHandle(callback, args, self, context, self._quiet_timers, delay)

    def close(self) -> None:
        super().close()
        self._quiet_timers.kill_all()
