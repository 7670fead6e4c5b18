"""Native notifications for the bridge: start the notifier on first use, show, withdraw.

Why on first use and not at start-up: the native path (dbus-fast with an XML parser) is about
90 modules and 4 MiB that an idle tray would carry all day while nothing waits. So
:meth:`NotificationActions.start` is called (through the bridge) by the notification controller
when its first plan or notice is due; the probe (connect to the session bus, ask the service's
capabilities) takes a few tens of milliseconds on top of a first notification that is already
held back by the policy's coalescing, and later ones pay nothing. The answer comes back through
``on_ready`` exactly once, whatever happened (no notifier, no bus, an exception), so plans
waiting for it are never stuck. The desktop's do-not-disturb switch, read by the notifier's
start and followed after, comes back through ``on_do_not_disturb`` (before ``on_ready``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from desktop.model.notify_policy import ActionKind, NotificationPlan
from desktop.platform.do_not_disturb import DoNotDisturb
from desktop.ui.bridge_tasks import TaskRunner

log = logging.getLogger(__name__)

ActionHandler = Callable[[NotificationPlan, ActionKind], None]
DoNotDisturbHandler = Callable[[DoNotDisturb], None]


class Notifier(Protocol):
    """What the bridge uses of ``desktop.ui.native_notify.NativeNotifier``."""

    buttons: bool

    async def start(self) -> bool: ...
    async def show(self, plan: NotificationPlan, on_action: ActionHandler) -> bool: ...
    async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool: ...
    async def withdraw(self, gateway_id: str, batch_id: str) -> None: ...
    async def aclose(self) -> None: ...
    def watch_do_not_disturb(self, on_change: DoNotDisturbHandler) -> None: ...


class NotificationActions:
    """Owns the notifier and whether it was asked for and started."""

    def __init__(
        self,
        tasks: TaskRunner,
        *,
        on_ready: Callable[[bool], None],
        on_action: ActionHandler,
        on_do_not_disturb: DoNotDisturbHandler | None = None,
    ) -> None:
        self._tasks = tasks
        self._on_ready = on_ready
        self._on_action = on_action
        self._on_do_not_disturb = on_do_not_disturb
        self._notifier: Notifier | None = None
        self._asked = False  # start() was called
        self._started = False  # ... and the probe was started (or answered False)

    def attach(self, notifier: Notifier | None) -> None:
        """Keep ``notifier`` (the loop is running now); serve a start asked for before."""
        self._notifier = notifier
        if notifier is not None and self._on_do_not_disturb is not None:
            notifier.watch_do_not_disturb(self._on_do_not_disturb)
        if self._asked:
            self.start()

    def start(self) -> None:
        """Probe the notification service once; the answer comes through ``on_ready``.

        Before the loop runs (:meth:`attach`) the request is kept and served then.
        """
        self._asked = True
        if self._started or self._tasks.loop is None:
            return
        self._started = True
        notifier = self._notifier
        if notifier is None:
            self._on_ready(False)
            return
        self._tasks.spawn(self._probe(notifier), "Starting notifications", "this desktop", "")

    async def _probe(self, notifier: Notifier) -> None:
        available = False
        try:
            available = bool(await notifier.start())
        except Exception:  # a broken backend must not leave plans waiting for an answer
            log.exception("could not start native notifications; using the tray's balloon")
        self._on_ready(available and bool(notifier.buttons))

    def show(self, plan: NotificationPlan) -> None:
        """Send ``plan`` natively; presses come back through ``on_action``."""
        if self._notifier is not None:
            self._tasks.spawn(
                self._notifier.show(plan, self._on_action),
                "Could not show a notification",
                "this desktop",
                "",
                log_only=True,
            )

    def withdraw(self, gateway_id: str, batch_id: str) -> None:
        if self._notifier is not None:
            self._tasks.spawn(
                self._notifier.withdraw(gateway_id, batch_id),
                "Could not close a notification",
                "this desktop",
                "",
                log_only=True,
            )

    def show_text(self, title: str, body: str, urgent: bool = False) -> None:
        if self._notifier is not None:
            self._tasks.spawn(
                self._notifier.show_text(title, body, urgent=urgent),
                "Could not show a notification",
                "this desktop",
                "",
                log_only=True,
            )

    async def aclose(self) -> None:
        if self._notifier is not None:
            await self._notifier.aclose()
