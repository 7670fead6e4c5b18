"""Fixtures for the offscreen UI tests (the Qt ones, qloop and the leak guard, come from
tests/qt_fixtures.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication


@pytest.fixture
def tray_app(qapp: QApplication) -> Iterator[QApplication]:
    """The QApplication set up as desktop.app sets it: closing the last window does not quit.

    Without this, closing a confirmation box inside a running qasync loop quits the app, which
    stops the loop under the test ("Event loop stopped before Future completed").
    """
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield qapp
    qapp.setQuitOnLastWindowClosed(before)
