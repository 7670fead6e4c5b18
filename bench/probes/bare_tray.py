"""The reference: a bare PySide6 tray app (QApplication + QSystemTrayIcon + QMenu, nothing else).

Why this reference: it is the least any Qt tray app pays (interpreter, Qt libraries, the
platform plugin, one icon, one menu), started exactly like the app under test (``bench.env``,
``python -m``), so the ratios say what Hermes Tray adds on top.

Options: ``--wake SETTLE,SECONDS`` counts idle wake-ups like the app's probe does.
"""

from __future__ import annotations

import argparse
import sys

from bench.probes import hooks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wake", default="", help="SETTLE,SECONDS: count idle wake-ups")
    args = parser.parse_args()
    hooks.install_tray_marker()
    from PySide6 import QtWidgets
    from PySide6.QtGui import QColor, QIcon, QPixmap

    app = QtWidgets.QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    pixmap = QPixmap(22, 22)
    pixmap.fill(QColor("#3a7bd5"))
    menu = QtWidgets.QMenu()
    menu.addAction("Quit", app.quit)
    tray = QtWidgets.QSystemTrayIcon(QIcon(pixmap))
    tray.setContextMenu(menu)
    tray.show()
    if args.wake:
        settle, seconds = (float(x) for x in args.wake.split(","))
        hooks.wake_window(app, settle, seconds)
    return int(app.exec())


if __name__ == "__main__":
    raise SystemExit(main())
