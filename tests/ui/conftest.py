"""Fixtures for the offscreen UI tests (the Qt ones, qloop and the leak guard, come from
tests/qt_fixtures.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from tests.ui.dbus_fakes.private_bus import PrivateBus


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


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateBus]:
    """A private session bus that is the test's only one (``DBUS_SESSION_BUS_ADDRESS``), so
    nothing a test sends over D-Bus reaches the developer's desktop; the notification tests put
    their fake daemon on it."""
    with PrivateBus() as private:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", private.address)
        yield private
