"""Settings <-> JSON objects, strict about types (``1`` is not a bool), errors naming the key.

A hand-edited file read differently from what the person meant is worse than one refused.
Missing keys take their defaults; unknown keys land in ``extra``.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from desktop.settings.model import GatewayConfig, NotificationPolicy, Settings, SettingsError

SCHEMA_VERSION = 1  # bump it (and add a migration) when a key changes meaning

_D = TypeVar("_D")


def _known_keys(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name != "extra")


def settings_to_json(settings: Settings) -> dict[str, Any]:
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
    return _from_json(Settings, {k: v for k, v in data.items() if k != "schema_version"}, "")


def unknown_key_paths(settings: Settings) -> list[str]:
    paths = list(settings.extra)
    paths += [f"notifications.{key}" for key in settings.notifications.extra]
    for index, gateway in enumerate(settings.gateways):
        paths += [f"gateways[{index}].{key}" for key in gateway.extra]
    return paths


def _from_json(cls: type[_D], raw: object, where: str) -> _D:
    if not isinstance(raw, Mapping):
        raise SettingsError(f"{where}: must be an object")
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        required = f.default is MISSING and f.default_factory is MISSING
        if f.name != "extra" and (f.name in raw or required):
            path = f"{where}.{f.name}" if where else f.name
            values[f.name] = _value(hints[f.name], raw.get(f.name), path)
    values["extra"] = {key: value for key, value in raw.items() if key not in values}
    try:  # type checks above name the key; the checks below are the dataclass's own
        return cls(**values)
    except SettingsError as exc:
        if not where:
            raise
        raise SettingsError(f"{where}: {exc}") from None


def _value(kind: Any, value: object, path: str) -> Any:
    if is_dataclass(kind):
        return _from_json(kind, value, path)  # type: ignore[arg-type]
    if get_origin(kind) is tuple:
        if not isinstance(value, list):
            raise SettingsError(f"{path}: must be a list")
        item = get_args(kind)[0]
        return tuple(_value(item, v, f"{path}[{i}]") for i, v in enumerate(value))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except ValueError:
            listed = ", ".join(repr(m.value) for m in kind)
            raise SettingsError(f"{path}: must be one of {listed}") from None
    if kind is bool and not isinstance(value, bool):
        raise SettingsError(f"{path}: must be true or false")
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SettingsError(f"{path}: must be a number")
        return float(value)
    if kind is str and not isinstance(value, str):
        raise SettingsError(f"{path}: must be a string")
    if isinstance(kind, types.UnionType) and not isinstance(value, str | None):
        raise SettingsError(f"{path}: must be a string or null")  # str | None
    return value
