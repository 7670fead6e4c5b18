"""One boolean from the user's dconf database, read from its file (GNOME's settings).

Why the file: dconf's D-Bus service only writes; every GSettings client reads the database file
(GVDB) itself and follows ``ca.desrt.dconf.Writer.Notify`` on the session bus. The Settings
portal is no way round: Debian 12's (xdg-desktop-portal-gtk 1.14 behind GNOME Shell 43.9) serves
a fixed list of namespaces without ``org.gnome.desktop.notifications`` and answers NotFound.

The layout is GLib's gvdb-format.h, little-endian as dconf writes it on x86 and ARM. Items are
scanned, not hashed: a database holds a few hundred at most. A file that is damaged, hostile or
big-endian gives None, never an exception.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

MAX_SIZE = 8 * 1024 * 1024  # a dconf database is kilobytes; anything this big is not one
SIGNATURE = b"GVariant"
HEADER = struct.Struct("<8sIIII")  # signature, version, options, root start, root end
ITEM = struct.Struct("<IIIHcxII")  # hash, parent, key start, key size, type, -, value start, end
NO_PARENT = 0xFFFFFFFF
BOOLEANS = {b"\x00\x00b": False, b"\x01\x00b": True}


def user_database() -> Path:
    """Where dconf keeps the user's settings (the "user" database of the default profile)."""
    config = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"
    return base / "dconf" / "user"


def read_bool(key: str, path: Path | None = None) -> bool | None:
    """None when ``key`` is not set (the schema's default applies) or cannot be read."""
    try:
        with open(path or user_database(), "rb") as file:
            data = file.read(MAX_SIZE + 1)
    except OSError:
        return None
    if len(data) > MAX_SIZE:
        return None
    try:
        return _find_bool(data, key)
    except (struct.error, IndexError, UnicodeDecodeError, RecursionError):
        return None


def _find_bool(data: bytes, key: str) -> bool | None:
    signature, _version, _options, start, end = HEADER.unpack_from(data)
    if signature != SIGNATURE or not HEADER.size <= start <= end <= len(data):
        return None
    bloom, buckets = struct.unpack_from("<II", data, start)
    first = start + 8 + 4 * (bloom & 0x07FFFFFF) + 4 * buckets
    items = [ITEM.unpack_from(data, at) for at in range(first, end - ITEM.size + 1, ITEM.size)]

    def name(index: int, depth: int = 0) -> str:
        if depth > len(items):
            raise RecursionError("a loop of parents")
        _hash, parent, key_start, key_size, _kind, _start, _end = items[index]
        own = _span(data, key_start, key_start + key_size).decode()
        return own if parent == NO_PARENT else name(parent, depth + 1) + own

    for index, (_hash, _parent, _key, _size, kind, value_start, value_end) in enumerate(items):
        if kind == b"v" and name(index) == key:
            return BOOLEANS.get(_span(data, value_start, value_end))
    return None


def _span(data: bytes, start: int, end: int) -> bytes:
    if not 0 <= start <= end <= len(data):
        raise IndexError("outside the file")
    return data[start:end]
