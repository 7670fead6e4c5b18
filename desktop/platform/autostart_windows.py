r"""Start at login on Windows: a value under the per-user ``Run`` registry key.

``winreg`` exists only on Windows, so the module is a parameter: tests pass a stand-in.
"""

from __future__ import annotations

import importlib
import subprocess
from collections.abc import Sequence
from typing import Any

from desktop.platform.paths import APP_NAME

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


class RunKeyAutostart:
    r"""Autostart through the value ``value_name`` under ``HKCU\...\Run``."""

    def __init__(self, winreg_module: Any = None, value_name: str = APP_NAME) -> None:
        self._winreg = winreg_module
        self._name = value_name

    def _reg(self) -> Any:
        if self._winreg is None:
            self._winreg = importlib.import_module("winreg")
        return self._winreg

    @property
    def location(self) -> str:
        return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{self._name}"

    def enable(self, command: Sequence[str]) -> None:
        if not command:
            raise ValueError("a Run entry needs a program")
        reg = self._reg()
        with reg.CreateKeyEx(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_SET_VALUE) as key:
            # list2cmdline quotes exactly as the Microsoft C runtime splits (paths with spaces).
            reg.SetValueEx(key, self._name, 0, reg.REG_SZ, subprocess.list2cmdline(command))

    def disable(self) -> None:
        reg = self._reg()
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_SET_VALUE) as key:
                reg.DeleteValue(key, self._name)
        except FileNotFoundError:
            pass  # no key or no value: already disabled

    def is_enabled(self) -> bool:
        reg = self._reg()
        try:
            with reg.OpenKey(reg.HKEY_CURRENT_USER, RUN_KEY, 0, reg.KEY_READ) as key:
                value, kind = reg.QueryValueEx(key, self._name)
        except FileNotFoundError:
            return False
        return kind in (reg.REG_SZ, reg.REG_EXPAND_SZ) and isinstance(value, str) and bool(value)
