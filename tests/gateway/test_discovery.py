from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.gateway import canonical
from desktop.gateway.discovery import URL_ENV, discover
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource, load_token
from desktop.settings.model import GatewayConfig, GatewayKind, Settings
from tests.gateway.control_server import FakeControlSocket

SECRET = "envtoken-abcdef"


def _none(_name: str) -> str | None:
    return None


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hgd", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_env_url_wins_and_its_token_is_never_echoed(home: Path, arun: Callable[..., Any]) -> None:
    env = {URL_ENV: f"ws://127.0.0.1:1234/api/ws?token={SECRET}", "HERMES_HOME": str(home)}
    result = arun(discover(environ=env, which=lambda _n: "/usr/bin/hermes"))
    assert [e.kind for e in result.endpoints] == [GatewayKind.URL]
    assert result.endpoints[0].url.endswith(SECRET)
    assert SECRET not in " ".join(result.tried) + repr(result.endpoints[0])


def test_invalid_env_url_is_reported_not_dialled(home: Path, arun: Callable[..., Any]) -> None:
    result = arun(discover(environ={URL_ENV: "ws://203.0.113.9:1/api/ws"}, which=_none))
    assert result.endpoints == ()
    assert "wss://" in result.tried[0]


def test_configured_gateways_come_before_discovery(home: Path, arun: Callable[..., Any]) -> None:
    mine = (
        GatewayConfig("a", "A", url="ws://127.0.0.1:1", token_ref="a-token"),
        GatewayConfig("demo", "Demo", kind=GatewayKind.DEMO),  # the app adds the demo itself
        GatewayConfig("b", "B", kind=GatewayKind.OWNED),
    )
    result = arun(
        discover(
            settings=lambda: Settings(gateways=mine),
            token_lookup={"a-token": SECRET}.get,
            environ={"HERMES_HOME": str(home)},
            which=_none,
        )
    )
    assert [(e.gateway_id, e.name, e.kind) for e in result.endpoints] == [
        ("a", "A", GatewayKind.URL),
        ("b", "B", GatewayKind.OWNED),
    ]
    token = result.endpoints[0].token
    assert token is not None
    assert load_token(token) == SECRET  # read through the lookup at the dial
    assert result.tried == ("configured gateways: A, B",)


def test_gateway_option_comes_first_and_settings_are_not_read(
    home: Path, arun: Callable[..., Any]
) -> None:
    def settings() -> Settings:
        raise AssertionError("--gateway must not read the settings")

    token = TokenSource(TokenKind.ENV, "X")
    result = arun(
        discover(
            gateway="ws://127.0.0.1:1/api/ws",
            gateway_token=token,
            gateway_name="Mine",
            settings=settings,
            environ={URL_ENV: "ws://127.0.0.1:2/api/ws"},
            which=_none,
        )
    )
    assert result.endpoints == (
        GatewayEndpoint("cli", "Mine", GatewayKind.URL, url="ws://127.0.0.1:1/api/ws", token=token),
    )
    assert result.tried == (
        "using --gateway ws://127.0.0.1:1/api/ws (token from environment variable X)",
    )


def test_canonical_socket_before_owning_a_backend(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        sock = str(home / canonical.SOCKET_NAME)
        async with FakeControlSocket(sock, home=str(home), api_origin="http://127.0.0.1:9"):
            result = await discover(
                environ={"HERMES_HOME": str(home)}, which=lambda _n: "/usr/bin/hermes"
            )
            assert [e.kind for e in result.endpoints] == [GatewayKind.CANONICAL]
            assert result.endpoints[0].hermes_home == str(home)

    arun(scenario())


def test_owned_backend_when_hermes_is_on_path(home: Path, arun: Callable[..., Any]) -> None:
    result = arun(discover(environ={"HERMES_HOME": str(home)}, which=lambda _n: "/opt/hermes"))
    assert [e.kind for e in result.endpoints] == [GatewayKind.OWNED]
    assert result.endpoints[0].hermes_executable == "/opt/hermes"
    assert any("no control socket" in line for line in result.tried)


def test_nothing_found_lists_every_step(home: Path, arun: Callable[..., Any]) -> None:
    result = arun(discover(environ={"HERMES_HOME": str(home)}, which=_none))
    assert result.endpoints == ()
    assert len(result.tried) == 5
    assert result.tried[-1].startswith("nothing found")
    assert any("opt in" in line for line in result.tried)  # a dashboard is never probed
