"""Crash-safe file writes and bounded reads.

A temporary file in the *same directory* (so ``os.replace`` is an atomic rename), fsynced, then
the directory fsynced (POSIX): after a power loss a reader sees the old or the new content.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from desktop.platform.paths import ensure_private_dir


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` atomically; ``mode`` is set before any byte is written."""
    directory = ensure_private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        if hasattr(os, "fchmod"):  # POSIX; on Windows the ACL of the user profile applies
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_directory(directory)


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def _fsync_directory(directory: Path) -> None:
    if os.name != "posix":
        return
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def keep_aside(path: Path, label: str, when: datetime) -> Path:
    """Not deleted: an unreadable file may still hold the person's only copy of their settings."""
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{label}-{stamp}-{counter}")
        counter += 1
    os.replace(path, target)
    return target


def read_bounded(path: Path, limit: int) -> bytes:
    """Checked on a non-blocking descriptor: a FIFO neither blocks nor is swapped in."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise OSError(f"{info.st_size} bytes, more than the {limit} a file here may have")
        with os.fdopen(os.dup(fd), "rb") as stream:
            data = stream.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(f"more than the {limit} bytes a file here may have")
    return data


def file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"
