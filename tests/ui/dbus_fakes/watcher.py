"""A fake org.kde.StatusNotifierWatcher (dbus-fast): a tray host's watcher, with or without a host.

Only what Qt and ``desktop.platform.tray_probe`` read: the ``IsStatusNotifierHostRegistered``
property.
"""

# dbus-fast reads D-Bus signatures from string annotations: real annotations, D-Bus names.
# ruff: noqa: F821, N802

from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property

from tests.ui.dbus_fakes.notifyd import release, serve

BUS_NAME = "org.kde.StatusNotifierWatcher"
PATH = "/StatusNotifierWatcher"


class FakeWatcher(ServiceInterface):
    def __init__(self, host: bool) -> None:
        super().__init__(BUS_NAME)
        self.host = host
        self.bus: MessageBus | None = None

    @classmethod
    async def start(cls, address: str, *, host: bool = True) -> "FakeWatcher":
        self = cls(host)
        self.bus = await serve(address, PATH, self, BUS_NAME)
        return self

    async def stop(self) -> None:
        await release(self.bus)
        self.bus = None

    @dbus_property(access=PropertyAccess.READ)
    def IsStatusNotifierHostRegistered(self) -> "b":
        return self.host
