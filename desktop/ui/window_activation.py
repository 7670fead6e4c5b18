"""Qt glue for ``desktop.platform.activation``: show a window with the event's token, or say where.

PySide6 has no call for Qt's per-window activation token; Qt's Wayland plugin reads (and unsets)
``XDG_ACTIVATION_TOKEN`` of the process environment, written here with ``os.putenv`` (not
``os.environ``, Python's copy, which Qt never reads).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QProcessEnvironment, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from desktop.platform.activation import (
    TOKEN_ENV,
    event_token,
    plan_activation,
    should_say_where,
)

CHECK_MS = 1000  # the compositor answers within a frame or two; one look, a moment later


def take_env_token() -> str:
    """The token a host put into the process environment (``ProvideXdgActivationToken``)."""
    token = QProcessEnvironment.systemEnvironment().value(TOKEN_ENV, "")
    os.unsetenv(TOKEN_ENV)
    return token


class WindowActivation(QObject):
    def __init__(
        self,
        say_where: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._say_where = say_where
        self._last_said: float | None = None
        # The requests to come forward whose look is still to come, per window: each holds
        # whether the window was activated since that request.
        self._asks: dict[QWidget, list[list[bool]]] = {}

    def bring_forward(self, window: QWidget, show: Callable[[], None]) -> None:
        """Run ``show`` (which shows and activates ``window``) with the event's token at hand."""
        step = plan_activation(
            QGuiApplication.platformName(), event_token.take(), window.isActiveWindow()
        )
        if step.check:
            if window not in self._asks:
                window.installEventFilter(self)
            ask = [False]
            self._asks.setdefault(window, []).append(ask)
            QTimer.singleShot(CHECK_MS, window, lambda: self._check(window, ask))
        if step.token:
            os.putenv(TOKEN_ENV, step.token)
        try:
            show()
        finally:
            os.unsetenv(TOKEN_ENV)  # Qt unsets one it used; one it did not is stale now

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Noted at once: by the later look the person may have clicked elsewhere (GNOME Shell)."""
        if event.type() == QEvent.Type.WindowActivate:
            for ask in self._asks.get(watched, ()):  # type: ignore[call-overload]
                ask[0] = True
        return False

    def _check(self, window: QWidget, ask: list[bool]) -> None:
        asks = [a for a in self._asks.get(window, []) if a is not ask]
        self._asks[window] = asks
        if not asks:
            self._asks.pop(window, None)
            window.removeEventFilter(self)
        if ask[0] or not window.isVisible() or window.isActiveWindow():
            return
        QApplication.alert(window)  # the desktop's "wants attention" (an urgent window on sway)
        now = time.monotonic()
        if should_say_where(self._last_said, now):
            self._last_said = now
            self._say_where()
