"""The settings as frozen, validated values.

Why frozen dataclasses and not a dict: every reader gets the same typed snapshot, a typo in a key
is a mypy error instead of a silent ``None``, and a change is an explicit ``dataclasses.replace``
that the app saves and applies as a whole (see design.md example 12).

Why an ``extra`` mapping on each object: a file written by a newer Hermes Tray may carry keys
this version does not know. They are kept and written back unchanged, so running an older
version for a day never destroys a newer version's settings.

Secrets never live here: a gateway names its token by ``token_ref`` and the token itself is in
the :class:`~desktop.settings.tokens.TokenStore`. Construction rejects URLs that carry one.
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
    """How the tray reaches a gateway; decides which other fields matter.

    The gateway package dials by these same kinds (``desktop.gateway.endpoints.EndpointKind``).
    """

    URL = "url"  # dial ``url`` (ws/wss), token from the TokenStore when ``token_ref`` is set
    CANONICAL = "canonical"  # discover the canonical gateway (control socket + one-time ticket)
    OWNED = "owned"  # start ``hermes serve`` on loopback, mint a fresh token each start
    DASHBOARD = "dashboard"  # attach to a running loopback ``hermes dashboard``
    DEMO = "demo"  # the built-in demo gateway (URL and inline token supplied by the app)


class NotificationApproval(enum.Enum):
    """What a notification may decide.

    Only "once" is ever offered: a broader grant from a notification is too easy to give by
    accident.
    """

    ONCE = "once"
    NEVER = "never"


def _frozen_extra(extra: Mapping[str, Any]) -> Mapping[str, Any]:
    return types.MappingProxyType(dict(extra)) if extra else _NO_EXTRA


def is_loopback_host(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 (the only hosts plain ws:// may reach).

    Names are not resolved (no I/O here): any other name is remote.
    """
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    """One gateway the tray connects to.

    Attributes:
        id: stable key (letters, digits, ``._-``); also the keyring username of its token.
        name: what the menus show.
        url: ``ws://`` or ``wss://`` endpoint; required for ``GatewayKind.URL`` only.
        token_ref: TokenStore key of its token, or None when it needs none.
        kind: how to reach it.
        allow_insecure_remote: permit plain ``ws://`` to a non-loopback host (the token would
            cross the network unencrypted, so it is off unless the person asks for it).
    """

    id: str
    name: str
    url: str = ""
    token_ref: str | None = None
    kind: GatewayKind = GatewayKind.URL
    allow_insecure_remote: bool = False
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
    """Everything the person can configure.

    Attributes:
        gateways: the gateways to connect to, in menu order; ids are unique.
        notifications: notification policy.
        staleness_margin_s: refuse to answer an approval this close to its timeout (seconds).
        start_at_login: whether the autostart entry should exist.
        quiet_after_start_s: no notifications for this long after start (seconds), so a
            backlog does not flood the desktop at login.
        follow_all_sessions: follow every live session ("Follow all sessions") or only the
            sessions the tray starts. Applies where following takes nothing from the window
            running a session (the newer tui_gateway and the canonical gateway) and to 0.20,
            whose sessions are asked what waits instead (never attached to); on
            hermes-agent 0.19.0 only the tray's own sessions are ever followed.
            ``desktop.gateway.session_follower.follow_scope`` gives the sentence that says why.
    """

    gateways: tuple[GatewayConfig, ...] = ()
    notifications: NotificationPolicy = NotificationPolicy()
    staleness_margin_s: float = 5.0
    start_at_login: bool = False
    quiet_after_start_s: float = 10.0
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

    def gateway(self, gateway_id: str) -> GatewayConfig | None:
        """The gateway with this id, or None."""
        return next((g for g in self.gateways if g.id == gateway_id), None)


def _check_seconds(name: str, value: float, maximum: float) -> None:
    if not math.isfinite(value) or not 0.0 <= value <= maximum:
        raise SettingsError(f"{name}: must be between 0 and {maximum:g} seconds, got {value!r}")
