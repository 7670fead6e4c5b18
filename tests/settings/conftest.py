"""Fixtures for the settings tests: a config dir under tmp and an in-memory keyring."""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.core
import pytest

from tests.settings.fake_keyring import MemoryKeyring


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HERMES_TRAY_CONFIG_DIR (the shared isolated_env already points it at tmp; this
    one is per test and known to the test)."""
    directory = tmp_path / "config"
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    """Install an in-memory keyring as *the* keyring (restored after the test)."""
    backend = MemoryKeyring()
    monkeypatch.setattr(keyring.core, "_keyring_backend", keyring.core._keyring_backend)
    keyring.set_keyring(backend)
    return backend
