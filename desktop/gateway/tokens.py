"""Read a gateway token from where a ``TokenSource`` says it lives.

A token file readable by others would let any local user approve commands as this person, so
it is refused with instructions (as ssh does for keys). Tokens are registered with the log
scrubber as soon as they are read.
"""

from __future__ import annotations

import importlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.gateway.endpoints import TokenKind, TokenSource
from desktop.gateway.errors import ConfigError
from desktop.logsetup import register_secret
from desktop.platform.paths import KEYRING_SERVICE


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


def read_keyring(username: str) -> str:
    """The token stored in the OS keyring, or ConfigError naming the entry to create."""
    try:
        keyring: Any = importlib.import_module("keyring")
        value = keyring.get_password(KEYRING_SERVICE, username)
    except Exception as exc:  # no backend, locked keyring, D-Bus errors ...
        raise ConfigError(
            f"The OS keyring is not available ({type(exc).__name__}); store the token in a "
            "0600 file or an environment variable instead."
        ) from None
    if not value:
        raise ConfigError(
            f"No token in the keyring entry '{username}' (service {KEYRING_SERVICE}). "
            "Enter the token in Settings to store it there."
        )
    return str(value)


def load_token(source: TokenSource, environ: Mapping[str, str] | None = None) -> str:
    """The token ``source`` names. Raises ConfigError with what to do when it is missing."""
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
        token = read_keyring(source.ref)
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
