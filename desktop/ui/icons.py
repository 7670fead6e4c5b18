"""Tray and menu icons: the state SVGs from ``resources/icons`` plus a painted approval count.

The count must read at 16-24 px, so it is a badge painted over the state icon at each size.
States differ in shape as well as colour (colour-blind people, monochrome panels). The tray sizes
load PNGs pre-rendered by ``render_svg`` (``scripts/render_tray_icons.py``): QtSvg and the raster
engine would cost 3.5 MiB all day only to draw two icons.

``show_first_icon`` shows the icon before the rest of the app is imported (which takes longer than
Python and Qt together), with its empty menu: a StatusNotifierItem host reads the menu's D-Bus
path when the icon registers.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.platform.paths import APP_NAME

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgRenderer

TRAY_SIZES = (16, 22, 24, 32, 48, 64)
BADGE_FILL = "#b71c1c"
LEVEL_COLOURS = {"ok": "#2e9d57", "high": "#f0a000", "critical": "#d32f2f"}
PNG_FOLDER = "png"


def icon_dir() -> Path:
    """``icons`` under the resources: of a PyInstaller bundle, the wheel, or the source tree."""
    bundle = getattr(sys, "_MEIPASS", None)
    candidates = [Path(bundle) / "resources" / "icons"] if bundle else []
    here = Path(__file__).resolve()
    candidates += [here.parents[1] / "resources" / "icons", here.parents[2] / "resources" / "icons"]
    return next((c for c in candidates if c.is_dir()), candidates[-1])


def png_path(name: str, size: int) -> Path:
    return icon_dir() / PNG_FOLDER / f"{name}-{size}.png"


@lru_cache(maxsize=16)
def _renderer(name: str) -> QSvgRenderer:
    from PySide6.QtSvg import QSvgRenderer  # only when an SVG is really rendered

    path = icon_dir() / f"{name}.svg"
    renderer = QSvgRenderer(str(path))
    if not renderer.isValid():
        raise FileNotFoundError(f"tray icon {path} is missing or not valid SVG")
    return renderer


@contextmanager
def _painting(pixmap: QPixmap) -> Iterator[QPainter]:
    from PySide6.QtGui import QPainter

    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    try:
        yield painter
    finally:
        painter.end()


def render_svg(name: str, size: int) -> QPixmap:
    """The state icon ``name`` rendered from its SVG at ``size`` px (what the PNGs hold)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    with _painting(pixmap) as painter:
        _renderer(name).render(painter, QRectF(0, 0, size, size))
    return pixmap


def _state_pixmap(name: str, size: int) -> QPixmap:
    path = png_path(name, size)
    if size in TRAY_SIZES and path.is_file():
        pixmap = QPixmap(str(path))
        if not pixmap.isNull() and pixmap.width() == size:
            return pixmap
    return render_svg(name, size)


SMALL_BADGE_UP_TO = 22  # px: sizes a panel draws at, where the count must still read


def badge_text(count: int) -> str:
    return str(count) if count < 10 else "9+"


def render_pixmap(name: str, size: int, count: int = 0) -> QPixmap:
    pixmap = _state_pixmap(name, size)
    if count > 0:
        pixmap = pixmap.copy()  # never paint over a pixmap shared with a cached icon
        with _painting(pixmap) as painter:
            _paint_badge(painter, size, badge_text(count))
    return pixmap


def _paint_badge(painter: QPainter, size: int, text: str) -> None:
    from PySide6.QtGui import QColor, QFont, QPen

    # At panel sizes (GNOME draws 16 px) the badge takes most of the icon, so the count reads.
    small = size <= SMALL_BADGE_UP_TO
    diameter = size * (0.84 if small else 0.7 if len(text) > 1 else 0.6)
    rect = QRectF(size - diameter, size - diameter, diameter, diameter)
    painter.setPen(QPen(QColor("white"), max(1.0, size / 22)))
    painter.setBrush(QColor(BADGE_FILL))
    painter.drawEllipse(rect.adjusted(0.5, 0.5, -0.5, -0.5))
    font = QFont()
    font.setBold(True)
    share = (0.66 if small else 0.62) if len(text) > 1 else (0.86 if small else 0.72)
    font.setPixelSize(max(7, round(diameter * share)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def tray_icon(name: str, count: int = 0) -> QIcon:
    return _tray_icon(name, min(max(count, 0), 10))  # 10 and more all read "9+"


@lru_cache(maxsize=64)
def _tray_icon(name: str, count: int) -> QIcon:
    icon = QIcon()
    for size in TRAY_SIZES:
        icon.addPixmap(render_pixmap(name, size, count))
    return icon


@lru_cache(maxsize=1)
def app_icon() -> QIcon:
    return _tray_icon("hermes-tray", 0)


@lru_cache(maxsize=8)
def level_icon(level: str, size: int = 16) -> QIcon:
    """A coloured dot for a level ('ok', 'high', 'critical'): menu text itself has no colour."""
    from PySide6.QtGui import QColor

    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    with _painting(pixmap) as painter:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(LEVEL_COLOURS[level]))
        painter.drawEllipse(QRectF(2, 2, size - 4, size - 4))
    return QIcon(pixmap)


def show_first_icon() -> QSystemTrayIcon:
    tray = QSystemTrayIcon(tray_icon("disconnected"))
    tray.setToolTip(f"{APP_NAME}: starting")
    tray.setContextMenu(QMenu())  # Qt owns it now; the tray controller deletes it
    tray.show()
    return tray
