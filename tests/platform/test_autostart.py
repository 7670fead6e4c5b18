"""Start at login on all three systems, with tmp dirs and injected registry writers."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.platform import autostart, desktop_entry
from desktop.platform.autostart import RUN_KEY, LaunchAgentAutostart, RunKeyAutostart, XdgAutostart
from tests.platform.exec_line import split_exec

APP_ID = "io.github.hermes_tray.HermesTray"
COMMAND = ["/opt/Hermes Tray/hermes-tray", "--log-level", "INFO"]


# -- Linux / BSD: XDG autostart -------------------------------------------------------------


def test_xdg_enable_writes_an_entry_that_runs_the_command(tmp_path: Path) -> None:
    backend = XdgAutostart(tmp_path / "config", system_dirs=[])
    assert backend.is_enabled() is False
    autostart.set_enabled(True, COMMAND, backend=backend)
    path = tmp_path / "config" / "autostart" / f"{APP_ID}.desktop"
    assert backend.path == path
    values = desktop_entry.parse(path.read_text(encoding="utf-8"))
    assert split_exec(values["Exec"]) == COMMAND
    assert values["Type"] == "Application"
    assert values["Icon"] == APP_ID
    assert autostart.is_enabled(backend=backend) is True


def test_xdg_disable_removes_the_entry_and_tolerates_repeats(tmp_path: Path) -> None:
    backend = XdgAutostart(tmp_path, system_dirs=[])
    autostart.set_enabled(True, COMMAND, backend=backend)
    autostart.set_enabled(False, backend=backend)
    autostart.set_enabled(False, backend=backend)
    assert not backend.path.exists()
    assert backend.is_enabled() is False


def test_xdg_default_location_honours_xdg_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert XdgAutostart().path == tmp_path / "xdg" / "autostart" / f"{APP_ID}.desktop"


def test_xdg_relative_config_home_is_ignored_as_the_spec_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert XdgAutostart().path == tmp_path / ".config" / "autostart" / f"{APP_ID}.desktop"


def test_xdg_disable_shadows_a_system_wide_entry(tmp_path: Path) -> None:
    system = tmp_path / "etc-xdg"
    (system / "autostart").mkdir(parents=True)
    (system / "autostart" / f"{APP_ID}.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Hermes Tray\nExec=hermes-tray\n"
    )
    backend = XdgAutostart(tmp_path / "home", system_dirs=[system])
    assert backend.is_enabled() is True  # the packaged entry starts it
    backend.disable()
    assert desktop_entry.parse(backend.path.read_text())["Hidden"] == "true"
    assert backend.is_enabled() is False
    backend.enable(COMMAND)
    assert backend.is_enabled() is True


def test_xdg_entry_switched_off_by_the_desktop_counts_as_disabled(tmp_path: Path) -> None:
    backend = XdgAutostart(tmp_path, system_dirs=[])
    backend.enable(COMMAND)
    text = backend.path.read_text().replace(
        "X-GNOME-Autostart-enabled=true", "X-GNOME-Autostart-enabled=false"
    )
    backend.path.write_text(text)
    assert backend.is_enabled() is False


# -- macOS: LaunchAgent ---------------------------------------------------------------------


def test_launch_agent_round_trip(tmp_path: Path) -> None:
    backend = LaunchAgentAutostart(tmp_path / "LaunchAgents")
    assert backend.is_enabled() is False
    autostart.set_enabled(True, COMMAND, backend=backend)
    assert backend.path == tmp_path / "LaunchAgents" / f"{APP_ID}.plist"
    data = plistlib.loads(backend.path.read_bytes())
    assert data["Label"] == APP_ID
    assert data["ProgramArguments"] == COMMAND
    assert data["RunAtLoad"] is True
    assert data["KeepAlive"] is False
    assert backend.is_enabled() is True
    autostart.set_enabled(False, backend=backend)
    assert not backend.path.exists()
    assert backend.is_enabled() is False


def test_launch_agent_disabled_key_or_garbage_counts_as_disabled(tmp_path: Path) -> None:
    backend = LaunchAgentAutostart(tmp_path)
    backend.enable(COMMAND)
    data = plistlib.loads(backend.path.read_bytes())
    backend.path.write_bytes(plistlib.dumps({**data, "Disabled": True}))
    assert backend.is_enabled() is False
    backend.path.write_bytes(b"not a plist")
    assert backend.is_enabled() is False


# -- Windows: Run key -----------------------------------------------------------------------


class FakeKey:
    def __init__(self, store: dict[str, dict[str, tuple[Any, int]]], path: str) -> None:
        self.values = store.setdefault(path, {})

    def __enter__(self) -> FakeKey:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class FakeWinreg:
    """Just enough of the ``winreg`` module's surface, with its error behaviour."""

    HKEY_CURRENT_USER = "HKCU"
    KEY_READ, KEY_SET_VALUE = 1, 2
    REG_SZ, REG_EXPAND_SZ, REG_DWORD = 1, 2, 4

    def __init__(self) -> None:
        self.keys: dict[str, dict[str, tuple[Any, int]]] = {}
        self.calls: list[tuple[str, str]] = []

    def OpenKey(self, root: str, sub: str, reserved: int, access: int) -> FakeKey:  # noqa: N802
        self.calls.append(("open", f"{root}\\{sub}"))
        if f"{root}\\{sub}" not in self.keys:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        return FakeKey(self.keys, f"{root}\\{sub}")

    def CreateKeyEx(self, root: str, sub: str, reserved: int, access: int) -> FakeKey:  # noqa: N802
        self.calls.append(("create", f"{root}\\{sub}"))
        return FakeKey(self.keys, f"{root}\\{sub}")

    def QueryValueEx(self, key: FakeKey, name: str) -> tuple[Any, int]:  # noqa: N802
        if name not in key.values:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        return key.values[name]

    def SetValueEx(self, key: FakeKey, name: str, reserved: int, kind: int, value: Any) -> None:  # noqa: N802
        key.values[name] = (value, kind)

    def DeleteValue(self, key: FakeKey, name: str) -> None:  # noqa: N802
        if name not in key.values:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        del key.values[name]


