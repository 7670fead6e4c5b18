"""Plain ``ws://`` carries the token in clear, so it may only go to a loopback host: anything
else is refused before a socket is opened, unless the person explicitly allowed it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from desktop.gateway import dialer as dialer_module
from desktop.gateway.endpoints import GatewayEndpoint, normalise_ws_url
from desktop.gateway.errors import ConfigError
from desktop.settings.model import GatewayKind
from tests.safety.canary import CANARY, Capture, every_text_of, leaks
from tests.safety.e2e.rig import client_until, gave_up

REMOTE = [
    "ws://example.org:9119/api/ws",
    "ws://10.0.0.7:9119/api/ws",
    "http://192.168.1.2:9119",
    "ws://[2001:db8::1]:9119/api/ws",
    "ws://0.0.0.0:9119/api/ws",
    "ws://localhost.evil.org/api/ws",
    "ws://127.0.0.1.nip.io:9119/api/ws",
    "ws://[::ffff:10.0.0.1]:9119/api/ws",
]
LOOPBACK = [
    "ws://127.0.0.1:9119/api/ws",
    "ws://127.5.6.7:1/api/ws",
    "ws://localhost:9119",
    "ws://LOCALHOST.:9119/api/ws",
    "ws://[::1]:9119/api/ws",
    "http://127.0.0.1:9119",
]


@pytest.mark.parametrize("url", REMOTE)
def test_plain_ws_to_a_remote_host_is_refused_unless_allowed(url: str) -> None:
    with pytest.raises(ConfigError) as refused:
        normalise_ws_url(f"{url}?token={CANARY}")
    assert not leaks(str(refused.value))
    assert not leaks(repr(refused.value))
    assert "ws://" in str(refused.value)
    assert normalise_ws_url(url, allow_insecure_remote=True).startswith("ws://")
    assert normalise_ws_url(
        url.replace("ws://", "wss://").replace("http://", "https://")
    ).startswith("wss://")


@pytest.mark.parametrize("url", LOOPBACK)
def test_plain_ws_to_loopback_is_allowed(url: str) -> None:
    assert normalise_ws_url(url).startswith("ws://")


def test_the_client_refuses_a_remote_ws_url_without_opening_a_socket(
    capture: Capture,
    monkeypatch: pytest.MonkeyPatch,
    aloop: asyncio.AbstractEventLoop,
    arun: Callable[..., Any],
) -> None:
    dialled: list[str] = []

    async def no_network(url: str, **_: Any) -> Any:
        dialled.append(url)
        raise AssertionError("the client tried to open a socket to a remote host")

    monkeypatch.setattr(dialer_module, "SameOriginConnect", no_network)
    endpoint = GatewayEndpoint(
        "remote", "Remote", GatewayKind.URL, url=f"ws://203.0.113.9:9119/api/ws?token={CANARY}"
    )

    async def scenario() -> None:
        client = await client_until(endpoint, gave_up)
        assert "non-loopback" in client.status.error
        assert not leaks(every_text_of(client, []))

    arun(scenario(), timeout=10)
    assert dialled == []
    assert not leaks(capture.app_output())


def test_an_explicitly_allowed_remote_ws_url_is_dialled(
    monkeypatch: pytest.MonkeyPatch, aloop: asyncio.AbstractEventLoop, arun: Callable[..., Any]
) -> None:
    """The opt-in works (and the stub proves the refusal above is not an accident)."""
    dialled: list[str] = []

    async def no_network(url: str, **_: Any) -> Any:
        dialled.append(url)
        raise ConnectionRefusedError("stubbed: no network in tests")

    monkeypatch.setattr(dialer_module, "SameOriginConnect", no_network)
    endpoint = GatewayEndpoint(
        "remote",
        "Remote",
        GatewayKind.URL,
        url="ws://203.0.113.9:9119/api/ws",
        allow_insecure_remote=True,
    )

    async def scenario() -> None:
        await client_until(endpoint, lambda _client: bool(dialled), poll=0.05)

    arun(scenario(), timeout=10)
    assert dialled
    assert dialled[0].startswith("ws://203.0.113.9")
