"""Gateway tokens: in the OS keyring, or -- said out loud -- in a 0600 file.

A token lets its holder run commands through the agent: it must not sit in a settings file that
gets copied into dotfile repos. Without a Secret Service (minimal desktops, CI) a 0600 JSON file
stands in, and every write there logs a WARNING. Tokens are never logged; ``on_secret`` is told
each one so logs and the journal can scrub it. ``keyring`` (6 MiB) is imported on first use.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.platform.files import atomic_write_text, keep_aside, read_bounded
from desktop.platform.paths import KEYRING_SERVICE, config_dir

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

log = logging.getLogger(__name__)

FALLBACK_FILE_NAME = "tokens.json"
MAX_FALLBACK_BYTES = 1 << 20  # a few tokens; anything bigger is not this file


def _keyring_failures() -> tuple[type[Exception], ...]:
    """What a keyring call may raise that means "the keyring does not work" (imports keyring)."""
    import keyring.errors

    return (keyring.errors.KeyringError, OSError)


class TokenStore:
    def __init__(
        self,
        directory: Path | None = None,
        *,
        backend: KeyringBackend | None = None,
        on_secret: Callable[[str], None] = lambda token: None,
    ) -> None:
        self._directory = directory
        self._backend = backend
        self._on_secret = on_secret
        self._keyring_problem: str | None = None

    @property
    def fallback_path(self) -> Path:
        return (self._directory or config_dir()) / FALLBACK_FILE_NAME

    @property
    def using_fallback(self) -> bool:
        """True when tokens are (or would be) kept in the file instead of the keyring."""
        return self._keyring() is None or bool(self._read_file())

    @property
    def fallback_reason(self) -> str | None:
        """Why the keyring is not used, for the UI; None while it works."""
        self._keyring()
        return self._keyring_problem

    def get(self, ref: str) -> str | None:
        token: str | None = None
        if self._keyring() is not None:
            try:
                token = self.keyring_token(ref)
            except _keyring_failures() as exc:
                self._keyring_failed("read", exc)
        if token is None:
            token = self._read_file().get(ref)
        if token is not None:
            self._on_secret(token)
        return token

    def set(self, ref: str, token: str) -> None:
        if not token:
            raise ValueError("an empty token cannot be stored; use delete()")
        self._on_secret(token)
        backend = self._keyring()
        if backend is not None:
            try:
                backend.set_password(KEYRING_SERVICE, ref, token)
            except _keyring_failures() as exc:
                self._keyring_failed("write", exc, token)
            else:
                self._remove_from_file(ref)  # an older fallback copy must not linger
                return
        tokens = self._read_file()
        tokens[ref] = token
        self._write_file(tokens)
        log.warning(
            "No usable OS keyring (%s): stored the token for %r in %s, readable by your user only",
            self._keyring_problem,
            ref,
            self.fallback_path,
        )

    def delete(self, ref: str) -> None:
        """Forget the token for ``ref`` everywhere it may be; no error if there is none."""
        backend = self._keyring()
        if backend is not None:
            from keyring.errors import PasswordDeleteError

            try:
                backend.delete_password(KEYRING_SERVICE, ref)
            except PasswordDeleteError:
                pass  # nothing stored: fine
            except _keyring_failures() as exc:
                self._keyring_failed("delete", exc)
        self._remove_from_file(ref)

    # -- keyring -----------------------------------------------------------------------------
    def keyring_token(self, ref: str) -> str | None:
        """The keyring's entry alone (``--token-keyring``); raises whatever the keyring raises."""
        return self._any_keyring().get_password(KEYRING_SERVICE, ref)

    def _any_keyring(self) -> KeyringBackend:
        if self._backend is not None:
            return self._backend
        import keyring  # on first use: see the module docstring

        return keyring.get_keyring()

    def _keyring(self) -> KeyringBackend | None:
        backend = self._any_keyring()
        if getattr(backend, "priority", 0) <= 0:  # keyring's "fail" and "null" backends
            self._keyring_problem = f"the keyring backend {type(backend).__name__} stores nothing"
            return None
        return backend

    def _keyring_failed(self, what: str, exc: Exception, token: str = "") -> None:
        self._keyring_problem = f"keyring {what} failed: {type(exc).__name__}"
        detail = str(exc).replace(token, "[token]") if token else str(exc)  # backends' text
        log.warning("OS keyring %s failed (%s: %s)", what, type(exc).__name__, detail)

    # -- fallback file -----------------------------------------------------------------------
    def _read_file(self) -> dict[str, str]:
        path = self.fallback_path
        try:
            raw = read_bounded(path, MAX_FALLBACK_BYTES)  # a FIFO here must not hang start-up
            if stat.S_IMODE(path.stat().st_mode) & 0o077 and os.name == "posix":
                path.chmod(0o600)
                log.warning("%s was readable by others; made it 0600", path)
            data = json.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.error("Cannot read token file %s (%s); left it unchanged", path, exc)
            return {}
        except (ValueError, RecursionError) as exc:
            kept = keep_aside(path, "bad", datetime.now(UTC))
            log.error("Token file %s is unreadable (%s); kept it as %s", path, exc, kept)
            return {}
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict):
            return {}
        return {k: v for k, v in tokens.items() if isinstance(k, str) and isinstance(v, str)}

    def _write_file(self, tokens: dict[str, str]) -> None:
        text = json.dumps({"schema_version": 1, "tokens": tokens}, indent=2, sort_keys=True)
        atomic_write_text(self.fallback_path, text + "\n", mode=0o600)

    def _remove_from_file(self, ref: str) -> None:
        tokens = self._read_file()
        if ref not in tokens:
            return
        del tokens[ref]
        if tokens:
            self._write_file(tokens)
        else:
            self.fallback_path.unlink(missing_ok=True)
