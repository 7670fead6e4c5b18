"""Qt fixtures, loaded by tests/conftest.py as a plugin only where PySide6 is installed.

- ``qloop``: a fresh ``QuietEventLoop`` (the app's qasync loop) per test on pytest-qt's session
  QApplication, set as the current loop. At teardown leftover tasks are cancelled and the test
  FAILS if there were any, or if an exception reached the loop's handler: a task that outlives
  its test runs on into the next one and makes failures appear in the wrong place. (pytest-qt
  does not manage asyncio loops, see pytest-qt #448, hence our own fixture; a closed qasync
  loop is final, so each test gets a new one.)
- ``qt_leak_guard`` (autouse for tests that use ``qtbot``, ``qapp`` or ``qloop``): fails a test
  that leaves top-level widgets or QSystemTrayIcons alive, then disposes of them so the next
  test starts clean. A leaked tray icon stays in the user's panel; a leaked dialog keeps the app
  from quitting.

Pitfalls (shared/stack.md §5): never ``exec()`` a dialog inside a coroutine (use ``open()`` and a
future, or ``qasync.asyncWrap``); create websockets servers inside a running loop; quit a tray
app through an asyncio.Event, not ``app.quit()``. And one seen here: qasync schedules callbacks
as Qt events, so a task created while the loop is *not* running takes its first step whenever
Qt next processes events (pytest-qt does after each test), outside any running loop, and fails
with "no running event loop". Create tasks inside a coroutine run with ``arun``.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from desktop.ui.event_loop import QuietEventLoop
from tests.loop_guard import LoopHygiene, close_loop_or_fail

_QT_FIXTURES = frozenset({"qtbot", "qapp", "qloop"})
# Top-level widgets Qt itself creates once and keeps for the whole process.
_QT_INTERNAL_CLASSES = frozenset({"QTipLabel"})


@pytest.fixture
def keep_running(qapp: QApplication) -> Iterator[None]:
    """As ``desktop.app`` does: closing a test's last window must not quit (and stop its loop)."""
    qapp.setQuitOnLastWindowClosed(False)
    try:
        yield
    finally:
        qapp.setQuitOnLastWindowClosed(True)


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh qasync loop on pytest-qt's QApplication; fails the test if it is left dirty."""
    loop = QuietEventLoop(qapp)
    asyncio.set_event_loop(loop)
    hygiene = LoopHygiene(loop)
    yield loop
    close_loop_or_fail(hygiene)


def _flush_deletions(*, full: bool = True) -> None:
    """Run pending ``deleteLater``s and drop unreachable Python wrappers (and their C++ objects).

    ``full=False`` collects only the young generations: enough for what a passing test made,
    and ~25x cheaper than a full collection (which then runs only before blaming a test).
    """
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    gc.collect(2 if full else 1)


# Tray icons are not widgets, and an unparented one is reachable only through Python, so the
# guard tracks every one created (a weak set costs nothing; scanning gc.get_objects() after
# each test cost ~30 ms on this suite).
_TRAY_ICONS: weakref.WeakSet[QSystemTrayIcon] = weakref.WeakSet()
_original_tray_init = QSystemTrayIcon.__init__


def _tracking_tray_init(self: QSystemTrayIcon, *args: Any, **kwargs: Any) -> None:
    _original_tray_init(self, *args, **kwargs)
    _TRAY_ICONS.add(self)


QSystemTrayIcon.__init__ = _tracking_tray_init  # type: ignore[method-assign]


def _alive_qt_objects() -> list[QObject]:
    """Top-level widgets (except Qt's own) and tray icons that still exist."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return []
    found: list[QObject] = [
        widget
        for widget in app.topLevelWidgets()
        if widget.metaObject().className() not in _QT_INTERNAL_CLASSES
    ]
    found.extend(tray for tray in list(_TRAY_ICONS) if shiboken6.isValid(tray))
    return found


def _describe(obj: QObject) -> str:
    name = f" objectName={obj.objectName()!r}" if obj.objectName() else ""
    if isinstance(obj, QWidget):
        return f"{type(obj).__name__}{name} title={obj.windowTitle()!r} visible={obj.isVisible()}"
    return f"{type(obj).__name__}{name}"


def _dispose(objects: list[QObject]) -> None:
    for obj in objects:
        if not shiboken6.isValid(obj):
            continue
        if isinstance(obj, QWidget):
            obj.close()
        elif isinstance(obj, QSystemTrayIcon):
            obj.hide()
        obj.deleteLater()
    _flush_deletions()


def _new_objects(before: list[QObject], *, full: bool) -> list[QObject]:
    _flush_deletions(full=full)
    return [obj for obj in _alive_qt_objects() if not any(obj is old for old in before)]


@pytest.fixture(autouse=True)
def qt_leak_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a Qt test that leaves top-level widgets or tray icons alive (see module docstring)."""
    if not _QT_FIXTURES.intersection(request.fixturenames):
        yield
        return
    before = _alive_qt_objects()  # kept as objects, not ids: a freed id may be reused
    yield
    leaked = _new_objects(before, full=False)
    for _ in range(2):  # a deletion may schedule more; let it settle before blaming the test
        if not leaked:
            break
        leaked = _new_objects(before, full=True)
    del before
    if leaked:
        described = [_describe(obj) for obj in leaked]
        _dispose(leaked)
        pytest.fail(
            "the test left Qt objects alive (close and delete them, or register widgets with "
            "qtbot.addWidget):\n  " + "\n  ".join(described)
        )
