"""load_settings / save_settings: files, permissions, corruption, versions, migrations."""

from __future__ import annotations

import json
import logging
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop.platform import files
from desktop.settings import store as store_module
from desktop.settings.model import GatewayConfig, Settings
from desktop.settings.store import load_settings, save_settings, settings_path
from desktop.settings.tokens import TokenStore
from tests.settings.fake_keyring import MemoryKeyring

CANARY = "canary-TOKEN-9d2c"
FIXED = datetime(2026, 11, 29, 12, 30, 45, tzinfo=UTC)


def fixed_clock() -> datetime:
    return FIXED


def sample() -> Settings:
    gateway = GatewayConfig(
        id="home", name="Home", url="ws://127.0.0.1:9119/api/ws", token_ref="home"
    )
    return Settings(gateways=(gateway,), staleness_margin_s=3.5, start_at_login=True)


def test_settings_path_honours_the_env_override(config_dir: Path) -> None:
    assert settings_path() == config_dir / "settings.json"


def test_missing_file_gives_defaults_and_writes_nothing(config_dir: Path) -> None:
    assert load_settings() == Settings()
    assert not config_dir.exists()


def test_save_then_load_round_trips_with_private_permissions(config_dir: Path) -> None:
    save_settings(sample())
    path = config_dir / "settings.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(config_dir.stat().st_mode) == 0o700
    assert json.loads(path.read_text())["schema_version"] == 1
    assert load_settings() == sample()
    assert [p.name for p in config_dir.iterdir()] == ["settings.json"]  # no temp file left


