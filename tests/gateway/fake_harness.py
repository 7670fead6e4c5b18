"""Run a GatewayClient (with the real core) against the fake gateway, in any dialect.

For dialect C the client reaches the fake as it would reach main's canonical gateway: through
a control socket in a private HERMES_HOME (``FakeControlSocket``) whose tickets the fake
itself mints (``FakeGateway.issue_ticket``), so each dial needs a fresh, single-use ticket.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.events import ApprovalChanged, ApprovalRequested
from desktop.core.model import Approval
from desktop.core.settings import CoreSettings
from desktop.gateway import canonical
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import ConnectionSettings, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.settings.model import GatewayKind
from tests.gateway.control_server import FakeControlSocket
from tests.gateway.recorder import Recorder
from tests.gatewaymodel import FakeGateway

FAST = BackoffPolicy(initial=0.01, factor=2.0, max_delay=0.05, jitter=0.0)
QUICK = ConnectionSettings(
    open_timeout=2.0, handshake_timeout=1.0, ping_interval=None, close_timeout=1.0
)


def adopted(client: GatewayClient) -> set[str]:
    """The sessions the core follows that the tray did not start (another client's)."""
    core = client.core
    return {
        s.session_id for s in core.session_book.followed() if not core.started_here(s.session_id)
    }


@dataclass
class Harness:
    fake: FakeGateway
    client: GatewayClient
    rec: Recorder
    control: FakeControlSocket | None

    def requested(self) -> list[Approval]:
        return [e.approval for e in self.rec.of_type(ApprovalRequested)]  # type: ignore[attr-defined]

    def latest(self, key: str) -> Approval:
        """The newest value of approval ``key`` the listener saw."""
        found = [
            e.approval  # type: ignore[attr-defined]
            for e in self.rec.of_type((ApprovalRequested, ApprovalChanged))  # type: ignore[arg-type]
            if e.approval.key == key  # type: ignore[attr-defined]
        ]
        return found[-1]

    async def wait_requested(self, count: int, timeout: float = 5.0) -> list[Approval]:
        await self.rec.wait_for(lambda: len(self.requested()) >= count, timeout)
        return self.requested()

    async def wait_approval(
        self, key: str, predicate: Callable[[Approval], bool], timeout: float = 5.0
    ) -> Approval:
        await self.rec.wait_for(lambda: predicate(self.latest(key)), timeout)
        return self.latest(key)

    def received(self, conn: int, method: str) -> list[dict[str, Any]]:
        return self.fake.connections[conn].requests(method)


@contextlib.asynccontextmanager
async def client_on(
    url: str, *, settings: ConnectionSettings = QUICK, **options: Any
) -> AsyncIterator[tuple[GatewayClient, Recorder]]:
    """A running real client (and its recorder) on the gateway at ``url``; closed after."""
    endpoint = GatewayEndpoint("gw", "Gateway", GatewayKind.URL, url=url)
    rec = Recorder()
    client = GatewayClient(
        endpoint, listener=rec, backoff=FAST, connection_settings=settings, **options
    )
    runner = asyncio.create_task(client.run())
    try:
        yield client, rec
    finally:
        await client.close()
        await runner


@contextlib.asynccontextmanager
async def running(
    dialect: str,
    home: Path,
    *,
    settings: ConnectionSettings = QUICK,
    backoff: BackoffPolicy = FAST,
    speed: float = 0.002,
    approval_timeout_s: float | None = None,
    follow_all: bool = True,
    core_settings: CoreSettings | None = None,
    **fake_kwargs: Any,
) -> AsyncIterator[Harness]:
    """A started fake + a running client connected to it (not yet waited for).

    ``approval_timeout_s``: the per-gateway configured approval timeout (settings).
    """
    async with FakeGateway(dialect, speed=speed, **fake_kwargs) as fake:
        control: FakeControlSocket | None = None
        async with contextlib.AsyncExitStack() as stack:
            if dialect == "C":
                control = await stack.enter_async_context(
                    FakeControlSocket(
                        str(home / canonical.SOCKET_NAME),
                        home=str(home),
                        api_origin=f"http://127.0.0.1:{fake.port}",
                        mint=fake.issue_ticket,
                    )
                )
                endpoint = GatewayEndpoint(
                    "fake-c", "Fake C", GatewayKind.CANONICAL, hermes_home=str(home)
                )
            else:
                endpoint = GatewayEndpoint(
                    f"fake-{dialect}",
                    f"Fake {dialect}",
                    GatewayKind.URL,
                    url=fake.url,
                    approval_timeout_s=approval_timeout_s,
                )
            rec = Recorder()
            client = GatewayClient(
                endpoint,
                listener=rec,
                backoff=backoff,
                connection_settings=settings,
                follow_all=follow_all,
                core_settings=core_settings,
            )
            runner = asyncio.create_task(client.run())
            try:
                yield Harness(fake, client, rec, control)
            finally:
                await client.close()
                await runner