def test_run_key_stores_a_quoted_command_line_in_the_current_users_run_key() -> None:
    fake = FakeWinreg()
    backend = RunKeyAutostart(winreg_module=fake)
    assert backend.is_enabled() is False  # no Run key at all yet
    backend.disable()  # nothing to delete: no error
    backend.enable([r"C:\Program Files\Hermes Tray\hermes-tray.exe", "--log-level", "INFO"])
    assert fake.keys == {
        f"HKCU\\{RUN_KEY}": {
            "Hermes Tray": (r'"C:\Program Files\Hermes Tray\hermes-tray.exe" --log-level INFO', 1)
        }
    }
    assert backend.is_enabled() is True
    assert backend.location.endswith(r"CurrentVersion\Run\Hermes Tray")
    backend.disable()
    backend.disable()
    assert fake.keys == {f"HKCU\\{RUN_KEY}": {}}
    assert backend.is_enabled() is False
    assert {path for _, path in fake.calls} == {f"HKCU\\{RUN_KEY}"}


def test_run_key_ignores_a_value_of_the_wrong_type() -> None:
    fake = FakeWinreg()
    fake.keys[f"HKCU\\{RUN_KEY}"] = {"Hermes Tray": (1, fake.REG_DWORD)}
    assert RunKeyAutostart(winreg_module=fake).is_enabled() is False


# -- choosing a backend, and what to launch ---------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "kind"),
    [("linux", XdgAutostart), ("freebsd14", XdgAutostart), ("darwin", LaunchAgentAutostart)],
)
def test_backend_for_each_platform(platform: str, kind: type) -> None:
    assert isinstance(autostart.backend_for(platform), kind)


def test_backend_for_windows_without_winreg_fails_only_when_used() -> None:
    backend = autostart.backend_for("win32")
    assert isinstance(backend, RunKeyAutostart)
    if sys.platform != "win32":
        with pytest.raises(ModuleNotFoundError, match="winreg"):
            backend.is_enabled()


def test_default_backend_writes_under_the_test_config_home(isolated_env: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG backend is the default on Linux only")
    autostart.set_enabled(True, COMMAND)
    assert autostart.is_enabled() is True
    assert autostart.backend_for().location.startswith(str(isolated_env))


def test_launch_command_prefers_a_frozen_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/hermes-tray/hermes-tray")
    assert autostart.launch_command() == ["/opt/hermes-tray/hermes-tray"]


def test_launch_command_uses_the_installed_script_by_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bin" / "hermes-tray"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(script.parent))
    assert autostart.launch_command() == [str(script)]


def test_launch_command_falls_back_to_this_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert autostart.launch_command() == [sys.executable, "-m", "desktop"]


def test_enable_without_a_command_uses_launch_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    backend = XdgAutostart(tmp_path, system_dirs=[])
    autostart.set_enabled(True, backend=backend)
    exec_value = desktop_entry.parse(backend.path.read_text())["Exec"]
    assert split_exec(exec_value) == [sys.executable, "-m", "desktop"]
