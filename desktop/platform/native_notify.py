"""Native desktop notifications over org.freedesktop.Notifications, with dbus-fast on the loop.

Not QtDBus (it cannot send ``Notify`` from PySide6) nor desktop-notifier's ``send`` (always
``replaces_id`` 0, no ``resident`` hint, capabilities hidden): an approval's bubble must live as
long as the question, be updated in place, and never come back once the person closed it.
Button ids carry the plan's generation (``approve.7``), so a click that raced an update acts on
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.model.notify_policy import NOT_RESIDENT, ActionKind, NotificationPlan, fit_buttons
from desktop.platform.activation import event_token
from desktop.platform.do_not_disturb import (
    NOTIFICATIONS,
    NOTIFICATIONS_PATH,
    DoNotDisturb,
    DoNotDisturbWatch,
    leave,
)
from desktop.platform.paths import APP_ID

log = logging.getLogger(__name__)

ActionHandler = Callable[[NotificationPlan, ActionKind], None]

URGENCY_NORMAL = 1
URGENCY_CRITICAL = 2
NEVER_EXPIRES = 0
SERVER_DEFAULT_EXPIRY = -1
MAX_NOTICES = 16  # notices withdrawn at quit; older ones have long expired on any server
CLOSED_BY_USER = 2
# xfce4-notifyd draws a "default" action as an unlabeled button (it has no body click)
NO_DEFAULT_ACTION_SERVERS = ("Xfce Notify Daemon",)
DEFAULT_ACTION_LABEL = "Review"  # a click on the body; dunst and mako list it by this name


class NativeNotifier:
    def __init__(self, app_name: str, icon_path: Path | None = None) -> None:
        self._app_name = app_name
        self._icon = icon_path.as_uri() if icon_path and icon_path.exists() else ""
        self._bus: Any = None  # dbus_fast.aio.MessageBus
        self._iface: Any = None  # the org.freedesktop.Notifications proxy interface
        self._shown: dict[tuple[str, str], int] = {}  # plan ref -> notification id
        self._plans: dict[int, tuple[NotificationPlan, int, ActionHandler]] = {}
        self._dismissed: set[tuple[str, str]] = set()  # closed by the person: no updates
        self._notices: dict[int, None] = {}  # show_text ids still on screen, oldest first
        self._activation: tuple[int, str] = (0, "")  # the last ActivationToken: id, token
        self._generation = itertools.count(1)
        self._lock = asyncio.Lock()
        self.capabilities: tuple[str, ...] = ()
        self.buttons = False  # the server shows actions (the bridge offers Approve by them)
        self.server = ""  # GetServerInformation's name: its quirks are chosen by it
        self._dnd = DoNotDisturbWatch()

    async def start(self, timeout: float = 3.0) -> bool:
        """False without a service: the app falls back to the tray's balloon."""
        from dbus_fast.aio import MessageBus

        try:
            self._bus = await asyncio.wait_for(MessageBus().connect(), timeout)
            introspection = await asyncio.wait_for(
                self._bus.introspect(NOTIFICATIONS, NOTIFICATIONS_PATH), timeout
            )
            proxy = self._bus.get_proxy_object(NOTIFICATIONS, NOTIFICATIONS_PATH, introspection)
            self._iface = proxy.get_interface(NOTIFICATIONS)
            capabilities = await asyncio.wait_for(self._iface.call_get_capabilities(), timeout)
            server = await asyncio.wait_for(self._iface.call_get_server_information(), timeout)
        except Exception as exc:  # no bus, no service, or a service that does not answer
            log.info(
                "no native notification service (%s); using the tray's balloon", type(exc).__name__
            )
            await self._disconnect()
            return False
        self.capabilities = tuple(str(c) for c in capabilities)
        self.server = str(server[0]) if server else ""
        self.buttons = "actions" in self.capabilities
        self._iface.on_action_invoked(self._on_action_invoked)
        self._iface.on_notification_closed(self._on_closed)
        with contextlib.suppress(AttributeError):  # a server older than spec 1.2 has none
            self._iface.on_activation_token(self._on_activation_token)
        log.info(
            "notification server %s, capabilities %s", " ".join(map(str, server)), self.capabilities
        )
        await self._dnd.start(self._bus, self.server, timeout)
        return True

    def watch_do_not_disturb(self, on_change: Callable[[DoNotDisturb], None]) -> None:
        self._dnd.on_change = on_change

    def is_shown(self, gateway_id: str, batch_id: str) -> bool:
        """Whether the batch's notification is on screen (and its buttons will be heard)."""
        ref = ("", "") if not batch_id else (gateway_id, batch_id)
        return ref in self._shown

    def body_for_server(self, body: str) -> str:
        if "body-markup" not in self.capabilities:
            return body
        import html  # its entity tables cost 0.7 MB: loaded with the first marked-up body

        return html.escape(body, quote=False)

    async def show(self, plan: NotificationPlan, on_action: ActionHandler) -> bool:
        """Send ``plan`` (replacing its batch's notification); presses call ``on_action``."""
        async with self._lock:  # a withdraw meanwhile would find nothing to close
            iface = self._require()
            ref = plan.ref
            if plan.update and (ref in self._dismissed or ref not in self._shown):
                return False  # closed, expired or never shown: only news raises a bubble
            self._dismissed.discard(ref)
            replaces = self._shown.get(ref, 0)
            if replaces and not plan.update:  # a re-notify: a new bubble, the old one goes
                await self._close(replaces)
                replaces = 0
            generation = next(self._generation)
            server = self.server
            actions: list[str] = []
            if self.buttons:
                if server and server not in NO_DEFAULT_ACTION_SERVERS:
                    actions += ["default", DEFAULT_ACTION_LABEL]
                for action in fit_buttons(plan.actions, server):
                    actions += [f"{action.kind.value}.{generation}", action.label]
            resident = "persistence" in self.capabilities and server not in NOT_RESIDENT
            hints = _hints(plan.critical, resident=resident, category="im.received")
            if replaces:  # from now on a press on the old content acts on nothing
                self._plans[replaces] = (plan, generation, on_action)
            identifier = int(
                await iface.call_notify(
                    self._app_name,
                    replaces,
                    self._icon,
                    plan.title,
                    self.body_for_server(plan.body),
                    actions,
                    hints,
                    NEVER_EXPIRES,
                )
            )
            if replaces and identifier != replaces:
                self._plans.pop(replaces, None)
            self._shown[ref] = identifier
            self._plans[identifier] = (plan, generation, on_action)
            return True

    async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool:
        """A notification with no buttons (notices, failures); the server's expiry applies."""
        identifier = await self._require().call_notify(
            self._app_name,
            0,
            self._icon,
            title,
            self.body_for_server(body),
            [],
            _hints(urgent),
            SERVER_DEFAULT_EXPIRY,
        )
        self._notices[int(identifier)] = None
        if len(self._notices) > MAX_NOTICES:  # a server that never says a notice expired
            del self._notices[next(iter(self._notices))]
        return True

    async def withdraw(self, gateway_id: str, batch_id: str) -> None:
        """Close the notification of a batch that was settled, wherever it was answered."""
        ref = ("", "") if not batch_id else (gateway_id, batch_id)
        async with self._lock:
            self._dismissed.discard(ref)
            identifier = self._shown.pop(ref, None)
            if identifier is not None:
                self._plans.pop(identifier, None)
                await self._close(identifier)

    async def _close(self, identifier: int) -> None:
        from dbus_fast.errors import DBusError

        self._plans.pop(identifier, None)
        try:
            await self._require().call_close_notification(identifier)
        except DBusError:  # already closed (spec: an error, or nothing)
            log.debug("notification %d was already closed", identifier)

    def _on_activation_token(self, identifier: int, token: str) -> None:
        self._activation = (identifier, token)

    def _on_action_invoked(self, identifier: int, action_key: str) -> None:
        token_for, token = self._activation
        self._activation = (0, "")
        entry = self._plans.get(identifier)
        if entry is None:
            return
        plan, generation, on_action = entry
        kind_value, _, stamp = action_key.rpartition(".")
        if action_key == "default":
            kind: ActionKind | None = ActionKind.REVIEW
        elif stamp != str(generation):
            log.info("a notification button of replaced content was pressed; ignored")
            return
        else:
            kind = next((k for k in ActionKind if k.value == kind_value), None)
        if kind is not None:
            with event_token.handling(token if token_for == identifier else ""):
                on_action(plan, kind)

    def _on_closed(self, identifier: int, reason: int) -> None:
        self._notices.pop(identifier, None)
        entry = self._plans.pop(identifier, None)
        if entry is None:
            return
        ref = entry[0].ref
        if self._shown.get(ref) == identifier:
            del self._shown[ref]
            if reason == CLOSED_BY_USER:
                self._dismissed.add(ref)

    async def aclose(self) -> None:
        """Withdraw what we showed, then leave the bus.

        Buttons would act on nothing, and a notice speaks of a tray that is gone.
        """
        if self._iface is not None:
            for identifier in [*self._shown.values(), *self._notices]:
                try:
                    await asyncio.wait_for(self._close(identifier), 2.0)
                except Exception:  # the service may already be gone at shutdown
                    log.debug("could not close a notification at shutdown", exc_info=True)
        self._shown.clear()
        self._plans.clear()
        self._notices.clear()
        await self._disconnect()

    async def _disconnect(self) -> None:
        self._dnd.stop()
        bus, self._bus, self._iface = self._bus, None, None
        if bus is not None:
            await leave(bus, 2.0)

    def _require(self) -> Any:
        if self._iface is None:
            raise RuntimeError("NativeNotifier.start() has not run")
        return self._iface


def _hints(urgent: bool, *, resident: bool = False, category: str = "") -> dict[str, Any]:
    """The urgency, and the app's ``desktop-entry`` that per-app settings hang on."""
    from dbus_fast import Variant

    level = URGENCY_CRITICAL if urgent else URGENCY_NORMAL
    hints = {"urgency": Variant("y", level), "desktop-entry": Variant("s", APP_ID)}
    if category:
        hints["category"] = Variant("s", category)
    if resident:
        hints["resident"] = Variant("b", True)
    return hints
