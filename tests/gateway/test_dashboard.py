from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from desktop.gateway.dashboard import http_get, probe_dashboard
from desktop.gateway.errors import ConnectError
from tests.gateway.http_server import FakeDashboard


@pytest.mark.parametrize("chunked", [False, True])
def test_probe_checks_the_status_and_scrapes_the_token(
    arun: Callable[..., Any], chunked: bool
) -> None:
    async def scenario() -> None:
        async with FakeDashboard(token="dash-tok", chunked=chunked) as dash:
            url = await probe_dashboard("127.0.0.1", dash.port)
            assert parse_qs(urlsplit(url).query)["token"] == ["dash-tok"]
            assert url.startswith(f"ws://127.0.0.1:{dash.port}/api/ws?")
            assert dash.paths == ["/api/status", "/"]
            status, body = await http_get("127.0.0.1", dash.port, "/api/status")
            assert (status, json.loads(body)["version"]) == (200, "0.19.0")

    arun(scenario())


def test_gated_dashboard_without_a_token_is_fatal(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with FakeDashboard(token=None) as dash:
            with pytest.raises(ConnectError, match="does not expose its session token") as info:
                await probe_dashboard("127.0.0.1", dash.port)
            assert info.value.fatal

    arun(scenario())


def test_nothing_listening_says_how_to_start_one(arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with FakeDashboard(token="x") as dash:
            port = dash.port
        with pytest.raises(ConnectError, match="hermes dashboard") as info:
            await probe_dashboard("127.0.0.1", port)
        assert not info.value.fatal

    arun(scenario())


def test_http_get_refuses_remote_hosts(arun: Callable[..., Any]) -> None:
    with pytest.raises(ConnectError, match="non-loopback"):
        arun(http_get("192.0.2.1", 80, "/api/status"))
