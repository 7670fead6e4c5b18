"""The settings dataclasses: defaults, validation, immutability."""

from __future__ import annotations

import dataclasses
import math

import pytest

from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    Settings,
    SettingsError,
    is_loopback_host,
)


def test_defaults_are_the_documented_ones() -> None:
    settings = Settings()
    assert settings.gateways == ()
    assert settings.staleness_margin_s == 5.0
    assert settings.start_at_login is False
    assert settings.quiet_after_start_s == 10.0
    assert settings.notifications.show_command_text is True
    assert settings.notifications.approve_from_notification is NotificationApproval.ONCE


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": "", "name": "x", "url": "ws://h/"}, "gateway id"),
        ({"id": "has space", "name": "x", "url": "ws://h/"}, "gateway id"),
        ({"id": "a", "name": "  ", "url": "ws://h/"}, "name must not be empty"),
        ({"id": "a", "name": "x", "url": "http://h/"}, "ws://"),
        ({"id": "a", "name": "x", "url": "ws:///path"}, "ws://"),
        ({"id": "a", "name": "x", "url": ""}, "ws://"),
        ({"id": "a", "name": "x", "url": "ws://h/api/ws?token=abc"}, "must not contain a token"),
        ({"id": "a", "name": "x", "url": "ws://h/?x=1&Ticket=abc"}, "must not contain a token"),
        ({"id": "a", "name": "x", "url": "ws://h/api/ws?pty=abc"}, "must not contain a token"),
        ({"id": "a", "name": "x", "url": "ws://h/api/ws?internal=abc"}, "must not contain a token"),
        ({"id": "a", "name": "x", "url": "ws://u:p@h/"}, "user or password"),
        ({"id": "a", "name": "x", "url": "ws://h/", "token_ref": "a b"}, "token_ref"),
    ],
)
def test_gateway_rejects_invalid_values(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        GatewayConfig(**kwargs)  # type: ignore[arg-type]


def test_gateway_without_url_is_fine_for_kinds_that_discover_it() -> None:
    for kind in (GatewayKind.CANONICAL, GatewayKind.OWNED, GatewayKind.DEMO):
        assert GatewayConfig(id="g", name="G", kind=kind).url == ""


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("[::1]", True),
        ("127.8.0.1", True),
        ("example.org", False),
        ("192.168.1.5", False),
    ],
)
def test_only_this_machine_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


@pytest.mark.parametrize("value", [-0.1, math.nan, math.inf, 301.0])
def test_staleness_margin_must_be_a_sane_number_of_seconds(value: float) -> None:
    with pytest.raises(SettingsError, match="staleness_margin_s"):
        Settings(staleness_margin_s=value)


def test_duplicate_gateway_ids_are_rejected() -> None:
    one = GatewayConfig(id="same", name="One", url="ws://127.0.0.1/")
    with pytest.raises(SettingsError, match="duplicate id"):
        Settings(gateways=(one, dataclasses.replace(one, name="Two")))


def test_settings_are_immutable_including_extra_keys() -> None:
    settings = Settings(extra={"future": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.start_at_login = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.extra["future"] = 2  # type: ignore[index]
    assert dict(settings.extra) == {"future": 1}
