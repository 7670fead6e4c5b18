"""The tray icon shown before the rest of the app is imported, so the tray appears at once.

Importing the bridge, the core and the shell takes longer than Python and Qt together; a person
starting the app should see its icon first. The icon carries its (still empty) context menu from
the start, so a StatusNotifierItem host that reads the menu's D-Bus path when the icon registers
finds it; the tray controller takes both over and fills the menu.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.platform.paths import APP_NAME
from desktop.ui import icons

STARTING_ICON = "disconnected"


@dataclass(frozen=True, slots=True)
class FirstIcon:
    """An icon already shown, and its context menu, for the tray controller to take over."""

    tray: QSystemTrayIcon
    menu: QMenu


def show_first_icon() -> FirstIcon:
    """Show the disconnected icon with an empty menu; the tooltip says the app is starting."""
    menu = QMenu()  # a QMenu cannot have a QObject parent; the tray controller deletes it
    menu.setObjectName("tray-menu")
    tray = QSystemTrayIcon(icons.tray_icon(STARTING_ICON))
    tray.setToolTip(f"{APP_NAME}: starting")
    tray.setContextMenu(menu)
    tray.show()
    return FirstIcon(tray, menu)
