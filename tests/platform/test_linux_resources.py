"""The Linux desktop files: valid for the real validators, consistent with the code.

The validator tests skip when the tools are missing; ``scripts/test.sh`` installs them
(``apt-get install desktop-file-utils appstream librsvg2-bin``).
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from desktop.platform import desktop_entry
from desktop.platform.autostart import XdgAutostart, autostart_entry
from desktop.platform.paths import APP_ID, APP_SLUG

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "resources" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
AUTOSTART = LINUX / f"{APP_ID}.autostart.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
APP_ICON = ROOT / "resources" / "icons" / "hermes-tray.svg"  # installed as <APP_ID>.svg


# The Debian package of each tool, for the skip message.
PACKAGES = {
    "desktop-file-validate": "desktop-file-utils",
    "appstreamcli": "appstream",
    "rsvg-convert": "librsvg2-bin",
}


def run_tool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which(str(args[0]))
    if tool is None:
        package = PACKAGES.get(str(args[0]), "?")
        pytest.skip(f"{args[0]} is not installed (apt-get install {package})")
    return subprocess.run(
        [tool, *map(str, args[1:])], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("path", [DESKTOP, AUTOSTART], ids=["launcher", "autostart"])
def test_desktop_entries_pass_desktop_file_validate(path: Path) -> None:
    result = run_tool("desktop-file-validate", path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""  # not even a hint


def test_the_entry_the_app_writes_for_an_awkward_path_validates(tmp_path: Path) -> None:
    backend = XdgAutostart(tmp_path, system_dirs=[])
    backend.enable(["/opt/Hermes Tray $1/100%/hermes-tray", "--log-level", "INFO"])
    result = run_tool("desktop-file-validate", backend.path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_metainfo_passes_appstreamcli_validate_offline() -> None:
    result = run_tool("appstreamcli", "validate", "--no-net", METAINFO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation was successful" in result.stdout


def test_autostart_template_is_exactly_what_the_app_writes() -> None:
    assert AUTOSTART.read_text(encoding="utf-8") == autostart_entry([APP_SLUG])


def test_the_app_id_is_used_consistently() -> None:
    launcher = desktop_entry.parse(DESKTOP.read_text(encoding="utf-8"))
    assert launcher["Icon"] == APP_ID
    assert launcher["Exec"] == APP_SLUG
    assert "Utility" in launcher["Categories"].split(";")
    assert launcher["Keywords"].endswith(";")
    component = ET.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == DESKTOP.name
    assert component.findtext("provides/binary") == APP_SLUG
    # bookworm's appstream 0.16 knows <developer_name>; the 1.0 <developer> tag fails there.
    assert component.findtext("developer_name")
    assert component.find("developer") is None
    assert component.find("content_rating") is not None
    assert component.find("releases/release") is not None


def test_app_icon_renders_with_qtsvg(qapp: object) -> None:
    qtsvg = pytest.importorskip("PySide6.QtSvg")
    from PySide6.QtGui import QImage, QPainter

    renderer = qtsvg.QSvgRenderer(str(APP_ICON))
    assert renderer.isValid()
    image = QImage(256, 256, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    opaque = sum(
        image.pixelColor(x, y).alpha() > 0 for x in range(0, 256, 8) for y in range(0, 256, 8)
    )
    assert opaque > 256 // 4  # a real shape, not an empty canvas
    assert image.pixelColor(0, 0).alpha() == 0  # and a transparent background around it


def test_app_icon_renders_with_rsvg_convert(tmp_path: Path) -> None:
    png = tmp_path / "icon.png"
    result = run_tool("rsvg-convert", "-w", "128", "-h", "128", "-o", png, APP_ICON)
    assert result.returncode == 0, result.stderr
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(header[16:20], "big") == 128  # IHDR width
