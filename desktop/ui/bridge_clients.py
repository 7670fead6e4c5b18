"""How the bridge builds gateway clients and listens to them. Qt-free."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.core.events import CoreEvent
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.status import ConnectionStatus, GatewayListener

if TYPE_CHECKING:
    from desktop.gateway.client import GatewayClient

ClientFactory = Callable[[GatewayEndpoint, GatewayListener], "GatewayClient"]


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


def gateway_client_factory(endpoint: GatewayEndpoint, listener: GatewayListener) -> GatewayClient:
    """The real client (imported on first use: websockets is not needed until a gateway is)."""
    from desktop.gateway.client import GatewayClient

    return GatewayClient(endpoint, listener=listener)
