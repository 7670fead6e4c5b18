"""TokenStore: the keyring first, a loud 0600 file fallback, never a token in a log."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import keyring.backends.fail
import pytest

from desktop.settings.tokens import TokenStore
from tests.settings.fake_keyring import BrokenKeyring, MemoryKeyring

CANARY = "canary-TOKEN-77ab"


def test_tokens_go_to_the_keyring_under_the_app_service(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    tokens = TokenStore(tmp_path, backend=backend)
    tokens.set("gw1", CANARY)
    assert backend.passwords == {("hermes-tray", "gw1"): CANARY}
    assert tokens.get("gw1") == CANARY
    assert tokens.get("other") is None
    assert not tokens.fallback_path.exists()
    assert tokens.using_fallback is False
    assert tokens.fallback_reason is None


def test_the_default_backend_is_the_installed_keyring(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    TokenStore(tmp_path).set("gw1", CANARY)
    assert memory_keyring.passwords[("hermes-tray", "gw1")] == CANARY


def test_delete_forgets_and_tolerates_a_missing_token(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    tokens = TokenStore(tmp_path, backend=backend)
    tokens.set("gw1", CANARY)
    tokens.delete("gw1")
    tokens.delete("gw1")
    assert tokens.get("gw1") is None


def test_empty_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty token"):
        TokenStore(tmp_path, backend=MemoryKeyring()).set("gw1", "")


def test_no_keyring_falls_back_to_a_private_file_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    with caplog.at_level(logging.WARNING, logger="desktop.settings"):
        tokens.set("gw1", CANARY)
    path = tmp_path / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["tokens"] == {"gw1": CANARY}
    assert tokens.get("gw1") == CANARY
    assert tokens.using_fallback is True
    assert "stores nothing" in (tokens.fallback_reason or "")
    assert "No usable OS keyring" in caplog.text
    assert str(path) in caplog.text
    assert CANARY not in caplog.text


def test_a_failing_keyring_falls_back_without_logging_the_token(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = TokenStore(tmp_path, backend=BrokenKeyring())
    with caplog.at_level(logging.WARNING, logger="desktop.settings"):
        tokens.set("gw1", CANARY)
        assert tokens.get("gw1") == CANARY
    assert "PasswordSetError" in (tokens.fallback_reason or "") or "KeyringLocked" in (
        tokens.fallback_reason or ""
    )
    assert tokens.using_fallback is True
    assert "locked" in caplog.text
    assert CANARY not in caplog.text


def test_a_working_keyring_takes_over_tokens_from_the_file(tmp_path: Path) -> None:
    TokenStore(tmp_path, backend=keyring.backends.fail.Keyring()).set("gw1", "old")
    backend = MemoryKeyring()
    tokens = TokenStore(tmp_path, backend=backend)
    assert tokens.get("gw1") == "old"  # still readable from the file
    tokens.set("gw1", CANARY)
    assert backend.passwords[("hermes-tray", "gw1")] == CANARY
    assert not tokens.fallback_path.exists()
    assert tokens.using_fallback is False


def test_delete_removes_the_file_copy_too(tmp_path: Path) -> None:
    TokenStore(tmp_path, backend=keyring.backends.fail.Keyring()).set("gw1", CANARY)
    TokenStore(tmp_path, backend=keyring.backends.fail.Keyring()).set("gw2", "two")
    tokens = TokenStore(tmp_path, backend=MemoryKeyring())
    tokens.delete("gw1")
    assert tokens.get("gw1") is None
    assert tokens.get("gw2") == "two"


def test_every_token_seen_is_reported_for_scrubbing(tmp_path: Path) -> None:
    seen: list[str] = []
    backend = MemoryKeyring()
    backend.passwords[("hermes-tray", "pre")] = "pre-existing"
    tokens = TokenStore(tmp_path, backend=backend, on_secret=seen.append)
    tokens.set("gw1", CANARY)
    tokens.get("pre")
    assert seen == [CANARY, "pre-existing"]


def test_a_group_readable_fallback_file_is_tightened(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"schema_version": 1, "tokens": {"gw1": CANARY}}))
    path.chmod(0o644)
    tokens = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    assert tokens.get("gw1") == CANARY
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "made it 0600" in caplog.text


def test_a_corrupt_fallback_file_is_kept_aside(tmp_path: Path) -> None:
    (tmp_path / "tokens.json").write_text("{broken")
    tokens = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    assert tokens.get("gw1") is None
    kept = [p.name for p in tmp_path.iterdir() if p.name.startswith("tokens.json.bad-")]
    assert len(kept) == 1


def test_a_fifo_in_place_of_the_fallback_file_does_not_hang(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens.json"
    os.mkfifo(path)  # before: read_text() blocked forever waiting for a writer
    tokens = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    assert tokens.get("gw1") is None
    assert stat.S_ISFIFO(path.stat().st_mode)
    assert "a FIFO, not a regular file" in caplog.text


def test_a_fallback_file_nested_past_the_parser_limit_is_kept_aside(tmp_path: Path) -> None:
    (tmp_path / "tokens.json").write_text("[" * 100_000 + "]" * 100_000)
    tokens = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    assert tokens.get("gw1") is None  # before: RecursionError out of get()
    assert [p.name.startswith("tokens.json.bad-") for p in tmp_path.iterdir()] == [True]


def test_the_default_directory_is_the_config_dir(config_dir: Path) -> None:
    assert TokenStore().fallback_path == config_dir / "tokens.json"


def test_keyring_is_imported_only_when_a_token_is_touched(tmp_path: Path) -> None:
    """Loading settings with no token-protected gateway must not load keyring (~6 MiB)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from desktop.settings.store import load_settings
        from desktop.settings.tokens import TokenStore
        tokens = TokenStore(Path({str(tmp_path)!r}))
        load_settings(Path({str(tmp_path)!r}) / "settings.json", token_store=tokens)
        print("after load:", "keyring" in sys.modules)
        print("token:", tokens.get("gw1"))
        print("after get:", "keyring" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["after load: False", "token: None", "after get: True"]
