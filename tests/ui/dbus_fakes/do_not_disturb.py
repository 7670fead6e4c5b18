"""Where desktops publish do-not-disturb, as dbus-fast services on a test's private bus.

* :class:`FakePlasma`: a notification server with KDE Plasma's read-only ``Inhibited``
  property, announced with ``PropertiesChanged`` as plasmashell does.
* :class:`FakeXfconf`: ``org.xfce.Xfconf`` as xfconfd 4.18 introspects (``GetProperty(s, s) ->
  v``, ``PropertyChanged(s, s, v)``, ``PropertyRemoved(s, s)``; an unset property is the
  error ``org.xfce.Xfconf.Error.PropertyNotFound``), holding only what a test sets; paired with
  :class:`FakeXfceNotifyd`, which names itself as xfce4-notifyd does.
* :class:`FakeDconf`: dconf-service as GSettings clients see it: it replaces the database file
  (here with a real one from tests/fixtures/dconf), then sends ``ca.desrt.dconf.Writer.Notify(s
  prefix, as keys, s tag)`` from ``/ca/desrt/dconf/Writer/user``; paired with
  :class:`FakeGnomeShell`, which names itself as gnome-shell does.

The real xfconfd and xfce4-notifyd are exercised by tests/desktop.
"""

# dbus-fast reads D-Bus signatures from string annotations, as in notifyd.py.
# ruff: noqa: F821, N802

import shutil
from pathlib import Path
from typing import Any

from dbus_fast import Variant
from dbus_fast.aio import MessageBus
from dbus_fast.constants import PropertyAccess
from dbus_fast.errors import DBusError
from dbus_fast.service import ServiceInterface, dbus_property, method, signal

from desktop.platform.dconf_db import user_database
from tests.ui.dbus_fakes.notifyd import FakeNotifyd, release, serve

XFCONF = "org.xfce.Xfconf"
XFCONF_PATH = "/org/xfce/Xfconf"


class FakePlasma(FakeNotifyd):
    def __init__(self, capabilities: tuple[str, ...]) -> None:
        super().__init__(capabilities)
        self._inhibited = False

    @dbus_property(access=PropertyAccess.READ)
    def Inhibited(self) -> "b":
        return self._inhibited

    def set_inhibited(self, on: bool) -> None:
        """What plasmashell does when the person turns do-not-disturb on or off."""
        self._inhibited = on
        self.emit_properties_changed({"Inhibited": on})

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["Plasma", "KDE", "6.0", "1.2"]


class FakeXfceNotifyd(FakeNotifyd):
    @method()
    def GetServerInformation(self) -> "ssss":
        return ["Xfce Notify Daemon", "Xfce", "0.7.3", "1.2"]


class FakeXfconf(ServiceInterface):
    def __init__(self) -> None:
        super().__init__(XFCONF)
        self.values: dict[tuple[str, str], Variant] = {}
        self.bus: MessageBus | None = None

    @classmethod
    async def start(cls, address: str) -> "FakeXfconf":
        self = cls()
        self.bus = await serve(address, XFCONF_PATH, self, XFCONF)
        return self

    async def stop(self) -> None:
        await release(self.bus)
        self.bus = None

    def set(self, channel: str, name: str, value: Variant) -> None:
        """``xfconf-query -c channel -p name -s value``."""
        self.values[(channel, name)] = value
        self.PropertyChanged(channel, name, value)

    def reset(self, channel: str, name: str) -> None:
        """``xfconf-query -c channel -p name -r``."""
        self.values.pop((channel, name), None)
        self.PropertyRemoved(channel, name)

    @method()
    def GetProperty(self, channel: "s", name: "s") -> "v":
        value = self.values.get((channel, name))
        if value is None:
            raise DBusError(
                "org.xfce.Xfconf.Error.PropertyNotFound",
                f'Property "{name}" does not exist on channel "{channel}"',
            )
        return value

    @signal()
    def PropertyChanged(self, channel: str, name: str, value: Any) -> "ssv":
        return [channel, name, value]

    @signal()
    def PropertyRemoved(self, channel: str, name: str) -> "ss":
        return [channel, name]


class FakeGnomeShell(FakeNotifyd):
    @method()
    def GetServerInformation(self) -> "ssss":
        return ["gnome-shell", "GNOME", "43.9", "1.2"]


class FakeDconf(ServiceInterface):
    def __init__(self) -> None:
        super().__init__("ca.desrt.dconf.Writer")
        self.bus: MessageBus | None = None

    @classmethod
    async def start(cls, address: str) -> "FakeDconf":
        self = cls()
        self.bus = await serve(address, "/ca/desrt/dconf/Writer/user", self, "ca.desrt.dconf")
        return self

    async def stop(self) -> None:
        await release(self.bus)
        self.bus = None

    def write(self, database: Path, key: str) -> None:
        """``gsettings set`` of ``key`` that leaves the user database as ``database``."""
        target = user_database()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(database, target)
        folder, _, name = key.rpartition("/")
        self.Notify(folder + "/", [name], "")

    @signal()
    def Notify(self, prefix: str, keys: list[str], tag: str) -> "sass":
        return [prefix, keys, tag]
