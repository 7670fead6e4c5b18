"""Cheap guards on the packaging files (the real build is too slow for the test suite)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from desktop.platform.paths import APP_ID

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
SCRIPTS = [PACKAGING / "build_pyinstaller.sh", PACKAGING / "smoke.sh"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shell_scripts_parse(script: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    result = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_build_keeps_the_options_the_frozen_app_needs() -> None:
    text = (PACKAGING / "build_pyinstaller.sh").read_text(encoding="utf-8")
    for option in (
        "--onedir",
        "--collect-submodules desktop_notifier",
        "--collect-data desktop_notifier",
        "--collect-submodules desktop ",
        "resources${sep}desktop/resources",
    ):
        assert option in text
    assert "packaging/entry.py" in text  # never desktop/__main__.py (platform shadowing)


def test_smoke_never_uses_the_real_config() -> None:
    text = (PACKAGING / "smoke.sh").read_text(encoding="utf-8")
    for variable in ("HERMES_TRAY_CONFIG_DIR", "HERMES_TRAY_DATA_DIR", "HERMES_TRAY_LOG_DIR"):
        assert f'{variable}="$scratch/' in text
    assert "--smoke" in text


def test_flatpak_manifest_uses_the_app_id() -> None:
    manifest = PACKAGING / "flatpak" / f"{APP_ID}.yml"
    text = manifest.read_text(encoding="utf-8")
    assert re.search(rf"^app-id: {re.escape(APP_ID)}$", text, re.MULTILINE)
    assert "command: hermes-tray" in text
    assert "NOT BUILT" in text  # says plainly that it cannot be built offline


def test_flatpak_pip_generator_line_names_every_runtime_dependency() -> None:
    """The Flatpak's Python wheels come from the generator line in the manifest's header, which
    nobody runs here (it needs the network); a dependency added to pyproject.toml but not there
    would only show up as an ImportError in the sandbox. PySide6 comes from the BaseApp."""
    manifest = (PACKAGING / "flatpak" / f"{APP_ID}.yml").read_text(encoding="utf-8")
    match = re.search(r"--output python3-requirements \\\n#\s+(.+)$", manifest, re.MULTILINE)
    assert match, "the flatpak-pip-generator line is missing"
    listed = set(match.group(1).split())
    with (ROOT / "pyproject.toml").open("rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    names = {re.split(r"[<>=;\s\[]", d, maxsplit=1)[0].lower() for d in dependencies}
    assert names - {"pyside6-essentials"} <= {name.lower() for name in listed}
