"""Crash-safe file writes.

Why: a settings file half-written when the machine loses power is a corrupt settings file at the
next start. Writing a temporary file in the *same directory* (so ``os.replace`` is a rename on
one file system, atomic on POSIX and Windows), fsyncing it, then replacing the target means a
reader sees either the old or the new content, never a mix. The directory is fsynced too so the
rename itself survives a crash (POSIX only; Windows cannot open a directory for fsync).
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
    """Replace ``path`` with ``data`` atomically; the new file gets ``mode`` (default 0600).

    The mode is set on the temporary file *before* any byte is written, so a secret never sits
    in a world-readable file, not even for a moment.
    """
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
    """:func:`atomic_write_bytes` for UTF-8 text (newlines are written as given)."""
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
    """Rename ``path`` to ``<name>.<label>-<UTC time>`` (never overwriting) and return it.

    Why rename rather than delete: a file the app cannot read may still hold the person's only
    copy of their settings; they (or a bug report) can recover it from the kept copy.
    """
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{label}-{stamp}-{counter}")
        counter += 1
    os.replace(path, target)
    return target


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``; OSError for anything else or anything bigger.

    Opened non-blocking and checked on the open descriptor, so a FIFO neither blocks the open
    nor can be swapped in between a check and the read.
    """
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
    """What a non-regular file is, in words ("a FIFO", "a directory", ...)."""
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
