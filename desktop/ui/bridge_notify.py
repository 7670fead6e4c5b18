"""The bridge's notification slots: start the native notifier on first use, show, withdraw.

Why on first use and not at start-up: the native path (desktop-notifier over dbus-fast, with
bidict and an XML parser) is about 90 modules and 4 MiB that an idle tray would carry all day
while nothing waits. So :meth:`start_notifications` is called by the notification controller
when its first plan or notice is due; the probe (connect to the session bus, ask the service's
capabilities) takes a few tens of milliseconds on top of a first notification that is already
held back by the policy's coalescing, and later ones pay nothing. The answer comes back as
``notifications_ready`` exactly once, whatever happened (no notifier, no bus, an exception), so
plans waiting for it are never stuck.

A mixin of ``GatewayBridge`` (like ``bridge_yolo``) because awaiting belongs in the one place
asyncio meets Qt.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from desktop.ui.bridge_host import BridgeHost

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from desktop.ui.notify_policy import NotificationPlan

log = logging.getLogger(__name__)


class NotificationSlots(BridgeHost):
    """Mixed into GatewayBridge, which provides ``_notifier``, ``_loop``, signals and ``_spawn``."""

    if TYPE_CHECKING:
        _notifier: Any  # desktop.ui.native_notify.NativeNotifier, or None
        notifications_ready: SignalInstance
        notification_action_invoked: SignalInstance

    _notifications_asked = False  # start_notifications() was called
    _notifications_started = False  # ... and the probe was started (or answered False)

    def start_notifications(self) -> None:
        """Probe the notification service once; the answer comes as ``notifications_ready``.

        Before :meth:`start` the request is kept and served when the loop is there.
        """
        self._notifications_asked = True
        if self._notifications_started or self._loop is None:
            return
        self._notifications_started = True
        notifier = self._notifier
        if notifier is None:
            self.notifications_ready.emit(False)
            return
        self._spawn(self._start_notifier(notifier), "Starting notifications", "this desktop", "")

    async def _start_notifier(self, notifier: Any) -> None:
        available = False
        try:
            available = bool(await notifier.start())
        except Exception:  # a broken backend must not leave plans waiting for an answer
            log.exception("could not start native notifications; using the tray's balloon")
        self.notifications_ready.emit(available and bool(notifier.buttons))

    def show_notification(self, plan: NotificationPlan) -> None:
        """Send ``plan`` natively; presses come back as ``notification_action_invoked``."""
        notifier = self._notifier
        if notifier is None:
            return

        async def show() -> None:
            await notifier.show(plan, self.notification_action_invoked.emit)

        self._spawn(show(), "Could not show a notification", "this desktop", "", log_only=True)

    def withdraw_notification(self, gateway_id: str, batch_id: str) -> None:
        if self._notifier is not None:
            self._spawn(
                self._notifier.withdraw(gateway_id, batch_id),
                "Could not close a notification",
                "this desktop",
                "",
                log_only=True,
            )

    def show_text_notification(self, title: str, body: str, urgent: bool = False) -> None:
        if self._notifier is not None:
            self._spawn(
                self._notifier.show_text(title, body, urgent=urgent),
                "Could not show a notification",
                "this desktop",
                "",
                log_only=True,
            )
