"""Where files live, and that the env overrides win."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.platform import paths


@pytest.mark.parametrize(
    ("env", "function"),
    [
        ("HERMES_TRAY_CONFIG_DIR", paths.config_dir),
        ("HERMES_TRAY_DATA_DIR", paths.data_dir),
        ("HERMES_TRAY_LOG_DIR", paths.log_dir),
    ],
)
def test_env_override_wins(
    env: str, function: Callable[[], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(env, str(tmp_path / "x"))
    assert function() == tmp_path / "x"


@pytest.mark.parametrize(
    ("env", "function", "xdg"),
    [
        ("HERMES_TRAY_CONFIG_DIR", paths.config_dir, "XDG_CONFIG_HOME"),
        ("HERMES_TRAY_DATA_DIR", paths.data_dir, "XDG_DATA_HOME"),
        ("HERMES_TRAY_LOG_DIR", paths.log_dir, "XDG_STATE_HOME"),
    ],
)
def test_empty_override_falls_back_to_the_platform_dir(
    env: str,
    function: Callable[[], Path],
    xdg: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(env, "  ")
    monkeypatch.setenv(xdg, str(tmp_path / "xdg"))
    assert function().is_relative_to(tmp_path / "xdg")
    assert "hermes-tray" in function().parts


def test_relative_override_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", "rel")
    assert paths.config_dir() == tmp_path / "rel"


def test_private_dir_is_created_0700(tmp_path: Path) -> None:
    created = paths.ensure_private_dir(tmp_path / "a" / "b")
    assert created.is_dir()
    assert stat.S_IMODE(created.stat().st_mode) == 0o700


def test_app_id_is_reverse_dns() -> None:
    assert paths.APP_ID.count(".") >= 2
    assert paths.APP_ID.split(".")[0] == "io"
