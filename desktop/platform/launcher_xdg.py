"""The app's desktop entry and icon, installed for the user, so the shell knows its name.

The app tells the desktop its id (``setDesktopFileName``, the notifications' ``desktop-entry``
hint); with no entry of that id GNOME shows the raw id, and Plasma and GNOME have nothing to hang
per-app notification settings on. A pip or ``.venv`` install has none, so at start the app
writes one with an absolute ``Exec`` (this very installation) and the icon, each only when it
differs; never when a system-wide entry exists or inside a Flatpak. The shipped
``resources/linux`` entry is :func:`application_entry` for ``["hermes-tray"]``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import platformdirs

from desktop.platform import desktop_entry
from desktop.platform.files import atomic_write_bytes
from desktop.platform.paths import APP_ID, APP_NAME

log = logging.getLogger(__name__)

COMMENT = "Approve or deny the commands your AI agent wants to run"


def application_entry(command: Sequence[str]) -> str:
    """The launcher entry for ``command``."""
    return desktop_entry.render(
        [
            ("Type", "Application"),
            ("Name", APP_NAME),
            ("GenericName", "Agent Command Approvals"),
            ("Comment", COMMENT),
            ("Exec", desktop_entry.exec_value(command)),
            ("TryExec", desktop_entry.escape_value(command[0])),
            ("Icon", APP_ID),
            ("Terminal", "false"),
            ("StartupNotify", "false"),
            ("Categories", "Utility;"),
            ("Keywords", "AI;agent;Hermes;approve;deny;approval;terminal;command;tray;"),
            ("X-GNOME-UsesNotifications", "true"),
        ]
    )


class XdgLauncher:
    """The user's copy of the desktop entry and its icon (paths given in tests)."""

    def __init__(self, data_home: Path | None = None, data_dirs: Sequence[Path] | None = None):
        xdg = platformdirs.PlatformDirs(multipath=True)  # XDG_DATA_HOME/_DIRS, as specified
        self._home = data_home or Path(xdg.user_data_dir)
        system = data_dirs if data_dirs is not None else xdg.site_data_dir.split(os.pathsep)
        self._system = [Path(p) for p in system]

    @property
    def entry_path(self) -> Path:
        return self._home / "applications" / f"{APP_ID}.desktop"

    @property
    def icon_path(self) -> Path:
        return self._home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"

    def system_entry(self) -> Path | None:
        candidates = (d / "applications" / f"{APP_ID}.desktop" for d in self._system)
        return next((p for p in candidates if p.is_file()), None)

    def install(self, command: Sequence[str], icon_svg: Path) -> bool:
        """Write the entry and the icon where they differ; True when anything was written."""
        if os.environ.get("FLATPAK_ID") or self.system_entry() is not None:
            return False
        wrote = _write_if_changed(self.entry_path, application_entry(command).encode())
        try:
            icon = icon_svg.read_bytes()
        except OSError as error:
            log.warning("app icon %s not readable: %s", icon_svg, error)
            return wrote
        return _write_if_changed(self.icon_path, icon) or wrote


def _write_if_changed(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass  # not there yet (or unreadable): write it
    atomic_write_bytes(path, data, mode=0o644)
    return True
