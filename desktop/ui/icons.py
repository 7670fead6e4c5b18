"""Tray and menu icons: the state SVGs from ``resources/icons`` plus a painted approval count.

Why paint the count at run time: the number changes every few seconds and must stay legible at
16-24 px, so one SVG per state is rendered into several pixmap sizes and a badge is drawn with
QPainter on top (a tray host picks the size it needs). States differ in shape as well as colour
(ring+slash, dashed ring, disc+check, square+dots, bubble+?, triangle+!, octagon+x), so they
read for colour-blind people and on monochrome panels too.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer

TRAY_SIZES = (16, 22, 24, 32, 48, 64)
BADGE_FILL = QColor("#b71c1c")
LEVEL_COLOURS = {"ok": "#2e9d57", "high": "#f0a000", "critical": "#d32f2f"}


def icon_dir() -> Path:
    """``icons`` under the resources shipped with the app.

    Looked up in order: a PyInstaller bundle, the wheel (setup.py maps ``resources/`` to
    ``desktop/resources/``), then the source tree's top-level ``resources/``.
    """
    bundle = getattr(sys, "_MEIPASS", None)
    candidates = [Path(bundle) / "resources" / "icons"] if bundle else []
    here = Path(__file__).resolve()
    candidates += [here.parents[1] / "resources" / "icons", here.parents[2] / "resources" / "icons"]
    return next((c for c in candidates if c.is_dir()), candidates[-1])


@lru_cache(maxsize=16)
def _renderer(name: str) -> QSvgRenderer:
    path = icon_dir() / f"{name}.svg"
    renderer = QSvgRenderer(str(path))
    if not renderer.isValid():
        raise FileNotFoundError(f"tray icon {path} is missing or not valid SVG")
    return renderer


def badge_text(count: int) -> str:
    return str(count) if count < 10 else "9+"


def render_pixmap(name: str, size: int, count: int = 0) -> QPixmap:
    """The state icon ``name`` at ``size`` px, with ``count`` drawn as a badge when > 0."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        _renderer(name).render(painter, QRectF(0, 0, size, size))
        if count > 0:
            _paint_badge(painter, size, badge_text(count))
    finally:
        painter.end()
    return pixmap


def _paint_badge(painter: QPainter, size: int, text: str) -> None:
    diameter = size * (0.7 if len(text) > 1 else 0.6)
    rect = QRectF(size - diameter, size - diameter, diameter, diameter)
    painter.setPen(QPen(QColor("white"), max(1.0, size / 22)))
    painter.setBrush(BADGE_FILL)
    painter.drawEllipse(rect.adjusted(0.5, 0.5, -0.5, -0.5))
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(7, round(diameter * (0.62 if len(text) > 1 else 0.72))))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def tray_icon(name: str, count: int = 0) -> QIcon:
    """A multi-size QIcon for the tray: state ``name`` with the approval ``count``."""
    icon = QIcon()
    for size in TRAY_SIZES:
        icon.addPixmap(render_pixmap(name, size, count))
    return icon


def app_icon() -> QIcon:
    icon = QIcon()
    for size in TRAY_SIZES:
        icon.addPixmap(render_pixmap("hermes-tray", size))
    return icon


def level_icon(level: str, size: int = 16) -> QIcon:
    """A coloured dot for a level ('ok', 'high', 'critical'): menu text itself has no colour."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(LEVEL_COLOURS[level]))
        painter.drawEllipse(QRectF(2, 2, size - 4, size - 4))
    finally:
        painter.end()
    return QIcon(pixmap)
