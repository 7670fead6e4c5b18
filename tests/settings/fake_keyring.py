"""In-memory keyring backends, so no test ever reaches the developer's real keyring.

``MemoryKeyring`` behaves like a working Secret Service; ``BrokenKeyring`` claims to work
(priority > 0) but fails every call, as a locked or vanished D-Bus keyring does.
"""

from __future__ import annotations

import keyring.backend
import keyring.errors


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A working keyring that keeps passwords in a dict."""

    priority = 1  # type: ignore[assignment]  # > 0 means "usable" to TokenStore
    viable = False  # type: ignore[assignment]  # never picked by keyring's own auto-detection

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class BrokenKeyring(keyring.backend.KeyringBackend):
    """A keyring that looks usable but raises on every call (locked / D-Bus gone)."""

    priority = 1  # type: ignore[assignment]
    viable = False  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the collection is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("the collection is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.KeyringLocked("the collection is locked")
