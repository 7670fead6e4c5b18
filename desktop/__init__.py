"""Hermes Tray: approve or deny, from a tray icon, the commands a Hermes agent wants to run.

Layers (see docs/contributing.md): ``desktop.core`` is sans-I/O and Qt-free, ``desktop.gateway``
does the asyncio networking without Qt, ``desktop.ui`` is the only package that imports PySide6.
This module stays import-light (standard library only) because every layer imports it.
"""

from __future__ import annotations

__version__ = "0.1.0.dev0"
