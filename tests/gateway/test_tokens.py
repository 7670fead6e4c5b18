from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import keyring
import pytest
from keyring.backend import KeyringBackend

from desktop.gateway.endpoints import TokenKind, TokenSource, load_token, with_token
from desktop.gateway.errors import ConfigError
from desktop.platform.paths import KEYRING_SERVICE

TOKEN = "tok-123456"


def _write(path: Path, text: str, mode: int) -> Path:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return path


def test_private_token_file_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "token", f"{TOKEN}\nignored second line\n", 0o600)
    assert load_token(TokenSource(TokenKind.FILE, str(path))) == TOKEN


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o660])
def test_group_or_world_readable_token_file_is_refused(tmp_path: Path, mode: int) -> None:
    path = _write(tmp_path / "token", TOKEN, mode)
    with pytest.raises(ConfigError, match="chmod 600") as info:
        load_token(TokenSource(TokenKind.FILE, str(path)))
    assert TOKEN not in str(info.value)


def test_missing_and_empty_token_files_explain_themselves(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot read token file"):
        load_token(TokenSource(TokenKind.FILE, str(tmp_path / "absent")))
    empty = _write(tmp_path / "empty", "\n\n", 0o600)
    with pytest.raises(ConfigError, match="empty"):
        load_token(TokenSource(TokenKind.FILE, str(empty)))


def test_environment_token() -> None:
    assert load_token(TokenSource(TokenKind.ENV, "T"), {"T": f" {TOKEN} "}) == TOKEN
    with pytest.raises(ConfigError, match="T holding the token is not set"):
        load_token(TokenSource(TokenKind.ENV, "T"), {})


class _MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Any:
    previous = keyring.get_keyring()
    backend = _MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_keyring_token(memory_keyring: _MemoryKeyring) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "work", TOKEN)
    assert load_token(TokenSource(TokenKind.KEYRING, "work")) == TOKEN
    with pytest.raises(ConfigError, match="No token in the keyring entry 'home'"):
        load_token(TokenSource(TokenKind.KEYRING, "home"))


def test_with_token_replaces_an_existing_token() -> None:
    url = with_token("ws://127.0.0.1:1/api/ws?token=old&x=1", TOKEN)
    assert parse_qs(urlsplit(url).query)["token"] == [TOKEN]
    assert "old" not in url
    assert "x=1" in url


def test_a_keyring_that_does_not_work_is_named_not_raised() -> None:
    import keyring.backends.fail

    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        with pytest.raises(ConfigError, match=r"keyring is not available \(NoKeyringError\)"):
            load_token(TokenSource(TokenKind.KEYRING, "work"))
    finally:
        keyring.set_keyring(previous)
