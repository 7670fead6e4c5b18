"""GatewayClient dialling each kind of endpoint: owned backend, canonical ticket, dashboard."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import Dialect
from desktop.gateway import canonical
from desktop.gateway import client as client_module
from desktop.gateway.client import ConnectionState, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import OutcomeUnknownError
from desktop.settings.model import GatewayKind
from tests.gateway.control_server import FakeControlSocket
from tests.gateway.fake_hermes import fake_env, write_fake_hermes
from tests.gateway.http_server import FakeDashboard
from tests.gateway.mini_server import MiniGateway
from tests.gateway.recorder import Recorder
from tests.gateway.stub_core import StubCore
from tests.gateway.test_client_transport import FAST, QUICK


@pytest.fixture(autouse=True)
def stub_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "GatewayCore", StubCore)


@pytest.fixture
def short_home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hgc", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _client(endpoint: GatewayEndpoint) -> tuple[GatewayClient, Recorder]:
    recorder = Recorder()
    return GatewayClient(
        endpoint, listener=recorder, backoff=FAST, connection_settings=QUICK
    ), recorder


def test_owned_backend_is_started_restarted_after_a_crash_and_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arun: Callable[..., Any]
) -> None:
    for key, value in fake_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    exe = write_fake_hermes(tmp_path)
    endpoint = GatewayEndpoint("own", "Own", GatewayKind.OWNED, hermes_executable=str(exe))

    async def scenario() -> None:
        client, rec = _client(endpoint)
        runner = asyncio.create_task(client.run())
        try:
            await rec.wait_state(ConnectionState.CONNECTED, timeout=15)
            backend = client.dialer.backend
            assert backend is not None
            first_pid = backend.pid
            with pytest.raises(OutcomeUnknownError):
                await client.call("crash", {})
            await rec.wait_state(ConnectionState.CONNECTED, count=2, timeout=15)
            assert backend.pid != first_pid  # a new child
        finally:
            await client.close()
            await runner
        assert not backend.running
        assert backend.pid is None

    arun(scenario(), timeout=40)


def test_canonical_gets_a_fresh_ticket_for_every_dial(
    short_home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with MiniGateway(
            lambda i: "drop-on:ping" if i == 0 else "ok", canonical=True
        ) as server:
            origin = f"http://127.0.0.1:{server.port}"
            sock = str(short_home / canonical.SOCKET_NAME)
            async with FakeControlSocket(
                sock, home=str(short_home), api_origin=origin, on_ticket=server.tickets.add
            ) as control:
                endpoint = GatewayEndpoint(
                    "c", "Canonical", GatewayKind.CANONICAL, hermes_home=str(short_home)
                )
                client, rec = _client(endpoint)
                runner = asyncio.create_task(client.run())
                status = await rec.wait_state(ConnectionState.CONNECTED)
                assert status.dialect is Dialect.C
                with pytest.raises(OutcomeUnknownError):
                    await client.call("ping", {})
                await rec.wait_state(ConnectionState.CONNECTED, count=2)
                assert len(control.tickets) == 2
                assert server.used_tickets == control.tickets  # each used exactly once
                await client.close()
                await runner

    arun(scenario())


def test_canonical_refused_ticket_is_retried_with_a_new_one(
    short_home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with MiniGateway(canonical=True) as server:
            origin = f"http://127.0.0.1:{server.port}"
            sock = str(short_home / canonical.SOCKET_NAME)
            minted: list[str] = []

            def grant(ticket: str) -> None:  # the first ticket is "lost" (never registered)
                minted.append(ticket)
                if len(minted) > 1:
                    server.tickets.add(ticket)

            async with FakeControlSocket(
                sock, home=str(short_home), api_origin=origin, on_ticket=grant
            ):
                endpoint = GatewayEndpoint(
                    "c", "Canonical", GatewayKind.CANONICAL, hermes_home=str(short_home)
                )
                client, rec = _client(endpoint)
                runner = asyncio.create_task(client.run())
                await rec.wait_state(ConnectionState.CONNECTED)
                backoff = rec.statuses[rec.states.index(ConnectionState.BACKOFF)]
                assert "getting a fresh one" in backoff.error
                assert minted[0] not in backoff.error
                assert len(minted) == 2
                await client.close()
                await runner

    arun(scenario())


def test_canonical_without_the_subprotocol_echo_fails(
    short_home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with MiniGateway(canonical=True, echo_subprotocol=False) as server:
            sock = str(short_home / canonical.SOCKET_NAME)
            async with FakeControlSocket(
                sock,
                home=str(short_home),
                api_origin=f"http://127.0.0.1:{server.port}",
                on_ticket=server.tickets.add,
            ):
                endpoint = GatewayEndpoint(
                    "c", "Canonical", GatewayKind.CANONICAL, hermes_home=str(short_home)
                )
                client, rec = _client(endpoint)
                runner = asyncio.create_task(client.run())
                failed = await rec.wait_state(ConnectionState.FAILED)
                assert "protocol mismatch" in failed.error
                await client.close()
                await runner

    arun(scenario())


def test_dashboard_token_is_scraped_again_at_every_dial(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with FakeDashboard(token="dash-secret") as dash:
            endpoint = GatewayEndpoint(
                "d", "Dash", GatewayKind.DASHBOARD, url=f"http://127.0.0.1:{dash.port}"
            )
            client, _rec = _client(endpoint)
            plan = await client.dialer.plan()
            assert plan.url == f"ws://127.0.0.1:{dash.port}/api/ws?token=dash-secret"
            assert "dash-secret" not in plan.where
            dash.token = "rotated-after-restart"
            again = await client.dialer.plan()
            assert again.url.endswith("token=rotated-after-restart")
            assert dash.paths == ["/api/status", "/"] * 2

    arun(scenario())
