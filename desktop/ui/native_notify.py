"""Native desktop notifications through desktop-notifier (org.freedesktop.Notifications).

Why this is asyncio code with no Qt: desktop-notifier talks D-Bus with dbus-fast on the running
loop (stack.md §4.3: create it inside the running qasync loop; its button callbacks then run on
the main thread). Only the bridge drives this class, so the "one QObject meets asyncio" rule
holds; QtDBus cannot send ``Notify`` from PySide6 at all (stack.md §4.4).

``start`` probes the service once: with no notification service on the bus (or no bus), the app
falls back to ``QSystemTrayIcon.showMessage`` (no buttons). desktop-notifier and dbus-fast are
imported by ``start``, not with this module: the bridge starts the notifier on first use
(``desktop.ui.bridge_notify``), so an idle tray does not carry them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.ui.notify_policy import ActionKind, NotificationPlan

if TYPE_CHECKING:
    from desktop_notifier import DesktopNotifier

log = logging.getLogger(__name__)

ActionHandler = Callable[[NotificationPlan, ActionKind], None]


class NativeNotifier:
    """Shows :class:`NotificationPlan` values as native notifications with buttons."""

    def __init__(self, app_name: str, icon_path: Path | None = None) -> None:
        self._app_name = app_name
        self._icon_path = icon_path if icon_path and icon_path.exists() else None
        self._notifier: DesktopNotifier | None = None
        self._shown: dict[tuple[str, str], str] = {}  # (gateway, batch) -> notification id
        # show() and withdraw() of one batch must not overlap: a withdraw that ran while the
        # show was still waiting for the server's reply would find nothing to close.
        self._lock = asyncio.Lock()
        self.available = False
        self.buttons = False

    async def start(self, timeout: float = 3.0) -> bool:
        """Create the notifier on the running loop and ask the service what it can do."""
        from desktop_notifier import Capability, DesktopNotifier, Icon

        icon = Icon(path=self._icon_path) if self._icon_path is not None else None
        self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
        try:
            capabilities = await asyncio.wait_for(self._notifier.get_capabilities(), timeout)
        except Exception as exc:  # no bus, no service, or a service that does not answer
            log.info(
                "no native notification service (%s); using the tray's balloon", type(exc).__name__
            )
            self.available = False
            return False
        self.available = True
        self.buttons = Capability.BUTTONS in capabilities
        log.info("native notifications available (buttons: %s)", self.buttons)
        return True

    def is_shown(self, gateway_id: str, batch_id: str) -> bool:
        """Whether the batch's notification is on screen (and its buttons will be heard)."""
        return (gateway_id, batch_id) in self._shown

    async def show(self, plan: NotificationPlan, on_action: ActionHandler) -> bool:
        """Send ``plan``; button presses and a click on the body call ``on_action``."""
        async with self._lock:
            return await self._show(plan, on_action)

    async def _show(self, plan: NotificationPlan, on_action: ActionHandler) -> bool:
        from desktop_notifier import Button, Urgency

        notifier = self._require()
        buttons = (
            [
                Button(
                    title=action.label,
                    identifier=action.kind.value,
                    on_pressed=functools.partial(on_action, plan, action.kind),
                )
                for action in plan.actions
            ]
            if self.buttons
            else []
        )
        identifier = await notifier.send(
            title=plan.title,
            message=plan.body,
            urgency=Urgency.Normal,
            buttons=buttons,
            on_clicked=lambda: on_action(plan, ActionKind.REVIEW),
        )
        dispatched = identifier in await notifier.get_current_notifications()
        if dispatched and plan.batch_id:
            self._shown[(plan.gateway_id, plan.batch_id)] = identifier
        return dispatched

    async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool:
        """A notification with no buttons (notices, failures)."""
        from desktop_notifier import Urgency

        notifier = self._require()
        identifier = await notifier.send(
            title=title, message=body, urgency=Urgency.Critical if urgent else Urgency.Normal
        )
        return identifier in await notifier.get_current_notifications()

    async def withdraw(self, gateway_id: str, batch_id: str) -> None:
        """Close the notification of a batch that was settled elsewhere (stale buttons go)."""
        async with self._lock:
            identifier = self._shown.pop((gateway_id, batch_id), None)
        notifier = self._notifier
        if identifier and notifier and identifier in await notifier.get_current_notifications():
            await notifier.clear(identifier)

    async def aclose(self) -> None:
        """Withdraw what we showed (their buttons would act on nothing) and leave the bus."""
        notifier, self._notifier = self._notifier, None
        if notifier is None:
            return
        if self.available:
            try:
                await asyncio.wait_for(notifier.clear_all(), 2.0)
            except Exception:  # the service may already be gone at shutdown
                log.debug("could not clear notifications at shutdown", exc_info=True)
        # desktop-notifier keeps its dbus-fast connection open forever; close it so the loop
        # can close without a dangling socket reader.
        bus = getattr(getattr(notifier, "_backend", None), "bus", None)
        if bus is not None:
            bus.disconnect()
            try:
                await asyncio.wait_for(bus.wait_for_disconnect(), 2.0)
            except Exception:
                log.debug("notification bus did not disconnect cleanly", exc_info=True)

    def _require(self) -> DesktopNotifier:
        if self._notifier is None:
            raise RuntimeError("NativeNotifier.start() has not run")
        return self._notifier
