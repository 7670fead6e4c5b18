"""What the bridge needs from a gateway client and from the notifier, and how it listens. Qt-free.

The bridge's tests swap the real ``GatewayClient`` and ``NativeNotifier`` for stand-ins through
these contracts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from desktop.core.events import CoreEvent
from desktop.core.model import Choice, DecisionResult
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.status import ConnectionStatus, GatewayListener
from desktop.model.notify_policy import ActionKind, NotificationPlan
from desktop.platform.do_not_disturb import DoNotDisturb


class ClientLike(Protocol):
    """The part of ``desktop.gateway.client.GatewayClient`` the bridge uses."""

    gateway_id: str
    name: str
    status: ConnectionStatus

    async def run(self) -> None: ...
    async def close(self) -> None: ...
    def decide(
        self, key: str, choice: Choice, *, confirm_stale: bool = False
    ) -> DecisionResult: ...
    def answer_prompt(self, key: str, answer: str) -> DecisionResult: ...
    def reconnect_now(self) -> None: ...
    async def set_yolo(self, session_id: str, on: bool) -> None: ...
    async def read_yolo(self, session_id: str) -> None: ...
    async def set_approval_mode(self, mode: str) -> None: ...
    async def interrupt(self, session_id: str) -> None: ...
    async def create_session(self, cwd: str, prompt: str) -> str: ...


ClientFactory = Callable[[GatewayEndpoint, GatewayListener], ClientLike]


class Notifier(Protocol):
    """What the bridge uses of ``desktop.platform.native_notify.NativeNotifier``."""

    buttons: bool

    async def start(self) -> bool: ...
    async def show(
        self, plan: NotificationPlan, on_action: Callable[[NotificationPlan, ActionKind], None]
    ) -> bool: ...
    async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool: ...
    async def withdraw(self, gateway_id: str, batch_id: str) -> None: ...
    async def aclose(self) -> None: ...
    def watch_do_not_disturb(self, on_change: Callable[[DoNotDisturb], None]) -> None: ...


class ClientListener:
    """What one client reports to; goes quiet once its client is removed or replaced.

    A closing client may still deliver events, and a replaced gateway's new one has the same id.
    """

    def __init__(self, target: GatewayListener) -> None:
        self._target: GatewayListener | None = target

    def detach(self) -> None:
        self._target = None

    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        if self._target is not None:
            self._target.on_core_event(gateway_id, event)

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if self._target is not None:
            self._target.on_status_changed(gateway_id, old, new)


def gateway_client_factory(endpoint: GatewayEndpoint, listener: GatewayListener) -> ClientLike:
    """The real client (imported on first use: websockets is not needed until a gateway is)."""
    from desktop.gateway.client import GatewayClient

    return GatewayClient(endpoint, listener=listener)
