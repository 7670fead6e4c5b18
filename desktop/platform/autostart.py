"""Start at login: one switch over three operating-system mechanisms.

The OS, not the settings file, is the truth for :func:`is_enabled`: the person can remove the
entry behind the app's back (GNOME Tweaks, macOS Login Items, Task Manager).
"""

from __future__ import annotations

import importlib
import logging
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from desktop.platform import desktop_entry
from desktop.platform.files import atomic_write_bytes, atomic_write_text
from desktop.platform.paths import APP_ID, APP_NAME, APP_SLUG

log = logging.getLogger(__name__)

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


class Autostart(Protocol):
    """One operating system's start-at-login mechanism (``location`` is for messages)."""

    @property
    def location(self) -> str: ...

    def enable(self, command: Sequence[str]) -> None: ...

    def disable(self) -> None: ...

    def is_enabled(self) -> bool: ...


def backend_for(platform: str | None = None) -> Autostart:
    platform = platform or sys.platform
    if platform == "darwin":
        return LaunchAgentAutostart()
    if platform == "win32":
        return RunKeyAutostart()
    return XdgAutostart()


def launch_command() -> list[str]:
    """This very installation, by absolute path (a login session's PATH may lack it)."""
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


def autostart_entry(command: Sequence[str], *, hidden: bool = False) -> str:
    """The XDG entry for ``command`` (the shipped one's, for ``hermes-tray``); ``hidden``: off."""
    text = desktop_entry.render(
        [
            ("Type", "Application"),
            ("Name", APP_NAME),
            ("Comment", desktop_entry.COMMENT),
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


class XdgAutostart(desktop_entry.XdgEntry):
    """``disable`` writes ``Hidden=true`` where deleting would re-enable a system-wide entry."""

    folder = "autostart"
    config = True

    @property
    def location(self) -> str:
        return str(self.path)

    def enable(self, command: Sequence[str]) -> None:
        atomic_write_text(self.path, autostart_entry(command), mode=0o644)

    def disable(self) -> None:
        if self.system_entry() is None:
            self.path.unlink(missing_ok=True)
            return
        atomic_write_text(self.path, autostart_entry([APP_SLUG], hidden=True), mode=0o644)

    def is_enabled(self) -> bool:
        if self.path.is_file():  # the user's entry shadows a system one of the same name
            return _entry_enabled(self.path)
        system = self.system_entry()
        return system is not None and _entry_enabled(system)


def launch_agent(command: Sequence[str]) -> bytes:
    if not command:
        raise ValueError("a LaunchAgent needs a program")
    import plistlib

    return plistlib.dumps(
        {
            "Label": APP_ID,
            "ProgramArguments": list(command),
            "RunAtLoad": True,
            "KeepAlive": False,  # quitting from the menu must stay quit
            "ProcessType": "Interactive",
            "LimitLoadToSessionType": "Aqua",  # only in a graphical login, not over ssh
        }
    )


class LaunchAgentAutostart:
    """A plist: not ``launchctl`` (it starts a second copy now) nor ``SMAppService`` (signing)."""

    def __init__(self, agents_dir: Path | None = None) -> None:
        self._dir = agents_dir or Path.home() / "Library" / "LaunchAgents"

    @property
    def path(self) -> Path:
        return self._dir / f"{APP_ID}.plist"

    @property
    def location(self) -> str:
        return str(self.path)

    def enable(self, command: Sequence[str]) -> None:
        atomic_write_bytes(self.path, launch_agent(command), mode=0o644)

    def disable(self) -> None:
        self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        import plistlib

        try:
            data = plistlib.loads(self.path.read_bytes())
        except (OSError, plistlib.InvalidFileException, ValueError):
            return False
        return (
            isinstance(data, dict)
            and data.get("RunAtLoad") is True
            and data.get("Disabled") is not True
        )


class RunKeyAutostart:
    r"""Windows: the value ``Hermes Tray`` under ``HKCU\...\Run`` (tests pass a ``winreg``)."""

    def __init__(self, winreg_module: Any = None) -> None:
        self._winreg = winreg_module

    def _reg(self) -> Any:
        if self._winreg is None:
            self._winreg = importlib.import_module("winreg")
        return self._winreg

    @property
    def location(self) -> str:
        return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{APP_NAME}"

    def enable(self, command: Sequence[str]) -> None:
        if not command:
            raise ValueError("a Run entry needs a program")
        import subprocess

        reg = self._reg()
        with reg.CreateKeyEx(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_SET_VALUE) as key:
            # list2cmdline quotes exactly as the Microsoft C runtime splits (paths with spaces).
            reg.SetValueEx(key, APP_NAME, 0, reg.REG_SZ, subprocess.list2cmdline(command))

    def disable(self) -> None:
        reg = self._reg()
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_SET_VALUE) as key:
                reg.DeleteValue(key, APP_NAME)
        except FileNotFoundError:
            pass  # no key or no value: already disabled

    def is_enabled(self) -> bool:
        reg = self._reg()
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_READ) as key:
                value, kind = reg.QueryValueEx(key, APP_NAME)
        except FileNotFoundError:
            return False
        return kind in (reg.REG_SZ, reg.REG_EXPAND_SZ) and isinstance(value, str) and bool(value)
