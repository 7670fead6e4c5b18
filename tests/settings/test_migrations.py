"""Schema migrations as pure functions on JSON objects."""

from __future__ import annotations

import pytest

from desktop.settings.codec import settings_from_json
from desktop.settings.migrations import migrate, split_secret_query
from desktop.settings.model import Settings, SettingsError

CANARY = "canary-TOKEN-5f1e"


def test_v0_single_gateway_becomes_a_v1_gateway_list_and_the_token_leaves_the_file() -> None:
    v0 = {
        "gateway_url": f"ws://127.0.0.1:9119/api/ws?token={CANARY}&x=1",
        "gateway_name": "Laptop",
        "notify_show_command": False,
        "notify_buttons": False,
        "stale_margin": 7,
        "autostart": True,
        "window_pos": [1, 2],
    }
    result = migrate(v0, 0)
    assert result.secrets == {"default": CANARY}
    assert CANARY not in repr(result.data)
    settings = settings_from_json(result.data)
    (gateway,) = settings.gateways
    assert (gateway.id, gateway.name, gateway.token_ref) == ("default", "Laptop", "default")
    assert gateway.url == "ws://127.0.0.1:9119/api/ws?x=1"
    assert settings.notifications.show_command_text is False
    assert settings.notifications.approve_from_notification.value == "never"
    assert settings.staleness_margin_s == 7.0
    assert settings.start_at_login is True
    assert dict(settings.extra) == {"window_pos": [1, 2]}  # unknown v0 keys are kept


def test_v0_gateway_token_key_wins_over_a_token_in_the_url() -> None:
    result = migrate({"gateway_url": "ws://h/?token=old", "gateway_token": CANARY}, 0)
    assert result.secrets == {"default": CANARY}
    assert result.data["gateways"][0]["url"] == "ws://h/"


def test_v0_without_a_gateway_or_token_migrates_to_defaults() -> None:
    result = migrate({}, 0)
    assert result.secrets == {}
    assert settings_from_json(result.data) == Settings()


def test_v0_with_a_gateway_but_no_token_gets_no_token_ref() -> None:
    result = migrate({"gateway_url": "ws://127.0.0.1/api/ws"}, 0)
    assert result.data["gateways"][0]["token_ref"] is None
    assert result.secrets == {}


def test_migration_moves_values_and_the_parser_judges_them() -> None:
    result = migrate({"autostart": "yes"}, 0)
    with pytest.raises(SettingsError, match="start_at_login"):
        settings_from_json(result.data)


def test_negative_version_is_refused() -> None:
    with pytest.raises(SettingsError, match="not a version"):
        migrate({}, -1)


@pytest.mark.parametrize(
    ("url", "clean", "token"),
    [
        ("ws://h/api/ws?token=abc", "ws://h/api/ws", "abc"),
        ("ws://h/api/ws?a=1&TICKET=t&b=2", "ws://h/api/ws?a=1&b=2", "t"),
        ("ws://h/api/ws?a=1", "ws://h/api/ws?a=1", None),
        ("ws://h/api/ws?token=", "ws://h/api/ws", None),
    ],
)
def test_split_secret_query(url: str, clean: str, token: str | None) -> None:
    assert split_secret_query(url) == (clean, token)