def test_a_failed_write_leaves_the_old_file_intact(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_settings(Settings())
    before = (config_dir / "settings.json").read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        save_settings(sample())
    assert (config_dir / "settings.json").read_bytes() == before
    assert [p.name for p in config_dir.iterdir()] == ["settings.json"]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"schema_version": "one"}',
        b'{"schema_version": 1, "staleness_margin_s": -1}',
        b'{"schema_version": 1, "gateways": [{"id": "a", "name": "A", "url": "http://x/"}]}',
    ],
)
def test_corrupt_file_is_kept_aside_and_defaults_are_used(
    config_dir: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    config_dir.mkdir()
    (config_dir / "settings.json").write_bytes(content)
    with caplog.at_level(logging.ERROR, logger="desktop.settings"):
        assert load_settings(clock=fixed_clock) == Settings()
    kept = config_dir / "settings.json.bad-20261129T123045Z"
    assert kept.read_bytes() == content
    assert not (config_dir / "settings.json").exists()
    (record,) = caplog.records
    assert str(kept) in record.getMessage()
    assert "default settings" in record.getMessage()


def test_a_second_corrupt_file_in_the_same_second_does_not_overwrite_the_first(
    config_dir: Path,
) -> None:
    config_dir.mkdir()
    for content in (b"first", b"second"):
        (config_dir / "settings.json").write_bytes(content)
        load_settings(clock=fixed_clock)
    assert (config_dir / "settings.json.bad-20261129T123045Z").read_bytes() == b"first"
    assert (config_dir / "settings.json.bad-20261129T123045Z-1").read_bytes() == b"second"


def test_unknown_keys_are_kept_on_save_and_logged_once(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config_dir.mkdir()
    path = config_dir / "settings.json"
    path.write_text(json.dumps({"schema_version": 1, "theme": "dark"}))
    with caplog.at_level(logging.INFO, logger="desktop.settings"):
        first = load_settings()
        load_settings()
    mentions = [r for r in caplog.records if "does not know" in r.getMessage()]
    assert len(mentions) == 1
    assert "theme" in mentions[0].getMessage()
    save_settings(first)
    assert json.loads(path.read_text())["theme"] == "dark"


def test_newer_schema_is_read_and_backed_up_before_it_is_overwritten(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config_dir.mkdir()
    newer = {"schema_version": 2, "start_at_login": True, "new_thing": {"a": 1}}
    (config_dir / "settings.json").write_text(json.dumps(newer))
    with caplog.at_level(logging.WARNING, logger="desktop.settings"):
        settings = load_settings()
    assert settings.start_at_login is True
    assert "newer than this Hermes Tray" in caplog.text
    save_settings(settings, clock=fixed_clock)
    backup = config_dir / "settings.json.v2-20261129T123045Z"
    assert json.loads(backup.read_text()) == newer
    assert json.loads((config_dir / "settings.json").read_text())["new_thing"] == {"a": 1}


def test_v0_file_is_migrated_rewritten_and_its_token_moved_to_the_keyring(
    config_dir: Path, memory_keyring: MemoryKeyring, caplog: pytest.LogCaptureFixture
) -> None:
    config_dir.mkdir()
    path = config_dir / "settings.json"
    path.write_text(
        json.dumps({"gateway_url": "ws://127.0.0.1:9119/api/ws", "gateway_token": CANARY})
    )
    with caplog.at_level(logging.DEBUG):
        settings = load_settings()
    assert settings.gateways[0].token_ref == "default"
    assert TokenStore().get("default") == CANARY
    on_disk = path.read_text()
    assert CANARY not in on_disk
    assert json.loads(on_disk)["schema_version"] == 1
    assert CANARY not in caplog.text
    assert "from schema v0 to v1" in caplog.text
    assert load_settings() == settings  # the rewritten file is a plain v1 file now


def test_migration_uses_an_injected_token_store(config_dir: Path, tmp_path: Path) -> None:
    config_dir.mkdir()
    (config_dir / "settings.json").write_text(
        json.dumps({"gateway_url": "ws://h/?token=" + CANARY})
    )
    backend = MemoryKeyring()
    load_settings(token_store=TokenStore(tmp_path, backend=backend))
    assert backend.passwords == {("hermes-tray", "default"): CANARY}


def test_unreadable_file_gives_defaults_without_moving_it(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = config_dir / "settings.json"
    path.mkdir(parents=True)  # reading fails with an OSError even for root
    assert load_settings() == Settings()
    assert path.is_dir()
    assert "Cannot read settings file" in caplog.text


def test_a_fifo_in_place_of_the_file_neither_hangs_loading_nor_saving(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = config_dir / "settings.json"
    config_dir.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)  # before: read_bytes() blocked forever waiting for a writer
    assert load_settings() == Settings()
    assert stat.S_ISFIFO(path.stat().st_mode)  # left where it is
    assert "a FIFO, not a regular file" in caplog.text
    assert "left it unchanged" in caplog.text
    with pytest.raises(OSError, match="a FIFO"):
        save_settings(sample())
    assert stat.S_ISFIFO(path.stat().st_mode)


def test_a_file_nested_a_thousand_levels_deep_is_refused_not_a_crash(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = config_dir / "settings.json"
    config_dir.mkdir(parents=True, exist_ok=True)
    deep = '{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text(deep, encoding="utf-8")
    assert load_settings(clock=fixed_clock) == Settings()  # before: RecursionError
    assert "nested deeper than" in caplog.text
    [kept] = config_dir.glob("settings.json.bad-*")
    assert kept.read_text(encoding="utf-8") == deep  # the content itself is untouched


def test_nesting_below_the_parser_limit_but_past_the_schema_is_refused_too(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = config_dir / "settings.json"
    config_dir.mkdir(parents=True, exist_ok=True)
    path.write_text('{"x": ' + "[" * 500 + "]" * 500 + "}", encoding="utf-8")
    assert load_settings(clock=fixed_clock) == Settings()
    assert "nested deeper than" in caplog.text


def test_an_oversized_file_is_not_read_and_left_unchanged(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = config_dir / "settings.json"
    config_dir.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:  # sparse: big on paper, nothing on disk
        stream.truncate(store_module.MAX_SETTINGS_BYTES + 1)
    assert load_settings() == Settings()
    assert path.stat().st_size == store_module.MAX_SETTINGS_BYTES + 1
    assert "more than the" in caplog.text
