"""Reading and writing ``settings.json`` without ever losing it.

Corrupt: kept aside, defaults used. Older schema: secrets moved to the TokenStore, the file
rewritten at once. Newer: the file copied aside before the first save over it. Not a regular
file or too big: left alone (a FIFO must not hang start-up). Writes are atomic and 0600.
"""

from __future__ import annotations

import json
import logging
import shutil
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from desktop.core.jsonrpc import _depth as json_depth
from desktop.platform.files import atomic_write_text, file_kind, keep_aside, read_bounded
from desktop.platform.paths import config_dir
from desktop.settings.codec import (
    SCHEMA_VERSION,
    settings_from_json,
    settings_to_json,
    unknown_key_paths,
)
from desktop.settings.migrations import migrate
from desktop.settings.model import Settings, SettingsError
from desktop.settings.tokens import TokenStore

log = logging.getLogger(__name__)

SETTINGS_FILE_NAME = "settings.json"
MAX_SETTINGS_BYTES = 1 << 20  # a real settings file is a few kilobytes
MAX_DEPTH = 32  # the schema nests four levels; unknown keys get some room
Clock = Callable[[], datetime]
_reported_unknown: set[tuple[Path, str]] = set()


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE_NAME


def _utc_now() -> datetime:
    return datetime.now(UTC)


def load_settings(
    path: Path | None = None,
    *,
    token_store: TokenStore | None = None,
    clock: Clock = _utc_now,
) -> Settings:
    """Read the settings; never raises for a bad file (see the module docstring)."""
    path = path or settings_path()
    try:
        raw = read_bounded(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        log.info("No settings file at %s yet; using defaults", path)
        return Settings()
    except OSError as exc:
        log.error(
            "Cannot read settings file %s (%s); left it unchanged and using defaults for this run",
            path,
            exc,
        )
        return Settings()
    try:
        data, version = _decode(raw)
        migrated = migrate(data, version) if version < SCHEMA_VERSION else None
        settings = settings_from_json(migrated.data if migrated else data)
    except SettingsError as exc:
        try:
            kept: Path | str = keep_aside(path, "bad", clock())
        except OSError as move_exc:
            kept = f"(not moved: {move_exc})"
        log.error(
            "Settings file %s is invalid (%s). Kept it as %s and started with default settings;"
            " fix or delete that copy, then set things up again in Settings.",
            path,
            exc,
            kept,
        )
        return Settings()
    if migrated is not None:
        _finish_migration(path, version, settings, migrated.secrets, token_store)
    elif version > SCHEMA_VERSION:
        log.warning(
            "Settings file %s has schema_version %d, newer than this Hermes Tray (%d);"
            " reading the keys this version knows and keeping the rest",
            path,
            version,
            SCHEMA_VERSION,
        )
    _report_unknown(path, settings)
    return settings


def save_settings(settings: Settings, path: Path | None = None, *, clock: Clock = _utc_now) -> None:
    """Write ``settings`` atomically (0600); OSError if it cannot, or the path is not a file."""
    path = path or settings_path()
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OSError(
            f"{path} is {file_kind(info.st_mode)}, not a settings file; remove it to save"
        )
    newer = _schema_version_on_disk(path)
    if newer is not None and newer > SCHEMA_VERSION:
        stamp = clock().astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        backup = path.with_name(f"{path.name}.v{newer}-{stamp}")
        shutil.copy2(path, backup)
        log.warning("Kept the newer (v%d) settings file as %s before saving over it", newer, backup)
    text = json.dumps(settings_to_json(settings), indent=2, ensure_ascii=False, allow_nan=False)
    atomic_write_text(path, text + "\n")
    log.info("Saved settings to %s", path)


def _decode(raw: bytes) -> tuple[dict[str, Any], int]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise SettingsError(f"not valid UTF-8 JSON: {exc}") from None
    except RecursionError:
        raise SettingsError(f"nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(data, dict):
        raise SettingsError("the top level must be a JSON object")
    if json_depth(data) > MAX_DEPTH:
        raise SettingsError(f"nested deeper than {MAX_DEPTH} levels")
    version = data.get("schema_version", 0)  # v0 files had no version key
    if isinstance(version, bool) or not isinstance(version, int):
        raise SettingsError("schema_version: must be an integer")
    return data, version


def _finish_migration(
    path: Path,
    version: int,
    settings: Settings,
    secrets: dict[str, str],
    token_store: TokenStore | None,
) -> None:
    store = token_store or TokenStore(path.parent)
    try:
        for ref, token in secrets.items():
            store.set(ref, token)
            log.info("Moved the token of gateway %r out of the settings file", ref)
        save_settings(settings, path)
    except (OSError, ValueError) as exc:
        log.error("Could not finish upgrading %s from v%d (%s)", path, version, exc)
        return
    log.info("Upgraded settings file %s from schema v%d to v%d", path, version, SCHEMA_VERSION)


def _schema_version_on_disk(path: Path) -> int | None:
    try:
        return _decode(read_bounded(path, MAX_SETTINGS_BYTES))[1]
    except (OSError, SettingsError):
        return None


def _report_unknown(path: Path, settings: Settings) -> None:
    fresh = [key for key in unknown_key_paths(settings) if (path, key) not in _reported_unknown]
    if fresh:
        _reported_unknown.update((path, key) for key in fresh)
        log.info("Keeping settings keys this version does not know: %s", ", ".join(fresh))
