r"""Start at login on Windows: a value under the per-user ``Run`` registry key.

The registry is behind ``RegistryWriter`` because ``winreg`` exists only on Windows: the logic
is tested anywhere with an in-memory writer, :class:`WinregRunKey` with a stand-in module.
"""

from __future__ import annotations

import importlib
import subprocess
from collections.abc import Sequence
from typing import Any, Protocol

from desktop.platform.paths import APP_NAME

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


class RegistryWriter(Protocol):
    """String values of one registry key; ``delete`` of a missing value is no error."""

    def read(self, name: str) -> str | None: ...

    def write(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


class WinregRunKey:
    r""":class:`RegistryWriter` on ``HKCU\...\Run`` through the standard ``winreg`` module."""

    def __init__(self, subkey: str = RUN_KEY, winreg_module: Any = None) -> None:
        self._subkey = subkey
        self._winreg = winreg_module or importlib.import_module("winreg")

    def read(self, name: str) -> str | None:
        reg = self._winreg
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, self._subkey, 0, reg.KEY_READ) as key:
                value, kind = reg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return value if kind in (reg.REG_SZ, reg.REG_EXPAND_SZ) and isinstance(value, str) else None

    def write(self, name: str, value: str) -> None:
        reg = self._winreg
        with reg.CreateKeyEx(reg.HKEY_CURRENT_USER, self._subkey, 0, reg.KEY_SET_VALUE) as key:
            reg.SetValueEx(key, name, 0, reg.REG_SZ, value)

    def delete(self, name: str) -> None:
        reg = self._winreg
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, self._subkey, 0, reg.KEY_SET_VALUE) as key:
                reg.DeleteValue(key, name)
        except FileNotFoundError:
            pass  # no key or no value: already disabled


class RunKeyAutostart:
    """Autostart through a ``Run`` key value (default writer: :class:`WinregRunKey`)."""

    def __init__(self, registry: RegistryWriter | None = None, value_name: str = APP_NAME) -> None:
        self._registry = registry
        self._name = value_name

    def _writer(self) -> RegistryWriter:
        if self._registry is None:
            self._registry = WinregRunKey()
        return self._registry

    @property
    def location(self) -> str:
        return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{self._name}"

    def enable(self, command: Sequence[str]) -> None:
        if not command:
            raise ValueError("a Run entry needs a program")
        # list2cmdline quotes exactly as the Microsoft C runtime splits (paths with spaces).
        self._writer().write(self._name, subprocess.list2cmdline(list(command)))

    def disable(self) -> None:
        self._writer().delete(self._name)

    def is_enabled(self) -> bool:
        return bool(self._writer().read(self._name))
