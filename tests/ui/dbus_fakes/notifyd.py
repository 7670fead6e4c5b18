"""A fake org.freedesktop.Notifications server (dbus-fast) that records and can "click".

Why a fake owner and not ``gdbus emit``: desktop-notifier (dbus-fast) only accepts
``ActionInvoked`` from the name's owner (stack.md §4.5), so a click must come from the service
itself. ``invoke(id, key)`` is what a person pressing a button makes the daemon send.
``capabilities`` include ``body-markup`` like xfce4-notifyd, so tests see what a markup-parsing
server would get.
"""

# dbus-fast reads D-Bus signatures from string annotations ("s", "as", ...), so these files
# keep real (not postponed) annotations and D-Bus method names.
# ruff: noqa: F722, F821, N802

import asyncio
from dataclasses import dataclass, field
from typing import Any

from dbus_fast import NameFlag, RequestNameReply
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method, signal

BUS_NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


@dataclass
class Shown:
    id: int
    app_name: str
    summary: str
    body: str
    actions: dict[str, str]
    hints: dict[str, Any] = field(default_factory=dict)
    closed: bool = False
    replaces_id: int = 0
    expire_timeout: int = -1


class FakeNotifyd(ServiceInterface):
    def __init__(self, capabilities: tuple[str, ...]) -> None:
        super().__init__(BUS_NAME)
        self.capabilities = list(capabilities)
        self.shown: list[Shown] = []  # the latest content of every notification, by id
        self.calls: list[Shown] = []  # every Notify call, in order
        self.withdrawn: list[int] = []  # every CloseNotification call's id, in order
        self._last_id = 0
        self.received: asyncio.Queue[Shown] = asyncio.Queue()
        self.bus: MessageBus | None = None

    @classmethod
    async def start(
        cls, address: str, capabilities: tuple[str, ...] = ("actions", "body", "body-markup")
    ) -> "FakeNotifyd":
        self = cls(capabilities)
        self.bus = await serve(address, PATH, self, BUS_NAME)
        return self

    async def stop(self) -> None:
        await release(self.bus)
        self.bus = None

    def invoke(self, note_id: int, action_key: str, token: str = "") -> None:
        """What the daemon sends when a person presses the button ``action_key``.

        A server of spec 1.2 first sends the activation token it got for the press.
        """
        if token:
            self.ActivationToken(note_id, token)
        self.ActionInvoked(note_id, action_key)
        self._close(note_id, 2)

    def _close(self, note_id: int, reason: int) -> None:
        for note in self.shown:
            if note.id == note_id:
                note.closed = True
        self.NotificationClosed(note_id, reason)

    @method()
    def Notify(
        self,
        app_name: "s",
        replaces_id: "u",
        app_icon: "s",
        summary: "s",
        body: "s",
        actions: "as",
        hints: "a{sv}",
        expire_timeout: "i",
    ) -> "u":
        replaced = next((n for n in self.shown if n.id == replaces_id and not n.closed), None)
        note = Shown(
            id=replaced.id if replaced is not None else self._last_id + 1,
            app_name=app_name,
            summary=summary,
            body=body,
            actions=dict(zip(actions[::2], actions[1::2], strict=True)),
            hints={k: v.value for k, v in hints.items()},
            replaces_id=replaces_id,
            expire_timeout=expire_timeout,
        )
        if replaced is not None:  # updated in place: the same id, the new content
            self.shown.remove(replaced)
        self._last_id = max(self._last_id, note.id)
        self.shown.append(note)
        self.calls.append(note)
        self.received.put_nowait(note)
        return note.id

    @method()
    def CloseNotification(self, note_id: "u") -> None:
        self.withdrawn.append(note_id)
        self._close(note_id, 3)

    @method()
    def GetCapabilities(self) -> "as":
        return self.capabilities

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["fake-notifyd", "hermes-tray tests", "1.0", "1.2"]

    @signal()
    def ActionInvoked(self, note_id: int, action_key: str) -> "us":
        return [note_id, action_key]

    @signal()
    def ActivationToken(self, note_id: int, token: str) -> "us":
        return [note_id, token]

    @signal()
    def NotificationClosed(self, note_id: int, reason: int) -> "uu":
        return [note_id, reason]


async def serve(address: str, path: str, service: ServiceInterface, name: str) -> MessageBus:
    """A connection to the bus at ``address`` that exports ``service`` and owns ``name``."""
    bus = await MessageBus(bus_address=address).connect()
    bus.export(path, service)
    reply = await bus.request_name(name, NameFlag.DO_NOT_QUEUE)
    if reply is not RequestNameReply.PRIMARY_OWNER:
        raise RuntimeError(f"{name} is already owned on this bus")
    return bus


async def release(bus: MessageBus | None) -> None:
    """Leave the bus (the name goes with the connection)."""
    if bus is not None:
        bus.disconnect()
        await bus.wait_for_disconnect()
