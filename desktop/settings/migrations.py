"""Upgrades of older settings files: v0 held its token in plain text, so it goes to the store.

Pure JSON in, JSON out; the current parser judges the values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.logsetup import SECRET_QUERY_KEYS
from desktop.settings.model import SettingsError


@dataclass(frozen=True)
class Migrated:
    """A migrated JSON object, plus secrets (token_ref -> token) to move into the TokenStore."""

    data: dict[str, Any]
    secrets: dict[str, str] = field(default_factory=dict)


def split_secret_query(url: str) -> tuple[str, str | None]:
    """``url`` without credential query parameters, and the first one's value (for the store)."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secrets = [value for key, value in pairs if key.lower() in SECRET_QUERY_KEYS and value]
    kept = [(key, value) for key, value in pairs if key.lower() not in SECRET_QUERY_KEYS]
    if len(kept) == len(pairs):
        return url, None
    clean = urlunsplit(parts._replace(query=urlencode(kept)))
    return clean, (secrets[0] if secrets else None)


_V0_KEYS = (
    "gateway_url",
    "gateway_name",
    "gateway_token",
    "notify_show_command",
    "notify_buttons",
    "stale_margin",
    "autostart",
)


def migrate(old: dict[str, Any], from_version: int) -> Migrated:
    """``old`` (older than the current schema: v0 is the only one) upgraded to the current one."""
    if from_version < 0:
        raise SettingsError(f"schema_version: {from_version} is not a version")
    new: dict[str, Any] = {key: value for key, value in old.items() if key not in _V0_KEYS}
    new["schema_version"] = 1
    secrets: dict[str, str] = {}
    url = old.get("gateway_url")
    if isinstance(url, str) and url:
        clean_url, url_token = split_secret_query(url)
        token = old.get("gateway_token") or url_token
        gateway: dict[str, Any] = {
            "id": "default",
            "name": old.get("gateway_name") or "Hermes",
            "url": clean_url,
            "token_ref": None,
            "kind": "url",
            "allow_insecure_remote": False,
        }
        if isinstance(token, str) and token:
            secrets["default"] = token
            gateway["token_ref"] = "default"
        new["gateways"] = [gateway]
    else:
        new["gateways"] = []
    notifications: dict[str, Any] = {}
    if "notify_show_command" in old:
        notifications["show_command_text"] = old["notify_show_command"]
    if "notify_buttons" in old:
        buttons = old["notify_buttons"]
        notifications["approve_from_notification"] = (
            ("once" if buttons else "never") if isinstance(buttons, bool) else buttons
        )
    new["notifications"] = notifications
    if "stale_margin" in old:
        new["staleness_margin_s"] = old["stale_margin"]
    if "autostart" in old:
        new["start_at_login"] = old["autostart"]
    return Migrated(new, secrets)
