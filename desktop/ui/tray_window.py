"""The tray's own window, for desktops with no tray host: the tray menu, drawn as a window.

Built by ``tray_menu.build_menu`` into a hidden QMenu, its buttons bound to the very QActions, so
it offers exactly the menu's entries. Never rebuilt while a submenu is open (that would close it
under the pointer). Each activation asks the host probe again: an XEmbed tray sends no signal.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.model.tray_host import TrayHost, window_note
from desktop.platform.paths import APP_NAME
from desktop.ui import icons
from desktop.ui.tray import TrayController

WIDTH = 360
ICON_SIZE = 32


class TrayWindow(QWidget):
    activated = Signal()  # the person brought it forward: worth asking for a tray host again

    def __init__(self, tray: TrayController, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("tray-window")
        self.setWindowTitle(APP_NAME)
        self.setWindowIcon(icons.app_icon())
        self._tray = tray
        self._menu = QMenu(self)  # never shown: holds the actions the window's buttons show
        self._menu.setObjectName("tray-window-menu")
        self._dirty = True
        self._icon_key: tuple[str, int] | None = None
        layout = QVBoxLayout(self)
        self.note = self._label("", "tray-window-note")
        self.status = self._label("", "tray-window-status")
        self._picture = QLabel(self)
        layout.addWidget(self._picture, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self._entries = QVBoxLayout()
        self._entries.setSpacing(4)
        layout.addLayout(self._entries)
        layout.addWidget(_line(self))
        layout.addWidget(self.note)
        layout.addStretch(1)  # a window taller than its entries (a tiled one) leaves the rest empty
        self.setMinimumWidth(WIDTH)
        tray.settled.connect(self.refresh)

    def set_host(self, host: TrayHost) -> None:
        self.note.setText(window_note(host))

    def present(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def refresh(self) -> None:
        """Redraw from the tray's menu now, or when nothing of it is open and it is shown."""
        self._dirty = True
        if not self.isVisible() or _ours(QApplication.activePopupWidget(), self._menu):
            return
        self._dirty = False
        self._tray.build_drawn(self._menu)
        self._render_status()
        while self._entries.count():
            item = self._entries.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        for action in self._menu.actions():
            self._entries.addWidget(self._entry(action))
        self.adjustSize()

    def _fit_height(self) -> None:
        """Qt's minimum ignores height-for-width, and sway (tiling) gives a window its minimum."""
        layout = self.layout()
        if layout is not None:
            needed = layout.totalHeightForWidth(self.width())
            self.setMinimumHeight(max(needed, layout.totalMinimumSize().height()))

    def _render_status(self) -> None:
        status = self._tray.status
        if status is None:
            return
        self.status.setText(status.tooltip)
        key = (status.icon_name, status.count)
        if key != self._icon_key:
            self._icon_key = key
            self._picture.setPixmap(icons.render_pixmap(status.icon_name, ICON_SIZE, status.count))
            self.setWindowIcon(icons.tray_icon(status.icon_name, status.count))

    def _entry(self, action: QAction) -> QWidget:
        if action.isSeparator():
            return _line(self)
        owned = action.menu()
        sub = owned if isinstance(owned, QMenu) else None
        if sub is None and not action.isEnabled() and not action.isCheckable():
            label = self._label(action.text().replace("&&", "&"), action.objectName())
            label.setToolTip(action.toolTip() if action.toolTip() != action.text() else "")
            return label
        button = QToolButton(self)
        button.setDefaultAction(action)
        button.setObjectName(action.objectName() or (sub.objectName() if sub else ""))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        if sub is not None:
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            sub.aboutToHide.connect(self._after_popup)
        return button

    def _label(self, text: str, name: str) -> QLabel:
        label = QLabel(text, self)
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        return label

    def _after_popup(self) -> None:
        if self._dirty:
            QTimer.singleShot(0, self.refresh)  # after the chosen entry ran

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_height()

    def showEvent(self, event: QShowEvent) -> None:
        if self._dirty:
            QTimer.singleShot(0, self.refresh)
        super().showEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        event.ignore()
        self.showMinimized()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.WindowActivate:
            self.activated.emit()
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit_height()
        return handled


def _line(parent: QWidget) -> QFrame:
    line = QFrame(parent)
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


def _ours(popup: QWidget | None, root: QMenu) -> bool:
    parent: object = popup
    while isinstance(parent, QMenu):
        if parent is root:
            return True
        parent = parent.parent()
    return False
