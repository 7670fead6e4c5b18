"""One fake gateway + one real GatewayClient, wired for the end-to-end safety campaign.

Why not reuse ``tests.gateway.fake_harness.running`` as is: the campaign needs the client's core
settings to match the fake's scaled approval timeout (0.19.0 counts locally), the decision and
execution taps installed before anything runs, and a listener that wakes the person on every
event. The canonical dialect goes through the repository's control socket (``control``), so each
reconnect mints a fresh single-use ticket exactly as against a real canonical gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from desktop.core.events import CoreEvent
from desktop.core.gateway_core import CoreSettings
from desktop.gateway import canonical
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import (
    ConnectionSettings,
    ConnectionState,
    ConnectionStatus,
    GatewayClient,
)
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.settings.model import GatewayKind
from tests.gatewaymodel import FakeGateway
from tests.safety.e2e.control import ControlSocket
from tests.safety.e2e.taps import DecisionTap, ExecutionSpy

FAST = BackoffPolicy(initial=0.01, factor=2.0, max_delay=0.05, jitter=0.0)
QUICK = ConnectionSettings(
    open_timeout=2.0, handshake_timeout=2.0, ping_interval=None, close_timeout=1.0
)


class Wakeup:
    """A GatewayListener that only remembers that something happened."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.states: list[ConnectionState] = []

    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        self.event.set()

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if new.state is not old.state:  # transitions only (a version update is no reconnect)
            self.states.append(new.state)
        self.event.set()

    async def wait(self, timeout: float) -> None:
        """Until the next event or ``timeout`` real seconds, whichever is first."""
        self.event.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.event.wait(), timeout)

    async def connected(self, count: int = 1, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while self.states.count(ConnectionState.CONNECTED) < count:
                await self.wait(0.5)


@dataclass
class Rig:
    fake: FakeGateway
    client: GatewayClient
    wake: Wakeup
    tap: DecisionTap
    executions: ExecutionSpy


@contextlib.asynccontextmanager
async def rig(
    dialect: str, home: Path, *, speed: float, approval_timeout: float | None, margin: float
) -> AsyncIterator[Rig]:
    """A started fake and a running client; both stopped (client first) on exit."""
    async with FakeGateway(dialect, speed=speed, approval_timeout=approval_timeout) as fake:
        spy = ExecutionSpy(fake.world)
        fake.world.executed = spy
        async with contextlib.AsyncExitStack() as stack:
            if dialect == "C":
                await stack.enter_async_context(
                    ControlSocket(
                        str(home / canonical.SOCKET_NAME),
                        home=str(home),
                        api_origin=f"http://127.0.0.1:{fake.port}",
                        mint=fake.issue_ticket,
                    )
                )
                endpoint = GatewayEndpoint(
                    "safety-c", "Safety C", GatewayKind.CANONICAL, hermes_home=str(home)
                )
            else:
                endpoint = GatewayEndpoint(
                    f"safety-{dialect}", f"Safety {dialect}", GatewayKind.URL, url=fake.url
                )
            local_timeout = approval_timeout * speed if approval_timeout else 600.0
            settings = CoreSettings(a_approval_timeout=local_timeout, staleness_margin=margin)
            wake = Wakeup()
            client = GatewayClient(
                endpoint,
                listener=wake,
                backoff=FAST,
                connection_settings=QUICK,
                core_settings=settings,
            )
            tap = DecisionTap(client.core)
            runner = asyncio.create_task(client.run())
            try:
                yield Rig(fake, client, wake, tap, spy)
            finally:
                await client.close()
                await asyncio.gather(runner, return_exceptions=True)  # a test may cancel it


async def client_until(
    endpoint: GatewayEndpoint,
    done: Callable[[GatewayClient], bool],
    timeout: float = 5,
    poll: float = 0.1,
) -> GatewayClient:
    """Run a client for ``endpoint`` until ``done(client)``, then close it and return it.

    For the tests of what a refused, forbidden or allowed endpoint does: they inspect the
    client's status (or what it dialled) after it ended cleanly.
    """
    wake = Wakeup()
    client = GatewayClient(endpoint, listener=wake, backoff=FAST, connection_settings=QUICK)
    runner = asyncio.create_task(client.run())
    try:
        async with asyncio.timeout(timeout):
            while not done(client):
                await wake.wait(poll)
    finally:
        await client.close()
        await runner
    return client


def gave_up(client: GatewayClient) -> bool:
    return client.status.state is ConnectionState.FAILED
