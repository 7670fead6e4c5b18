"""Settings <-> JSON objects, with strict types and errors that name the key.

Why strict (``1`` is not a bool): a hand-edited file the app "understood" differently from what
the person meant is worse than one it refuses; the error names the key path
(``gateways[1].url``). Missing keys take their defaults; unknown keys land in ``extra``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
    SettingsError,
)

SCHEMA_VERSION = 1  # bump it (and add a migration) when a key changes meaning

_E = TypeVar("_E", bound=enum.Enum)


def _known_keys(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name != "extra")


_GATEWAY_KEYS = _known_keys(GatewayConfig)
_POLICY_KEYS = _known_keys(NotificationPolicy)
_TOP_KEYS = ("schema_version", *_known_keys(Settings))


def settings_to_json(settings: Settings) -> dict[str, Any]:
    """The JSON object for ``settings`` (known keys first, then the kept unknown ones)."""
    return {"schema_version": SCHEMA_VERSION, **_to_json(settings)}


def _to_json(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_to_json(item) for item in value]
    if isinstance(value, Settings | GatewayConfig | NotificationPolicy):
        known = {key: _to_json(getattr(value, key)) for key in _known_keys(type(value))}
        return {**known, **value.extra}
    return value


def settings_from_json(data: Mapping[str, Any]) -> Settings:
    """Parse a current-version object (SettingsError names the bad key)."""
    defaults = Settings()
    gateways_raw = data.get("gateways", [])
    if not isinstance(gateways_raw, list):
        raise SettingsError("gateways: must be a list")
    gateways = tuple(_gateway_from_json(f"gateways[{i}]", g) for i, g in enumerate(gateways_raw))
    policy = _policy_from_json(data.get("notifications", {}))
    return Settings(
        gateways=gateways,
        notifications=policy,
        staleness_margin_s=_number(data, "staleness_margin_s", defaults.staleness_margin_s, ""),
        start_at_login=_bool(data, "start_at_login", defaults.start_at_login, ""),
        quiet_after_start_s=_number(data, "quiet_after_start_s", defaults.quiet_after_start_s, ""),
        follow_all_sessions=_bool(data, "follow_all_sessions", defaults.follow_all_sessions, ""),
        extra=_extra(data, _TOP_KEYS),
    )


def unknown_key_paths(settings: Settings) -> list[str]:
    """Dotted paths of every kept unknown key, for the "kept unknown keys" log line."""
    paths = list(settings.extra)
    paths += [f"notifications.{key}" for key in settings.notifications.extra]
    for index, gateway in enumerate(settings.gateways):
        paths += [f"gateways[{index}].{key}" for key in gateway.extra]
    return paths


def _gateway_from_json(where: str, raw: object) -> GatewayConfig:
    if not isinstance(raw, Mapping):
        raise SettingsError(f"{where}: must be an object")
    token_ref = raw.get("token_ref")
    if token_ref is not None and not isinstance(token_ref, str):
        raise SettingsError(f"{where}.token_ref: must be a string or null")
    gateway_id = _str(raw, "id", None, where)
    name = _str(raw, "name", None, where)
    url = _str(raw, "url", "", where)
    kind = _enum(raw, "kind", GatewayKind, GatewayKind.URL, where)
    insecure = _bool(raw, "allow_insecure_remote", False, where)
    try:  # type checks above name the key; the checks below are GatewayConfig's own
        return GatewayConfig(
            gateway_id, name, url, token_ref, kind, insecure, extra=_extra(raw, _GATEWAY_KEYS)
        )
    except SettingsError as exc:
        raise SettingsError(f"{where}: {exc}") from None


def _policy_from_json(raw: object) -> NotificationPolicy:
    if not isinstance(raw, Mapping):
        raise SettingsError("notifications: must be an object")
    where = "notifications"
    return NotificationPolicy(
        show_command_text=_bool(raw, "show_command_text", True, where),
        escalate_through_do_not_disturb=_bool(raw, "escalate_through_do_not_disturb", True, where),
        approve_from_notification=_enum(
            raw, "approve_from_notification", NotificationApproval, NotificationApproval.ONCE, where
        ),
        extra=_extra(raw, _POLICY_KEYS),
    )


def _extra(raw: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {key: value for key, value in raw.items() if key not in known}


def _bad(where: str, key: str, must: str) -> SettingsError:
    return SettingsError(f"{where}.{key}: must be {must}" if where else f"{key}: must be {must}")


def _str(raw: Mapping[str, Any], key: str, default: str | None, where: str) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str):
        raise _bad(where, key, "a string")
    return value


def _bool(raw: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise _bad(where, key, "true or false")
    return value


def _number(raw: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(where, key, "a number")
    return float(value)


def _enum(raw: Mapping[str, Any], key: str, kind: type[_E], default: _E, where: str) -> _E:
    try:
        return kind(raw.get(key, default.value))
    except ValueError:
        raise _bad(where, key, "one of " + ", ".join(repr(m.value) for m in kind)) from None
