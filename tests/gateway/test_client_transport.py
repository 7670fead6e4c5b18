"""GatewayClient's transport duties against real loopback servers, with a stub core.

The stub (``stub_core.StubCore``) stands in for the protocol so these tests pin down only
what the client itself owns: states, frame fate, RPC futures, close codes, backoff and
reconnect. The fake-gateway tests cover the same paths with the real core per dialect.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from desktop.core.model import Choice, Dialect
from desktop.gateway import client as client_module
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import ConnectionSettings, ConnectionState, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.gateway.errors import CallTimeoutError, NotSentError, OutcomeUnknownError
from desktop.settings.model import GatewayKind
from tests.gateway.mini_server import MiniGateway
from tests.gateway.recorder import Recorder
from tests.gateway.stub_core import StubCore

FAST = BackoffPolicy(initial=0.01, factor=2.0, max_delay=0.05, jitter=0.0)
GROWING = BackoffPolicy(initial=0.02, factor=2.0, max_delay=1.0, jitter=0.0)
QUICK = ConnectionSettings(
    open_timeout=2.0, handshake_timeout=0.5, ping_interval=None, close_timeout=1.0
)
SECRET = "the-right-token-123"


@pytest.fixture(autouse=True)
def stub_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "GatewayCore", StubCore)


def make_client(
    url: str,
    *,
    token: str | None = None,
    backoff: BackoffPolicy = FAST,
    settings: ConnectionSettings = QUICK,
) -> tuple[GatewayClient, Recorder]:
    recorder = Recorder()
    endpoint = GatewayEndpoint(
        "g1",
        "Test gateway",
        GatewayKind.URL,
        url=url,
        token=TokenSource(TokenKind.INLINE, value=token) if token else None,
    )
    client = GatewayClient(
        endpoint, listener=recorder, backoff=backoff, connection_settings=settings
    )
    return client, recorder


def core_of(client: GatewayClient) -> StubCore:
    core = client.core
    assert isinstance(core, StubCore)
    return core


def test_connect_handshake_call_and_clean_close(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with MiniGateway(token=SECRET) as server:
            client, rec = make_client(server.url.split("?")[0], token=SECRET)
            runner = asyncio.create_task(client.run())
            status = await rec.wait_state(ConnectionState.CONNECTED)
            assert status.dialect is Dialect.A
            assert rec.states[:3] == [
                ConnectionState.CONNECTING,
                ConnectionState.HANDSHAKING,
                ConnectionState.CONNECTED,
            ]
            assert await client.call("session.active_list", {}) == {"echo": "session.active_list"}
            # After the handshake the client also asks for the profile (the approval timeout,
            # tests/gateway/test_approval_timeout.py); its place among the app's calls may vary.
            methods = server.methods(0)
            assert [m for m in methods if m != "config.get"] == [
                "client.capabilities",
                "session.active_list",
            ]
            await client.close()
            await runner
            assert server.close_codes == [1000]
            assert client.status.state is ConnectionState.DISCONNECTED
            assert core_of(client).lost == 1

    arun(scenario())


def test_call_while_disconnected_is_not_sent(arun: Callable[..., Any]) -> None:
    client, _rec = make_client("ws://127.0.0.1:9/api/ws")
    with pytest.raises(NotSentError, match="not sent"):
        arun(client.call("session.list", {}))
    assert core_of(client).written == []


def test_decision_while_disconnected_is_reported_certainly_not_sent(
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        client, _rec = make_client("ws://127.0.0.1:9/api/ws")
        result = client.decide("k1", Choice.ONCE)
        assert result.sent  # the stub queues blindly; the client must still settle the frame
        assert core_of(client).failed == [(1, False)]

    arun(scenario())


def test_unanswered_call_times_out_as_outcome_unknown(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with MiniGateway(silent=frozenset({"slow.method"})) as server:
            client, rec = make_client(server.url)
            runner = asyncio.create_task(client.run())
            await rec.wait_state(ConnectionState.CONNECTED)
            with pytest.raises(CallTimeoutError, match=r"did not answer slow\.method"):
                await client.call("slow.method", {}, timeout=0.2)
            assert "slow.method" in server.methods(0)
            await client.close()
            await runner

    arun(scenario())


def test_drop_while_waiting_is_outcome_unknown_then_reconnects(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        modes = {0: "drop-on:approval.respond"}
        async with MiniGateway(lambda i: modes.get(i, "ok")) as server:
            client, rec = make_client(server.url)
            runner = asyncio.create_task(client.run())
            await rec.wait_state(ConnectionState.CONNECTED)
            with pytest.raises(OutcomeUnknownError, match="outcome is unknown"):
                await client.call("approval.respond", {"session_id": "s", "choice": "once"})
            backoff = await rec.wait_state(ConnectionState.BACKOFF)
            assert backoff.attempt == 1
            assert "closed" in backoff.error or "connection" in backoff.error.lower()
            await rec.wait_state(ConnectionState.CONNECTED, count=2)
            assert core_of(client).epoch == 2
            # Nothing is resent on the new connection: only the handshake.
            assert server.methods(1) == ["client.capabilities"]
            await client.close()
            await runner

    arun(scenario())


def test_refused_static_token_backs_off_with_advice_and_retries_on_request(
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        async with MiniGateway(token=SECRET) as server:
            client, rec = make_client(
                server.url.split("?")[0], token="wrong-token-999", backoff=GROWING
            )
            runner = asyncio.create_task(client.run())
            backoff = await rec.wait_state(ConnectionState.BACKOFF)
            assert "refused the token (HTTP 403)" in backoff.error
            assert "refused 1 time in a row" in backoff.error
            assert "a token held in memory" in backoff.error
            assert "Retrying with backoff" in backoff.error
            assert "wrong-token-999" not in backoff.error
            third = await rec.wait_state(ConnectionState.BACKOFF, count=3)
            assert third.attempt == 3  # the delay keeps growing: no hammering
            assert "refused 3 times in a row" in third.error
            client.reconnect_now()  # skips the wait at once
            await server.wait_for(lambda: server.rejected >= 4)
            assert rec.count(ConnectionState.FAILED) == 0
            await client.close()
            await runner

    arun(scenario())


@pytest.mark.parametrize(
    ("code", "text"),
    [(4401, "refused the token (close code 4401)"), (4403, "close code 4403")],
)
def test_refusing_close_codes_after_accept_retry_with_growing_backoff(
    arun: Callable[..., Any], code: int, text: str
) -> None:
    async def scenario() -> None:
        async with MiniGateway(lambda _i: f"close:{code}") as server:
            client, rec = make_client(server.url, backoff=GROWING)
            runner = asyncio.create_task(client.run())
            first = await rec.wait_state(ConnectionState.BACKOFF)
            assert text in first.error
            assert "retrying with backoff" in first.error.lower()
            second = await rec.wait_state(ConnectionState.BACKOFF, count=2)
            assert second.attempt == 2  # not reset by the accepted socket: no retry storm
            assert server.accepted == 2
            assert rec.count(ConnectionState.FAILED) == 0
            await client.close()
            await runner

    arun(scenario())


def test_missing_gateway_ready_times_out_then_recovers(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        modes = {0: "no-ready"}
        async with MiniGateway(lambda i: modes.get(i, "ok")) as server:
            client, rec = make_client(server.url)
            runner = asyncio.create_task(client.run())
            backoff = await rec.wait_state(ConnectionState.BACKOFF)
            assert "no gateway.ready within 0.5s" in backoff.error
            await rec.wait_state(ConnectionState.CONNECTED)
            assert server.accepted == 2
            await client.close()
            await runner

    arun(scenario())


def test_nothing_listening_backs_off_with_growing_attempts(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        server = await MiniGateway().start()
        port = server.port
        await server.stop()
        client, rec = make_client(f"ws://127.0.0.1:{port}/api/ws")
        runner = asyncio.create_task(client.run())
        third = await rec.wait_state(ConnectionState.BACKOFF, count=3)
        assert third.attempt == 3
        assert "Nothing is listening" in third.error
        restarted = await MiniGateway().start(port)
        try:
            await rec.wait_state(ConnectionState.CONNECTED)
            assert client.status.attempt == 0
        finally:
            await client.close()
            await runner
            await restarted.stop()

    arun(scenario())


def test_reconnect_now_skips_a_long_backoff(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        slow = BackoffPolicy(initial=60.0, max_delay=60.0, jitter=0.0)
        modes = {0: "no-ready"}
        async with MiniGateway(lambda i: modes.get(i, "ok")) as server:
            client, rec = make_client(server.url, backoff=slow)
            runner = asyncio.create_task(client.run())
            await rec.wait_state(ConnectionState.BACKOFF)
            client.reconnect_now()
            await rec.wait_state(ConnectionState.CONNECTED, timeout=2.0)
            await client.close()
            await runner

    arun(scenario())


def test_core_deadline_is_scheduled_without_polling(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with MiniGateway() as server:
            client, rec = make_client(server.url)
            runner = asyncio.create_task(client.run())
            await rec.wait_state(ConnectionState.CONNECTED)
            core = core_of(client)
            core.deadline = time.monotonic() + 0.05
            await client.call("ping", {})  # any core input re-arms the timer
            assert core.ticks == 0
            await asyncio.sleep(0.2)
            assert core.ticks == 1
            await client.close()
            await runner

    arun(scenario())


def test_gateway_restart_reconnect_time(arun: Callable[..., Any]) -> None:
    """Measure: gateway restarted on the same port → CONNECTED again (fast backoff)."""

    async def scenario() -> float:
        server = await MiniGateway().start()
        client, rec = make_client(server.url)
        runner = asyncio.create_task(client.run())
        try:
            await rec.wait_state(ConnectionState.CONNECTED)
            port = server.port
            await server.stop()
            await rec.wait_state(ConnectionState.BACKOFF)
            started = time.monotonic()
            server = await MiniGateway().start(port)
            await rec.wait_state(ConnectionState.CONNECTED, count=2)
            return time.monotonic() - started
        finally:
            await client.close()
            await runner
            await server.stop()

    took = arun(scenario())
    assert took < 1.0


@pytest.mark.parametrize(
    "location",
    [
        "ws://203.0.113.9:9119/api/ws?token=" + SECRET,  # plain ws:// off loopback
        "ws://127.0.0.2:{port}/api/ws",  # another (loopback) host
        "ws://127.0.0.1:1/api/ws",  # another port
        "http://127.0.0.1:{port}/api/ws",  # not a WebSocket URL: retried, not blamed on Settings
    ],
)
def test_a_redirect_off_the_dialled_origin_is_refused(
    arun: Callable[..., Any], location: str
) -> None:
    async def scenario() -> None:
        async with MiniGateway(redirects={"/old": location}) as server:
            client, rec = make_client(f"ws://127.0.0.1:{server.port}/old")
            runner = asyncio.create_task(client.run())
            backoff = await rec.wait_state(ConnectionState.BACKOFF)
            assert "redirected to" in backoff.error
            assert "follows redirects only within the same scheme, host and port" in backoff.error
            assert SECRET not in backoff.error
            assert server.accepted == 0
            await client.close()
            await runner

    arun(scenario())


def test_a_redirect_to_another_path_of_the_same_origin_is_followed(
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        async with MiniGateway(redirects={"/old": "ws://127.0.0.1:{port}/api/ws"}) as server:
            client, rec = make_client(f"ws://127.0.0.1:{server.port}/old")
            runner = asyncio.create_task(client.run())
            await rec.wait_state(ConnectionState.CONNECTED)
            assert server.accepted == 1
            await client.close()
            await runner

    arun(scenario())
