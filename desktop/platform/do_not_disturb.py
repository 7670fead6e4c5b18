"""The desktop's do-not-disturb switch, read where the notification server exposes it.

While it is on a server keeps bubbles in its history, each with an Approve button nobody saw
come; so the tray sends none meanwhile and one summary when it goes off. Plasma, xfce4-notifyd
and GNOME Shell (from its dconf file: :mod:`desktop.platform.dconf_db`) are read; anything else,
a failed read or a non-boolean is "not known", never "on": the tray then sends as usual and the
server applies its own switch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
PROPERTIES = "org.freedesktop.DBus.Properties"
BUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
INHIBITED = "Inhibited"
XFCONF = "org.xfce.Xfconf"
XFCONF_PATH = "/org/xfce/Xfconf"
XFCONF_CHANNEL = "xfce4-notifyd"
XFCONF_PROPERTY = "/do-not-disturb"
XFCONF_NOT_FOUND = "org.xfce.Xfconf.Error.PropertyNotFound"
XFCE_SERVER = "Xfce Notify Daemon"  # GetServerInformation's name of xfce4-notifyd

DCONF_WRITER = "ca.desrt.dconf.Writer"
DCONF_NOTIFY = f"type='signal',interface='{DCONF_WRITER}',member='Notify'"
GNOME_KEY = "/org/gnome/desktop/notifications/show-banners"
GNOME_SERVER = "gnome-shell"  # GetServerInformation's name of GNOME Shell

KDE_SOURCE = "KDE Plasma (Inhibited on org.freedesktop.Notifications)"
GNOME_SOURCE = "GNOME (org.gnome.desktop.notifications show-banners, dconf)"
XFCE_SOURCE = "xfce4-notifyd (xfconf xfce4-notifyd /do-not-disturb)"


@dataclass(frozen=True, slots=True)
class DoNotDisturb:
    """The switch as read: ``on`` is None when not known; ``source`` says where it was read."""

    on: bool | None
    source: str = ""
    reason: str = ""  # why it is not known

    def describe(self) -> str:
        if self.on is None:
            return f"not known ({self.reason})" if self.reason else "not known"
        return f"{'on' if self.on else 'off'} (from {self.source})"


class DoNotDisturbWatch:
    """Reads the switch once and follows its changes (``on_change``, on the loop) on a bus."""

    def __init__(self, on_change: Callable[[DoNotDisturb], None] | None = None) -> None:
        self.on_change = on_change
        self.state = DoNotDisturb(None, reason="not read yet")
        self._unsubscribe: Callable[[], None] | None = None

    async def start(self, bus: Any, server_name: str, timeout: float = 2.0) -> None:
        """Subscribe (first: no change is lost), then read, within ``timeout``; never raises."""
        try:
            await asyncio.wait_for(self._start(bus, server_name), timeout)
        except Exception as exc:  # no server, a server that does not answer, a refused call
            log.info("do-not-disturb not read: %s", type(exc).__name__)
            self.stop()
            self._set(DoNotDisturb(None, reason=f"the read failed ({type(exc).__name__})"))

    async def _start(self, bus: Any, server_name: str) -> None:
        node = await bus.introspect(NOTIFICATIONS, NOTIFICATIONS_PATH)
        server = bus.get_proxy_object(NOTIFICATIONS, NOTIFICATIONS_PATH, node)
        if any(
            i.name == NOTIFICATIONS and any(p.name == INHIBITED for p in i.properties)
            for i in node.interfaces
        ):
            await self._start_kde(server.get_interface(PROPERTIES))
            return
        if server_name == XFCE_SERVER:
            await self._start_xfce(bus)
            return
        if server_name == GNOME_SERVER:
            await self._start_gnome(bus)
            return
        self._set(
            DoNotDisturb(None, reason=f"the notification server {server_name!r} does not say")
        )

    async def _start_kde(self, properties: Any) -> None:
        def changed(interface: str, values: dict[str, Any], _invalidated: list[str]) -> None:
            if interface == NOTIFICATIONS and INHIBITED in values:
                self._set_read(KDE_SOURCE, values[INHIBITED].value)

        properties.on_properties_changed(changed)
        self._unsubscribe = lambda: properties.off_properties_changed(changed)
        value = await properties.call_get(NOTIFICATIONS, INHIBITED)
        self._set_read(KDE_SOURCE, value.value)

    async def _start_xfce(self, bus: Any) -> None:
        from dbus_fast.errors import DBusError

        node = await bus.introspect(XFCONF, XFCONF_PATH)
        xfconf = bus.get_proxy_object(XFCONF, XFCONF_PATH, node).get_interface(XFCONF)

        def changed(channel: str, name: str, value: Any) -> None:
            if (channel, name) == (XFCONF_CHANNEL, XFCONF_PROPERTY):
                self._set_read(XFCE_SOURCE, value.value)

        def removed(channel: str, name: str) -> None:
            if (channel, name) == (XFCONF_CHANNEL, XFCONF_PROPERTY):
                self._set_read(XFCE_SOURCE, False)  # reset: xfce4-notifyd's default

        xfconf.on_property_changed(changed)
        xfconf.on_property_removed(removed)

        def unsubscribe() -> None:
            xfconf.off_property_changed(changed)
            xfconf.off_property_removed(removed)

        self._unsubscribe = unsubscribe
        try:
            value = await xfconf.call_get_property(XFCONF_CHANNEL, XFCONF_PROPERTY)
        except DBusError as exc:
            if exc.type != XFCONF_NOT_FOUND:
                raise
            self._set_read(XFCE_SOURCE, False)  # never set: xfce4-notifyd's default
            return
        self._set_read(XFCE_SOURCE, value.value)

    async def _start_gnome(self, bus: Any) -> None:
        from dbus_fast import Message, MessageType

        from desktop.platform.dconf_db import read_bool

        def read() -> None:  # show-banners false is on; unset is the default, true
            self._set_read(GNOME_SOURCE, read_bool(GNOME_KEY) is False)

        def written(message: Message) -> None:
            if message.message_type is MessageType.SIGNAL and message.interface == DCONF_WRITER:
                read()  # a dconf write of any key: a re-read costs one small file

        bus.add_message_handler(written)
        self._unsubscribe = lambda: bus.remove_message_handler(written)
        await bus_call(bus, "AddMatch", "s", DCONF_NOTIFY)
        read()

    def _set_read(self, source: str, value: Any) -> None:
        if isinstance(value, bool):
            self._set(DoNotDisturb(value, source))
        else:
            self._set(DoNotDisturb(None, source, f"{source} gave a {type(value).__name__}"))

    def _set(self, state: DoNotDisturb) -> None:
        if state == self.state:
            return
        self.state = state
        log.info("do not disturb: %s", state.describe())
        if self.on_change is not None:
            self.on_change(state)

    def stop(self) -> None:
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            try:
                unsubscribe()
            except Exception:  # a bus that is already gone
                log.debug("could not unsubscribe from do-not-disturb changes", exc_info=True)


async def bus_call(
    bus: Any, member: str, signature: str, *body: str, at: tuple[str, str, str] = BUS
) -> object:
    """One method of the bus itself (or of ``at``: destination, path, interface); None on error."""
    from dbus_fast import Message, MessageType

    destination, path, interface = at
    message = Message(
        destination=destination,
        path=path,
        interface=interface,
        member=member,
        signature=signature,
        body=list(body),
    )
    reply = await bus.call(message)
    if reply is None or reply.message_type is MessageType.ERROR or not reply.body:
        return None
    return reply.body[0]


async def leave(bus: Any, timeout: float) -> None:
    """Disconnect and wait for it, bounded: a bus that is gone already is no error."""
    bus.disconnect()
    try:
        await asyncio.wait_for(bus.wait_for_disconnect(), timeout)
    except Exception:
        log.debug("the session bus did not disconnect cleanly", exc_info=True)


async def read_once(timeout: float = 2.0) -> tuple[str, DoNotDisturb]:
    """``(server, switch)`` read from the session bus, then disconnected (for ``doctor``)."""
    try:
        from dbus_fast.aio import MessageBus
    except ImportError:
        return "", DoNotDisturb(None, reason="dbus-fast is not installed")
    bus: Any = None
    try:
        bus = await asyncio.wait_for(MessageBus().connect(), timeout)
    except Exception as exc:  # no session bus: nothing to read
        return "", DoNotDisturb(None, reason=f"no session bus ({type(exc).__name__})")
    try:
        try:
            info = await asyncio.wait_for(_server_information(bus), timeout)
        except Exception as exc:
            return "", DoNotDisturb(None, reason=f"no notification server ({type(exc).__name__})")
        watch = DoNotDisturbWatch()
        await watch.start(bus, str(info[0]), timeout)
        watch.stop()
        return " ".join(str(part) for part in info[:3]), watch.state
    finally:
        await leave(bus, timeout)


async def _server_information(bus: Any) -> list[str]:
    node = await bus.introspect(NOTIFICATIONS, NOTIFICATIONS_PATH)
    proxy: Any = bus.get_proxy_object(NOTIFICATIONS, NOTIFICATIONS_PATH, node)
    return [
        str(part) for part in await proxy.get_interface(NOTIFICATIONS).call_get_server_information()
    ]
