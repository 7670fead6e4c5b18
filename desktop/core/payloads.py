"""Typed reads from untrusted JSON objects: a typed value or a neutral default, never a raise."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

JsonObject = Mapping[str, Any]
EMPTY: JsonObject = {}
OBJECT = (dict, Mapping)  # dict first: it is what JSON gives, and the ABC check is slow


def text(obj: JsonObject, key: str, default: str = "") -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else default


def integer(obj: JsonObject, key: str) -> int | None:
    """An integer value (never a boolean, though Python's ``bool`` is an ``int``), or None."""
    value = obj.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def number(obj: JsonObject, key: str) -> float | None:
    """A finite number (int or float, never a boolean), or None."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond float range (valid JSON, e.g. 10**309) is no number here
        return None
    return as_float if math.isfinite(as_float) else None


def flag(obj: JsonObject, key: str) -> bool | None:
    value = obj.get(key)
    return value if isinstance(value, bool) else None


def mapping(obj: JsonObject, key: str) -> JsonObject | None:
    value = obj.get(key)
    return value if isinstance(value, OBJECT) else None


def strings(obj: JsonObject, key: str) -> tuple[str, ...]:
    """The string items of a list value, in order (other items skipped); ``()`` if no list."""
    value = obj.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def objects(obj: JsonObject, key: str) -> list[JsonObject] | None:
    """The object items of a list value (other items skipped), or None when not a list."""
    value = obj.get(key)
    if not isinstance(value, list):
        return None
    return [item for item in value if isinstance(item, OBJECT)]


def wire_id(value: object) -> str | int | None:
    """A JSON-RPC id as the protocol allows it (string or integer), else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def truthy_setting(value: object) -> bool | None:
    """A config value like ``"1"``/``"on"``/``true``/``"0"``/``"off"`` as a boolean, or None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in {"1", "on", "true", "yes"}:
            return True
        if lowered in {"0", "off", "false", "no"}:
            return False
    return None
