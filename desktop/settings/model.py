"""The settings as frozen, validated values: every reader gets the same typed snapshot.

Unknown keys stay in ``extra`` and are written back, so an older version never destroys a newer
one's settings. Tokens live in the ``TokenStore``, never in a URL here.
"""

from __future__ import annotations

import enum
import ipaddress
import math
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from desktop.logsetup import SECRET_QUERY_KEYS

_ID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
_NO_EXTRA: Mapping[str, Any] = types.MappingProxyType({})


class SettingsError(ValueError):
    """A settings value (or file) is invalid; the message names the offending key."""


class GatewayKind(enum.Enum):
    URL = "url"  # dial ``url`` (ws/wss), token from the TokenStore when ``token_ref`` is set
    CANONICAL = "canonical"  # discover the canonical gateway (control socket + one-time ticket)
    OWNED = "owned"  # start ``hermes serve`` on loopback, mint a fresh token each start
    DASHBOARD = "dashboard"  # attach to a running loopback ``hermes dashboard``
    DEMO = "demo"  # the built-in demo gateway (URL and inline token supplied by the app)


class NotificationApproval(enum.Enum):
    """What a notification may decide: never more than "once" (too easy to give by accident)."""

    ONCE = "once"
    NEVER = "never"


def _frozen_extra(extra: Mapping[str, Any]) -> Mapping[str, Any]:
    return types.MappingProxyType(dict(extra)) if extra else _NO_EXTRA


def is_loopback_host(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 (no name is resolved: any other is remote)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    id: str  # letters, digits, ``._-``
    name: str  # what the menus show
    url: str = ""  # ws:// or wss://; required for GatewayKind.URL only
    token_ref: str | None = None  # its token's TokenStore key (keyring username)
    kind: GatewayKind = GatewayKind.URL
    allow_insecure_remote: bool = False  # plain ws:// off this machine: the token in clear
    extra: Mapping[str, Any] = field(default_factory=lambda: _NO_EXTRA, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", _frozen_extra(self.extra))
        if not _ID_PATTERN.fullmatch(self.id):
            raise SettingsError(f"gateway id {self.id!r}: use 1-64 letters, digits, '.', '_', '-'")
        if not self.name.strip():
            raise SettingsError(f"gateway {self.id!r}: name must not be empty")
        if self.token_ref is not None and not _ID_PATTERN.fullmatch(self.token_ref):
            raise SettingsError(f"gateway {self.id!r}: token_ref {self.token_ref!r} is invalid")
        if self.url or self.kind is GatewayKind.URL:
            _check_url(self.id, self.url)


def _check_url(gateway_id: str, url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise SettingsError(f"gateway {gateway_id!r}: url must be ws://host/... or wss://host/...")
    if parts.username or parts.password:
        raise SettingsError(f"gateway {gateway_id!r}: url must not contain a user or password")
    if any(key.lower() in SECRET_QUERY_KEYS for key, _ in parse_qsl(parts.query)):
        raise SettingsError(
            f"gateway {gateway_id!r}: url must not contain a token; store it in the token field"
        )


@dataclass(frozen=True, slots=True)
class NotificationPolicy:
    """What desktop notifications may show and do (they can appear on a lock screen)."""

    show_command_text: bool = True
    approve_from_notification: NotificationApproval = NotificationApproval.ONCE
    # The last-30-s reminder goes out as critical, which do-not-disturb lets through.
    escalate_through_do_not_disturb: bool = True
    extra: Mapping[str, Any] = field(default_factory=lambda: _NO_EXTRA, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", _frozen_extra(self.extra))


@dataclass(frozen=True, slots=True)
class Settings:
    gateways: tuple[GatewayConfig, ...] = ()  # in menu order; ids are unique
    notifications: NotificationPolicy = NotificationPolicy()
    staleness_margin_s: float = 5.0  # refuse to answer this close to an approval's timeout
    start_at_login: bool = False
    quiet_after_start_s: float = 10.0  # no notifications at first: a backlog must not flood
    # Follow every live session, or only the tray's own (``session_follower.follows_others``).
    follow_all_sessions: bool = True
    extra: Mapping[str, Any] = field(default_factory=lambda: _NO_EXTRA, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", _frozen_extra(self.extra))
        object.__setattr__(self, "gateways", tuple(self.gateways))
        _check_seconds("staleness_margin_s", self.staleness_margin_s, 300.0)
        _check_seconds("quiet_after_start_s", self.quiet_after_start_s, 3600.0)
        ids = [gateway.id for gateway in self.gateways]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise SettingsError(f"gateways: duplicate id(s) {', '.join(duplicates)}")

    @property
    def connectable(self) -> tuple[GatewayConfig, ...]:
        """The configured gateways the tray dials: the demo is the app's own, started apart."""
        return tuple(g for g in self.gateways if g.kind is not GatewayKind.DEMO)


def _check_seconds(name: str, value: float, maximum: float) -> None:
    if not math.isfinite(value) or not 0.0 <= value <= maximum:
        raise SettingsError(f"{name}: must be between 0 and {maximum:g} seconds, got {value!r}")
