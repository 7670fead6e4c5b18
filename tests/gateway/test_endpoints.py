from __future__ import annotations

import pytest

from desktop.gateway.endpoints import (
    GatewayEndpoint,
    TokenKind,
    TokenSource,
    normalise_ws_url,
    redact_url,
)
from desktop.gateway.errors import ConfigError
from desktop.settings.model import GatewayKind, is_loopback_host

SECRET = "s3cr3t-token-value"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ws://127.0.0.1:9119/api/ws", "ws://127.0.0.1:9119/api/ws"),
        ("ws://localhost:9119", "ws://localhost:9119/api/ws"),
        ("http://127.0.0.1:9119/", "ws://127.0.0.1:9119/api/ws"),
        ("https://hermes.example.org", "wss://hermes.example.org/api/ws"),
        ("ws://[::1]:80/api/ws?token=x", "ws://[::1]:80/api/ws?token=x"),
    ],
)
def test_urls_are_normalised(given: str, expected: str) -> None:
    assert normalise_ws_url(given) == expected


def test_plain_ws_to_a_remote_host_is_refused_unless_allowed() -> None:
    with pytest.raises(ConfigError, match=r"wss://") as info:
        normalise_ws_url(f"ws://10.1.2.3:9119/api/ws?token={SECRET}")
    assert SECRET not in str(info.value)
    allowed = normalise_ws_url("ws://10.1.2.3:9119/api/ws", allow_insecure_remote=True)
    assert allowed.startswith("ws://10.1.2.3")


@pytest.mark.parametrize("bad", ["ftp://127.0.0.1/", "ws://", "127.0.0.1:9119", "ws://h:port/"])
def test_unusable_urls_say_how_to_fix_them(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"ws://|not valid"):
        normalise_ws_url(bad)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LocalHost.", True),
        ("10.0.0.1", False),
        ("example.org", False),
        ("0.0.0.0", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_repr_never_shows_a_token() -> None:
    endpoint = GatewayEndpoint(
        "g1",
        "Work",
        GatewayKind.URL,
        url=f"ws://127.0.0.1:1/api/ws?token={SECRET}",
        token=TokenSource(TokenKind.INLINE, value=SECRET),
    )
    text = repr(endpoint) + str(endpoint.token) + endpoint.display_url
    assert SECRET not in text
    assert "g1" in text
    assert "token=***" in endpoint.display_url


def test_token_source_descriptions_name_the_place_not_the_value() -> None:
    assert "HERMES_TOKEN" in TokenSource(TokenKind.ENV, "HERMES_TOKEN").describe()
    assert "/x/tok" in TokenSource(TokenKind.FILE, "/x/tok").describe()
    assert "work" in TokenSource(TokenKind.KEYRING, "work").describe()
    assert SECRET not in TokenSource(TokenKind.INLINE, value=SECRET).describe()


def test_redact_url_masks_every_credential_kind() -> None:
    url = f"wss://user:{SECRET}@h:1/api/ws?ticket={SECRET}&pty={SECRET}&keep=1"
    redacted = redact_url(url)
    assert SECRET not in redacted
    assert "keep=1" in redacted


def test_settings_gateway_maps_to_an_endpoint_with_a_store_token() -> None:
    from desktop.gateway.endpoints import endpoint_from_config, load_token
    from desktop.settings.model import GatewayConfig, GatewayKind

    config = GatewayConfig(
        id="work",
        name="Work",
        url="ws://127.0.0.1:9119/api/ws",
        token_ref="work",
        kind=GatewayKind.URL,
    )
    endpoint = endpoint_from_config(config, {"work": SECRET}.get)
    assert endpoint.kind is GatewayKind.URL
    assert endpoint.token is not None
    assert load_token(endpoint.token) == SECRET
    assert SECRET not in repr(endpoint)
    missing = endpoint_from_config(config, {}.get)
    assert missing.token is not None
    with pytest.raises(ConfigError, match="Enter it in Settings"):
        load_token(missing.token)
