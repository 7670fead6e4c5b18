"""Where a gateway is and how to reach it; a token is only *named*, read at dial time.

A URL may carry ``?token=``: it stays out of ``repr`` and is shown only through ``redact_url``.
Plain ``ws://`` only to loopback unless the person allowed it. A token file readable by others
would let any local user approve commands as this person: refused, as ssh does for keys.
"""

from __future__ import annotations

import enum
import logging
import math
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.gateway.errors import ConfigError
from desktop.logsetup import MASK, SECRET_QUERY_KEYS, is_opaque_segment, register_secret
from desktop.platform.paths import KEYRING_SERVICE
from desktop.settings.model import GatewayConfig, GatewayKind, is_loopback_host
from desktop.settings.tokens import TokenStore

log = logging.getLogger(__name__)


class TokenKind(enum.Enum):
    KEYRING = "keyring"  # ref = keyring username under service KEYRING_SERVICE
    FILE = "file"  # ref = path of a 0600 file holding the token
    ENV = "env"  # ref = environment variable name
    INLINE = "inline"  # value held in memory (demo, owned backend); never persisted
    STORE = "store"  # ref = token_ref read through ``lookup`` (TokenStore.get) at every dial


@dataclass(frozen=True)
class TokenSource:
    """Names where a token lives. ``value`` (inline only) never appears in ``repr``."""

    kind: TokenKind
    ref: str = ""
    value: str = field(default="", repr=False, compare=False)
    lookup: Callable[[str], str | None] | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """Where the token comes from, for messages ("keyring entry 'x'"); never the token."""
        return {
            TokenKind.KEYRING: f"keyring entry '{self.ref}' (service {KEYRING_SERVICE})",
            TokenKind.FILE: f"token file {self.ref}",
            TokenKind.ENV: f"environment variable {self.ref}",
            TokenKind.INLINE: "a token held in memory",
            TokenKind.STORE: f"the stored token '{self.ref}' (Settings)",
        }[self.kind]


@dataclass(frozen=True)
class GatewayEndpoint:
    gateway_id: str
    name: str
    kind: GatewayKind
    url: str = field(default="", repr=False)
    token: TokenSource | None = None
    hermes_home: str = ""  # canonical: whose control socket; owned: HERMES_HOME for the child
    hermes_executable: str = ""  # owned: path or name of `hermes` ("" = look it up on PATH)
    allow_insecure_remote: bool = False
    # approvals.timeout as configured (None: unknown); see desktop.gateway.approval_timeout.
    approval_timeout_s: float | None = None

    @property
    def display_url(self) -> str:
        """The URL with credentials masked, safe for logs and the UI."""
        return redact_url(self.url) if self.url else ""

    def __repr__(self) -> str:
        return (
            f"GatewayEndpoint(gateway_id={self.gateway_id!r}, name={self.name!r}, "
            f"kind={self.kind.value}, url={self.display_url!r}, token={self.token!r}, "
            f"hermes_home={self.hermes_home!r})"
        )


@dataclass(frozen=True)
class DialPlan:
    """One dial (the URL and subprotocols may hold a credential: never log them)."""

    url: str = field(repr=False)
    subprotocols: tuple[str, ...] = field(default=(), repr=False)
    expect_subprotocol: str | None = None

    @property
    def where(self) -> str:
        return redact_url(self.url)

    @property
    def status_url(self) -> tuple[str, int] | None:
        """(host, port) of the same server's public ``/api/status`` (for the version)."""
        parts = urlsplit(self.url)
        if parts.scheme != "ws" or not parts.hostname or parts.port is None:
            return None
        return parts.hostname, parts.port


