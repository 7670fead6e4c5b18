"""Hermes Tray: approve or deny, from a tray icon, the commands a Hermes agent wants to run.

The layers are in docs/contributing.md; every one imports this module, so it imports nothing.
"""

from __future__ import annotations

__version__ = "0.1.0.dev0"
