"""The app's tray-host probe: asks Qt and the session bus, and asks again when the watcher moves.

``QSystemTrayIcon.isSystemTrayAvailable()`` knows both protocols Qt can use, asked afresh each
time; what it means is ``desktop.model.tray_host``'s rule. No timer: a ``QDBusServiceWatcher``
wakes the app only when a panel starts or stops, probed at once and ``SETTLE_MS`` later (a
panel registers its host a moment after the watcher). An XEmbed-only tray that starts later
sends no D-Bus signal: it is noticed when the tray's own window is next opened.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtDBus import QDBusConnection, QDBusServiceWatcher
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSystemTrayIcon

from desktop.model.tray_host import HEADLESS_PLATFORMS, WATCHER, TrayHost, TrayProbe, tray_host
from desktop.platform.tray_probe import xembed_tray

SETTLE_MS = 1500


class TrayHostWatch(QObject):
    """Emits ``changed`` with the new :class:`TrayHost` whenever the answer may have moved."""

    changed = Signal(object)  # TrayHost

    def __init__(self, *, status_notifier_icon: bool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._sni_icon = status_notifier_icon
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.check)
        self._watcher: QDBusServiceWatcher | None = None
        self.host = tray_host(self.probe())
        bus = QDBusConnection.sessionBus()
        if QGuiApplication.platformName() not in HEADLESS_PLATFORMS and bus.isConnected():
            self._watcher = QDBusServiceWatcher(
                WATCHER, bus, QDBusServiceWatcher.WatchModeFlag.WatchForOwnerChange, self
            )
            self._watcher.serviceOwnerChanged.connect(self._on_owner_changed)

    def probe(self) -> TrayProbe:
        platform = QGuiApplication.platformName()
        desktop = os.environ.get("XDG_CURRENT_DESKTOP", "")
        if platform in HEADLESS_PLATFORMS:
            return TrayProbe(platform=platform, desktop=desktop)
        owner = ""
        bus = QDBusConnection.sessionBus()
        if bus.isConnected():
            reply = bus.interface().serviceOwner(WATCHER)
            value = reply.value() if hasattr(reply, "value") else reply
            owner = value if isinstance(value, str) else ""
        return TrayProbe(
            platform=platform,
            watcher_owner=owner,
            # An icon Qt built as XEmbed shows only in an XEmbed tray: ask X who owns one.
            xembed=xembed_tray() if platform == "xcb" and not self._sni_icon else None,
            qt_available=QSystemTrayIcon.isSystemTrayAvailable(),
            icon_is_status_notifier=self._sni_icon,
            desktop=desktop,
        )

    def check(self) -> TrayHost:
        """Probe now; emit ``changed`` when the answer differs from the last one."""
        host = tray_host(self.probe())
        if host != self.host:
            self.host = host
            self.changed.emit(host)
        return host

    def _on_owner_changed(self, _name: str, _old: str, _new: str) -> None:
        self.check()
        self._settle.start()

    def dispose(self) -> None:
        self._settle.stop()
        if self._watcher is not None:
            self._watcher.serviceOwnerChanged.disconnect(self._on_owner_changed)
            self._watcher.deleteLater()
            self._watcher = None
