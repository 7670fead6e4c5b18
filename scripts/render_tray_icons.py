"""Write resources/icons/png/<state>-<size>.png: every state SVG rendered at the tray sizes.

Why: the app loads these instead of rendering SVG at start-up (see desktop/ui/icons.py, which
also does the rendering here, so the PNGs are exactly what the app would draw). Run it after
changing an SVG or upgrading PySide6; tests/ui/test_icon_pngs.py says when it is needed.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/render_tray_icons.py
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QGuiApplication

from desktop.ui import icons


def main() -> int:
    app = QGuiApplication(sys.argv[:1])
    folder = icons.icon_dir() / icons.PNG_FOLDER
    folder.mkdir(exist_ok=True)
    written = 0
    for svg in sorted(icons.icon_dir().glob("*.svg")):
        for size in icons.TRAY_SIZES:
            path = icons.png_path(svg.stem, size)
            if not icons.render_svg(svg.stem, size).save(str(path), "PNG"):
                print(f"could not write {path}", file=sys.stderr)
                return 1
            written += 1
    print(f"wrote {written} PNGs to {folder}")
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
