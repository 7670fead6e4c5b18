"""Atomic writes and keeping broken files aside."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from desktop.platform import files


def test_atomic_write_creates_a_private_file(tmp_path: Path) -> None:
    target = tmp_path / "new" / "f.json"
    files.atomic_write_text(target, "héllo\n")
    assert target.read_text(encoding="utf-8") == "héllo\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_atomic_write_replaces_and_tightens_a_looser_file(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("old")
    target.chmod(0o644)
    files.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_atomic_write_honours_an_explicit_mode(tmp_path: Path) -> None:
    target = tmp_path / "entry.desktop"
    files.atomic_write_text(target, "x", mode=0o644)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_failed_write_removes_its_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_fsync(fd: int) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(files.os, "fsync", no_fsync)
    with pytest.raises(OSError, match="I/O error"):
        files.atomic_write_text(tmp_path / "f", "x")
    assert list(tmp_path.iterdir()) == []


def test_keep_aside_uses_utc_and_never_overwrites(tmp_path: Path) -> None:
    when = datetime(2026, 1, 2, 4, 5, 6, tzinfo=timezone(timedelta(hours=3)))
    for content in ("a", "b"):
        (tmp_path / "s.json").write_text(content)
        files.keep_aside(tmp_path / "s.json", "bad", when)
    assert (tmp_path / "s.json.bad-20260102T010506Z").read_text() == "a"
    assert (tmp_path / "s.json.bad-20260102T010506Z-1").read_text() == "b"
    assert datetime(2026, 1, 2, 1, 5, 6, tzinfo=UTC) == when
