"""Settings <-> JSON: round trips, strict types, unknown keys kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.settings.codec import settings_from_json, settings_to_json, unknown_key_paths
from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
    SettingsError,
)

_ids = st.from_regex(r"[A-Za-z0-9._-]{1,12}", fullmatch=True)
_names = st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != "")
_hosts = st.sampled_from(["127.0.0.1", "localhost", "example.org", "[::1]"])
_urls = st.builds(
    "{}://{}:{}/api/ws".format, st.sampled_from(["ws", "wss"]), _hosts, st.integers(1, 65535)
)
_json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
_extra = st.dictionaries(
    st.text(min_size=1, max_size=6).map(lambda s: "x_" + s), _json_leaf, max_size=2
)
_gateway = st.builds(
    GatewayConfig,
    id=_ids,
    name=_names,
    url=_urls,
    token_ref=st.none() | _ids,
    kind=st.sampled_from(GatewayKind),
    allow_insecure_remote=st.booleans(),
    extra=_extra,
)
_settings = st.builds(
    Settings,
    gateways=st.lists(_gateway, max_size=3, unique_by=lambda g: g.id).map(tuple),
    notifications=st.builds(
        NotificationPolicy,
        show_command_text=st.booleans(),
        approve_from_notification=st.sampled_from(NotificationApproval),
        escalate_through_do_not_disturb=st.booleans(),
        extra=_extra,
    ),
    staleness_margin_s=st.floats(0, 300),
    start_at_login=st.booleans(),
    quiet_after_start_s=st.floats(0, 3600),
    follow_all_sessions=st.booleans(),
    extra=_extra,
)


@given(_settings)
def test_every_valid_settings_value_survives_a_json_round_trip(settings: Settings) -> None:
    text = json.dumps(settings_to_json(settings), allow_nan=False)
    assert settings_from_json(json.loads(text)) == settings


def test_written_object_carries_the_schema_version_and_no_token() -> None:
    gateway = GatewayConfig(id="g", name="G", url="ws://127.0.0.1/api/ws", token_ref="g")
    data = settings_to_json(Settings(gateways=(gateway,)))
    assert data["schema_version"] == 1
    assert data["gateways"][0]["token_ref"] == "g"
    assert "token" not in data["gateways"][0]


def test_missing_keys_take_defaults() -> None:
    assert settings_from_json({"schema_version": 1}) == Settings()


def test_a_file_without_the_follow_key_follows_all_sessions() -> None:
    """Files written before the setting existed keep working with no schema bump."""
    assert settings_from_json({"schema_version": 1}).follow_all_sessions is True
    data = settings_to_json(Settings(follow_all_sessions=False))
    assert data["follow_all_sessions"] is False
    assert settings_from_json(data).follow_all_sessions is False


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"start_at_login": 1}, "start_at_login: must be true or false"),
        ({"follow_all_sessions": "yes"}, "follow_all_sessions: must be true or false"),
        ({"staleness_margin_s": "5"}, "staleness_margin_s: must be a number"),
        ({"staleness_margin_s": True}, "staleness_margin_s: must be a number"),
        ({"gateways": {}}, "gateways: must be a list"),
        ({"gateways": ["x"]}, r"gateways\[0\]: must be an object"),
        ({"gateways": [{"name": "n", "url": "ws://h/"}]}, r"gateways\[0\].id: must be a string"),
        (
            {"gateways": [{"id": "a", "name": "n", "url": "ws://h/", "kind": "ftp"}]},
            r"gateways\[0\].kind: must be one of",
        ),
        (
            {"gateways": [{"id": "a", "name": "n", "url": "ws://h/", "token_ref": 3}]},
            r"gateways\[0\].token_ref",
        ),
        ({"gateways": [{"id": "a", "name": "n", "url": "http://h/"}]}, r"gateways\[0\]: gateway"),
        ({"notifications": []}, "notifications: must be an object"),
        (
            {"notifications": {"approve_from_notification": "always"}},
            "notifications.approve_from_notification: must be one of 'once', 'never'",
        ),
    ],
)
def test_wrong_types_are_refused_naming_the_key(data: dict[str, Any], path: str) -> None:
    with pytest.raises(SettingsError, match=path):
        settings_from_json(data)


def test_unknown_keys_at_every_level_are_kept_and_written_back() -> None:
    data = {
        "schema_version": 1,
        "theme": "dark",
        "notifications": {"sound": "bell"},
        "gateways": [{"id": "a", "name": "A", "url": "ws://127.0.0.1/", "colour": "red"}],
    }
    settings = settings_from_json(data)
    assert unknown_key_paths(settings) == ["theme", "notifications.sound", "gateways[0].colour"]
    written = settings_to_json(settings)
    assert written["theme"] == "dark"
    assert written["notifications"]["sound"] == "bell"
    assert written["gateways"][0]["colour"] == "red"
