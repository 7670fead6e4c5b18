"""Start at login: one switch, three operating-system mechanisms.

    from desktop.platform import autostart
    autostart.set_enabled(settings.start_at_login)  # after the settings were saved
    autostart.is_enabled()                          # what the OS will actually do

Why the OS, not the settings file, is the truth for :func:`is_enabled`: the person can remove
the entry behind the app's back (GNOME Tweaks, macOS Login Items, Task Manager). The settings
dialog shows what will really happen at the next login.

Backends (each takes its location or registry writer as a parameter, so tests use tmp dirs):

* Linux/BSD -- :class:`~desktop.platform.autostart_xdg.XdgAutostart`
* macOS -- :class:`~desktop.platform.autostart_macos.LaunchAgentAutostart`
* Windows -- :class:`~desktop.platform.autostart_windows.RunKeyAutostart`
"""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from desktop.platform.paths import APP_SLUG

log = logging.getLogger(__name__)


class Autostart(Protocol):
    """One operating system's start-at-login mechanism."""

    @property
    def location(self) -> str:
        """Where the entry lives (a path or a registry value), for messages."""
        ...

    def enable(self, command: Sequence[str]) -> None:
        """Start ``command`` at every login from now on."""
        ...

    def disable(self) -> None:
        """Do not start at login; no error if it was not enabled."""
        ...

    def is_enabled(self) -> bool:
        """Whether the OS will start the app at the next login."""
        ...


def backend_for(platform: str | None = None) -> Autostart:
    """The mechanism for ``platform`` (default ``sys.platform``), at its standard location.

    Only that platform's module is imported: the others cost memory for nothing.
    """
    platform = platform or sys.platform
    if platform == "darwin":
        from desktop.platform.autostart_macos import LaunchAgentAutostart

        return LaunchAgentAutostart()
    if platform == "win32":
        from desktop.platform.autostart_windows import RunKeyAutostart

        return RunKeyAutostart()
    from desktop.platform.autostart_xdg import XdgAutostart

    return XdgAutostart()


def launch_command() -> list[str]:
    """How to start this very installation again, as an argument list.

    A frozen bundle (PyInstaller) restarts its own executable; an installed package its
    ``hermes-tray`` script, by absolute path because a login session's PATH may lack
    ``~/.local/bin``; a bare checkout ``python -m desktop`` with this interpreter.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = shutil.which(APP_SLUG)
    if script:
        return [str(Path(script).absolute())]
    return [sys.executable, "-m", "desktop"]


def enable(command: Sequence[str] | None = None, *, backend: Autostart | None = None) -> None:
    """Start at login (``command`` defaults to :func:`launch_command`)."""
    backend = backend or backend_for()
    backend.enable(list(command) if command else launch_command())
    log.info("Start at login enabled (%s)", backend.location)


def disable(*, backend: Autostart | None = None) -> None:
    """Do not start at login."""
    backend = backend or backend_for()
    backend.disable()
    log.info("Start at login disabled (%s)", backend.location)


def is_enabled(*, backend: Autostart | None = None) -> bool:
    """Whether the app will start at the next login."""
    return (backend or backend_for()).is_enabled()


def set_enabled(
    enabled: bool, command: Sequence[str] | None = None, *, backend: Autostart | None = None
) -> None:
    """Make the OS match ``enabled`` (the settings' ``start_at_login``).

    Enabling rewrites the entry even when one exists, so a moved installation fixes its path.
    """
    if enabled:
        enable(command, backend=backend)
    else:
        disable(backend=backend)