def redact_url(url: str) -> str:
    """``url`` with credential query values, opaque path segments and any password masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    query = [
        (k, MASK if k.lower() in SECRET_QUERY_KEYS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    path = "/".join(MASK if is_opaque_segment(seg) else seg for seg in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, path, urlencode(query, safe="*"), ""))


def endpoint_from_config(
    config: GatewayConfig, token_lookup: Callable[[str], str | None]
) -> GatewayEndpoint:
    """The token is looked up at every dial, so one changed in Settings is used on reconnect.

    A bad ``approval_timeout_s`` is ignored with a warning: a typo never stops a connection.
    """
    ref = config.token_ref
    token = TokenSource(TokenKind.STORE, ref, lookup=token_lookup) if ref else None
    return GatewayEndpoint(
        gateway_id=config.id,
        name=config.name,
        kind=config.kind,
        url=config.url,
        token=token,
        hermes_home=str(config.extra.get("hermes_home", "")),
        hermes_executable=str(config.extra.get("hermes_executable", "")),
        allow_insecure_remote=config.allow_insecure_remote,
        approval_timeout_s=_seconds(config, "approval_timeout_s"),
    )


def _seconds(config: GatewayConfig, key: str) -> float | None:
    value = config.extra.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        log.warning("gateway %s: %s must be a number of seconds; ignored", config.id, key)
        return None
    if value < 0:
        log.warning("gateway %s: %s must not be negative; ignored", config.id, key)
        return None
    return float(value)


def normalise_ws_url(url: str, *, allow_insecure_remote: bool = False) -> str:
    """Accept http(s):// and a bare origin too: people paste the dashboard address."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ConfigError(f"Gateway URL {redact_url(url)!r} is not valid ({exc}).") from None
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not host:
        raise ConfigError(
            f"Gateway URL {redact_url(url)!r} must start with ws:// or wss:// and name a host, "
            "e.g. ws://127.0.0.1:9119/api/ws."
        )
    if scheme == "ws" and not is_loopback_host(host) and not allow_insecure_remote:
        raise ConfigError(
            f"Gateway URL {redact_url(url)!r} uses plain ws:// to a non-loopback host, which "
            "would send the token unencrypted. Use wss://, or a loopback tunnel, or allow "
            "insecure remote gateways explicitly in Settings."
        )
    path = parts.path if parts.path not in ("", "/") else "/api/ws"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The first line of a private token file; ConfigError if missing, empty or not 0600-ish."""
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except OSError as exc:
        raise ConfigError(f"Cannot read token file {p}: {exc.strerror}. Check the path.") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"Token file {p} is not a regular file.")
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"Token file {p} is readable by other users (mode {stat.S_IMODE(st.st_mode):o}); "
            f"refusing to use it. Run: chmod 600 {p}"
        )
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise ConfigError(f"Token file {p} belongs to another user; refusing to use it.")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read token file {p}: {exc}.") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ConfigError(f"Token file {p} is empty. Put the gateway token on its first line.")
    return token


def load_token(source: TokenSource, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    if source.kind is TokenKind.INLINE:
        token = source.value
    elif source.kind is TokenKind.ENV:
        token = env.get(source.ref, "").strip()
        if not token:
            raise ConfigError(f"Environment variable {source.ref} holding the token is not set.")
    elif source.kind is TokenKind.FILE:
        token = read_token_file(source.ref)
    elif source.kind is TokenKind.STORE:
        found = source.lookup(source.ref) if source.lookup is not None else None
        if not found:
            raise ConfigError(f"No token is stored for '{source.ref}'. Enter it in Settings.")
        token = found
    else:
        try:
            token = TokenStore().keyring_token(source.ref) or ""
        except Exception as exc:  # no backend, locked keyring, D-Bus errors ...
            raise ConfigError(
                f"The OS keyring is not available ({type(exc).__name__}); store the token in a "
                "0600 file or an environment variable instead."
            ) from None
        if not token:
            raise ConfigError(
                f"No token in the keyring entry '{source.ref}' (service {KEYRING_SERVICE}). "
                "Enter the token in Settings to store it there."
            )
    if not token:
        raise ConfigError(f"No token in {source.describe()}.")
    register_secret(token)
    return token


def with_token(url: str, token: str) -> str:
    """``url`` with ``?token=`` set (replacing any existing one); the loopback tui_gateway auth."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    query.append(("token", token))
    return urlunsplit(parts._replace(query=urlencode(query)))
