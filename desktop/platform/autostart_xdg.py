"""Start at login on Linux and BSD desktops: an XDG autostart entry.

``$XDG_CONFIG_HOME/autostart/<app-id>.desktop``. ``disable`` may *write* a file: with a
system-wide entry in ``/etc/xdg/autostart`` deleting the user's copy would re-enable it, so a
user entry with ``Hidden=true`` shadows it, as the spec says.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import platformdirs

from desktop.platform import desktop_entry
from desktop.platform.files import atomic_write_text
from desktop.platform.paths import APP_ID, APP_NAME, APP_SLUG


def autostart_entry(command: Sequence[str], *, hidden: bool = False) -> str:
    """The entry for ``command`` (the shipped one's, for ``hermes-tray``); ``hidden``: off."""
    text = desktop_entry.render(
        [
            ("Type", "Application"),
            ("Name", APP_NAME),
            ("Comment", "Approve or deny the commands your AI agent wants to run"),
            ("Exec", desktop_entry.exec_value(command)),
            ("Icon", APP_ID),
            ("Terminal", "false"),
            ("NoDisplay", "true"),
            ("StartupNotify", "false"),
            ("X-GNOME-Autostart-enabled", "true"),
            # The tray needs the panel's tray host; a short delay lets the panel start first.
            ("X-GNOME-Autostart-Delay", "3"),
            ("X-XFCE-Autostart-Override", "true"),
        ]
    )
    return text + "Hidden=true\n" if hidden else text


def _entry_enabled(path: Path) -> bool:
    try:
        values = desktop_entry.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
    return (
        values.get("Hidden", "false") != "true"
        and values.get("X-GNOME-Autostart-enabled", "true") != "false"
    )


class XdgAutostart:
    def __init__(
        self, config_home: Path | None = None, config_dirs: Sequence[Path] | None = None
    ) -> None:
        xdg = platformdirs.PlatformDirs(multipath=True)  # XDG_CONFIG_HOME/_DIRS, as specified
        self._home = config_home or Path(xdg.user_config_dir)
        system = config_dirs if config_dirs is not None else xdg.site_config_dir.split(os.pathsep)
        self._system = [Path(p) for p in system]

    @property
    def path(self) -> Path:
        return self._home / "autostart" / f"{APP_ID}.desktop"

    @property
    def location(self) -> str:
        return str(self.path)

    def _system_entry(self) -> Path | None:
        candidates = (d / "autostart" / f"{APP_ID}.desktop" for d in self._system)
        return next((p for p in candidates if p.is_file()), None)

    def enable(self, command: Sequence[str]) -> None:
        atomic_write_text(self.path, autostart_entry(command), mode=0o644)

    def disable(self) -> None:
        if self._system_entry() is None:
            self.path.unlink(missing_ok=True)
            return
        atomic_write_text(self.path, autostart_entry([APP_SLUG], hidden=True), mode=0o644)

    def is_enabled(self) -> bool:
        if self.path.is_file():  # the user's entry shadows a system one of the same name
            return _entry_enabled(self.path)
        system = self._system_entry()
        return system is not None and _entry_enabled(system)
