"""Start at login: one switch over three operating-system mechanisms.

The OS, not the settings file, is the truth for :func:`is_enabled`: the person can remove the
entry behind the app's back (GNOME Tweaks, macOS Login Items, Task Manager), and the settings
dialog shows what will really happen at the next login.
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
    """One operating system's start-at-login mechanism (``location`` is for messages)."""

    @property
    def location(self) -> str: ...

    def enable(self, command: Sequence[str]) -> None: ...

    def disable(self) -> None: ...

    def is_enabled(self) -> bool: ...


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
    """How to start this very installation again.

    A frozen bundle restarts its executable; an installed package its ``hermes-tray`` script by
    absolute path (a login session's PATH may lack ``~/.local/bin``); a checkout
    ``python -m desktop`` with this interpreter.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = shutil.which(APP_SLUG)
    if script:
        return [str(Path(script).absolute())]
    return [sys.executable, "-m", "desktop"]


def is_enabled(*, backend: Autostart | None = None) -> bool:
    return (backend or backend_for()).is_enabled()


def set_enabled(
    enabled: bool, command: Sequence[str] | None = None, *, backend: Autostart | None = None
) -> None:
    """Make the OS match ``enabled``; enabling rewrites the entry, so a moved install is fixed."""
    backend = backend or backend_for()
    if enabled:
        backend.enable(list(command) if command else launch_command())
    else:
        backend.disable()
    log.info("Start at login %s (%s)", "enabled" if enabled else "disabled", backend.location)
