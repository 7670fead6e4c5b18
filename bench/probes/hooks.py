"""Observation hooks installed *around* the app (never inside it): the tray marker, wake-ups.

Why hooks and not app code: the app has no start-up marker or wake-up counter, and the bench
may not edit ``desktop/``. So:

* :func:`install_tray_marker` replaces ``PySide6.QtWidgets.QSystemTrayIcon`` with a subclass
  *before* the app imports it. Its ``show()`` calls Qt's, then posts a 0 ms single-shot; when
  that runs, one event-loop turn has passed and ``tray_shown`` is printed with the time.
  That is the bench's definition of "tray icon shown" for the app and the bare reference alike
  (offscreen has no system tray, so nothing is ever drawn; ``available`` says so).
* :class:`WakeCounter` counts event-loop wake-ups (``QAbstractEventDispatcher.awake``), the
  events that caused them (an application-wide event filter, by event type and receiver
  class) and the process's context switches (``/proc``), over a window.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any

from bench.lines import emit

TrayCallback = Callable[[Any], None]
MAX_TIMES = 2000  # wake-up timestamps kept per window
_after_show: list[TrayCallback] = []


def install_tray_marker(after_show: TrayCallback | None = None) -> None:
    """Make every QSystemTrayIcon print ``tray_shown`` one loop turn after ``show()``."""
    from PySide6 import QtWidgets
    from PySide6.QtCore import QTimer

    if after_show is not None:
        _after_show.append(after_show)
    base = QtWidgets.QSystemTrayIcon
    if getattr(base, "_bench_marker", False):
        return

    class ObservedTrayIcon(base):  # type: ignore[misc, valid-type]
        _bench_marker = True
        _bench_shown = False

        def show(self) -> None:
            super().show()
            if ObservedTrayIcon._bench_shown:
                return
            ObservedTrayIcon._bench_shown = True
            returned = time.monotonic()
            QTimer.singleShot(0, lambda: self._bench_turn_ran(returned))

        def _bench_turn_ran(self, returned: float) -> None:
            emit(
                "tray_shown",
                t=time.monotonic(),
                show_returned=returned,
                available=base.isSystemTrayAvailable(),
                visible=self.isVisible(),
            )
            for callback in _after_show:
                callback(self)

    QtWidgets.QSystemTrayIcon = ObservedTrayIcon  # type: ignore[misc]


class WakeCounter:
    """Counts wake-ups of the Qt event loop (which also drives asyncio under qasync)."""

    def __init__(self, app: Any) -> None:
        from PySide6.QtCore import QAbstractEventDispatcher, QObject

        self.awake = 0
        self.times: list[float] = []
        self.callbacks: collections.Counter[str] = collections.Counter()
        self.events: collections.Counter[str] = collections.Counter()
        self.counting = False
        dispatcher = QAbstractEventDispatcher.instance()
        dispatcher.awake.connect(self._on_awake)
        counter = self

        class Filter(QObject):
            def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
                if counter.counting:
                    kind = event.type()
                    name = getattr(kind, "name", str(kind))
                    counter.events[f"{name} -> {type(watched).__name__}"] += 1
                return False

        self._filter = Filter()
        app.installEventFilter(self._filter)
        self._dispatcher = dispatcher
        self._start: tuple[float, int, Any] | None = None

    def _on_awake(self) -> None:
        if self.counting:
            self.awake += 1
            if len(self.times) < MAX_TIMES:
                self.times.append(time.monotonic())

    def _watch_asyncio(self) -> None:
        """Name every asyncio callback scheduled during the window.

        qasync turns each into a Qt timer, so these explain the "Timer -> _SimpleTimer" events.
        """
        import asyncio

        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return
        if getattr(loop, "_bench_watched", False) or not hasattr(loop, "call_later"):
            return
        original = loop.call_later
        counter = self

        def call_later(delay: float, callback: Any, *args: Any, **kwargs: Any) -> Any:
            if counter.counting:
                counter.callbacks[_callback_name(callback)] += 1
            return original(delay, callback, *args, **kwargs)

        loop.call_later = call_later  # type: ignore[method-assign, assignment]
        loop._bench_watched = True  # type: ignore[attr-defined]

    def start(self) -> None:
        self._watch_asyncio()
        self.awake = 0
        self.times.clear()
        self.callbacks.clear()
        self.events.clear()
        from bench import procfs  # imported late: the cold-start figure loads this module too

        self._start = (time.monotonic(), 0, procfs.switches())
        self.counting = True

    def stop(self) -> dict[str, Any]:
        """Stop counting; the window's totals (the stop timer's own wake-up included)."""
        self.counting = False
        assert self._start is not None
        started, _, before = self._start
        seconds = time.monotonic() - started
        from bench import procfs

        after = procfs.switches()
        return {
            "seconds": seconds,
            "awake": self.awake,
            "awake_at": [round(t - started, 4) for t in self.times],
            "events": dict(self.events.most_common(25)),
            "asyncio_callbacks": dict(self.callbacks.most_common(25)),
            "voluntary_ctxt": after.voluntary - before.voluntary,
            "involuntary_ctxt": after.involuntary - before.involuntary,
            "threads": after.threads,
        }


def _callback_name(callback: Any) -> str:
    import asyncio

    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {getattr(coro, '__qualname__', owner.get_name())}"
    if isinstance(owner, asyncio.Future):
        return f"future callback {type(owner).__name__}"
    return getattr(callback, "__qualname__", type(callback).__name__)


def wake_window(app: Any, settle: float, seconds: float) -> None:
    """After ``settle`` s, count wake-ups for ``seconds`` s, then print ``wake_window``.

    The two timers are kept objects (a functor ``singleShot`` would leave a temporary timer
    whose deferred deletion wakes the loop once more inside the window).
    """
    from PySide6.QtCore import QTimer

    counter = WakeCounter(app)
    begin_timer, end_timer = QTimer(), QTimer()
    for timer in (begin_timer, end_timer):
        timer.setSingleShot(True)

    def begin() -> None:
        counter.start()
        end_timer.start(int(seconds * 1000))

    def finish() -> None:
        emit("wake_window", **counter.stop())

    begin_timer.timeout.connect(begin)
    end_timer.timeout.connect(finish)
    begin_timer.start(int(settle * 1000))
    _keep.extend((counter, begin_timer, end_timer))


_keep: list[Any] = []  # the window's objects live as long as the process
