"""The pre-rendered tray PNGs are what the SVGs render to (so the icons look the same).

Why a test: the app loads ``resources/icons/png`` instead of rendering SVG at start-up (memory,
see desktop/ui/icons.py). An SVG edited without re-running ``scripts/render_tray_icons.py``, or
a PySide6 upgrade that renders differently, would otherwise leave stale icons behind.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage, QPixmap

from desktop.ui import icons

STATES = sorted(p.stem for p in icons.icon_dir().glob("*.svg"))
HINT = "re-run: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/render_tray_icons.py"


def _image(pixmap: QPixmap) -> QImage:
    return pixmap.toImage().convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)


def _looks_the_same(a: QImage, b: QImage) -> bool:
    """Equal but for anti-aliasing: a PySide6 release (CI installs the newest) may round an
    edge pixel differently, which no person sees; a changed shape or colour moves far more."""
    if a.size() != b.size():
        return False
    x, y = bytes(a.constBits()), bytes(b.constBits())
    differences = [abs(p - q) for p, q in zip(x, y, strict=True)]
    return max(differences) <= 48 and sum(differences) / len(differences) <= 1.0


@pytest.mark.parametrize("name", STATES)
def test_every_state_has_a_png_per_tray_size_equal_to_its_svg(qapp, name):
    for size in icons.TRAY_SIZES:
        path = icons.png_path(name, size)
        assert path.is_file(), f"{path} is missing; {HINT}"
        loaded = QPixmap(str(path))
        assert (loaded.width(), loaded.height()) == (size, size)
        rendered = _image(icons.render_svg(name, size))
        assert _looks_the_same(_image(loaded), rendered), f"{path} is stale; {HINT}"


def test_no_png_without_its_svg():
    pngs = {p.name for p in (icons.icon_dir() / icons.PNG_FOLDER).glob("*.png")}
    assert pngs == {f"{n}-{s}.png" for n in STATES for s in icons.TRAY_SIZES}


def test_other_sizes_and_badges_still_render(qapp):
    assert _image(icons.render_pixmap("idle", 96)) == _image(icons.render_svg("idle", 96))
    plain = icons.render_pixmap("waiting", 22)
    counted = icons.render_pixmap("waiting", 22, 3)
    assert _image(plain) != _image(counted)
    assert _image(icons.render_pixmap("waiting", 22)) == _image(plain)  # the badge did not leak


def test_icons_are_cached_per_state_and_badge(qapp):
    assert icons.tray_icon("idle") is icons.tray_icon("idle", 0)
    assert icons.tray_icon("waiting", 12) is icons.tray_icon("waiting", 10)  # both read "9+"
    assert icons.tray_icon("waiting", 3) is not icons.tray_icon("waiting", 4)
    assert icons.app_icon() is icons.app_icon()
