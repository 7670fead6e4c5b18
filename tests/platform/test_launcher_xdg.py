"""The user's desktop entry: the shipped one for ``hermes-tray``, an absolute Exec for a venv."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.platform import desktop_entry
from desktop.platform.desktop_entry import XdgLauncher, application_entry
from desktop.platform.paths import APP_ID, APP_SLUG
from tests.platform.exec_line import split_exec

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "resources" / "linux" / f"{APP_ID}.desktop"
ICON = ROOT / "resources" / "icons" / "hermes-tray.svg"


def test_the_shipped_entry_is_exactly_what_the_app_writes_for_its_script() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == application_entry([APP_SLUG])


def test_install_writes_an_absolute_exec_and_the_icon_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FLATPAK_ID", raising=False)
    launcher = XdgLauncher(tmp_path / "home", system_dirs=[tmp_path / "system"])
    command = ["/home/a b/.venv/bin/python", "-m", "desktop"]
    assert launcher.install(command, ICON) is True
    values = desktop_entry.parse(launcher.path.read_text(encoding="utf-8"))
    assert split_exec(values["Exec"]) == command
    assert values["Icon"] == APP_ID
    assert launcher.icon_path.read_bytes() == ICON.read_bytes()
    assert launcher.path.stat().st_mode & 0o777 == 0o644
    assert launcher.install(command, ICON) is False  # unchanged: nothing rewritten
    assert launcher.install(["/elsewhere/hermes-tray"], ICON) is True  # moved: fixed


def test_a_system_wide_entry_or_a_flatpak_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FLATPAK_ID", raising=False)
    system = tmp_path / "system"
    (system / "applications").mkdir(parents=True)
    (system / "applications" / f"{APP_ID}.desktop").write_text(application_entry([APP_SLUG]))
    launcher = XdgLauncher(tmp_path / "home", system_dirs=[system])
    assert launcher.install(["/x/hermes-tray"], ICON) is False
    assert not launcher.path.exists()
    monkeypatch.setenv("FLATPAK_ID", APP_ID)
    assert XdgLauncher(tmp_path / "home2", system_dirs=[]).install(["/x"], ICON) is False
