"""The tray icon and its menu: renders the snapshot, turns clicks into bridge calls.

The menu is rebuilt lazily: a rebuild costs about 10 ms, snapshots change many times a second,
and rebuilding an open QMenu closes it. A Qt-drawn menu is rebuilt on ``aboutToShow`` (Qt sizes
the popup after it; the tray's own popups before it, as a menu growing while opening comes up
clipped). Under a StatusNotifierItem host every rebuild renumbers the D-Bus export's items, and
the host says when the menu opens, never when it closed (xfce4-panel): word changes wait for
``aboutToHide`` or ``HOST_MENU_HOLD_MS``, shape changes ``HOST_SHAPE_GRACE_MS`` (a late click on
a renumbered item is lost, never misdirected). A left click opens the dialog when something
waits, else a Qt-drawn copy of the menu (xfce4-panel draws it only on a right click). Global or
risky changes ask first, non-modally (stack.md §5).

Whether a host shows the icon is ``desktop.model.tray_host``'s rule, fed by ``TrayHostWatch``: a
``QDBusServiceWatcher`` wakes the app only when a panel starts or stops, probed at once and
``SETTLE_MS`` later (a panel registers its host a moment after). An XEmbed-only tray sends no
D-Bus signal: it is noticed when the tray's own window is next opened.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtDBus import QDBusConnection, QDBusServiceWatcher
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.model import menu_text
from desktop.model.menu_sessions import SessionShelf
from desktop.model.plain_text import shown
from desktop.model.snapshot import AppSnapshot, session_title
from desktop.model.tray_host import HEADLESS_PLATFORMS, WATCHER, TrayProbe, tray_host
from desktop.model.tray_status import TrayStatus, tray_status
from desktop.model.window_place import Box, menu_origin
from desktop.model.yolo_timer import BoxKind
from desktop.platform.activation import event_token
from desktop.platform.tray_probe import xembed_tray
from desktop.ui import icons
from desktop.ui.bridge import GatewayBridge
from desktop.ui.tray_menu import MenuCommands, MenuExtras, build_menu
from desktop.ui.window_activation import take_env_token

REBUILD_DELAY_MS = 150
# How long a panel-drawn menu counts as open after the host's aboutToShow (it never says closed).
HOST_MENU_HOLD_MS = 15_000
# ... but a change of its shape waits only this long: time to read and click (at 3 s the desktop
# test's own click was lost), short enough that the next opening rarely finds it still growing.
HOST_SHAPE_GRACE_MS = 8_000
SETTLE_MS = 1500


class TrayController(QObject):
    review_requested = Signal()
    new_task_requested = Signal()
    settings_requested = Signal()
    quit_requested = Signal()
    timebox_requested = Signal(str, str, object)  # gateway, session, BoxKind (confirmed)
    open_journal_requested = Signal()
    start_at_login_toggled = Signal(bool)
    prompt_requested = Signal(str, str)  # gateway, prompt key: open the question's window
    settled = Signal()  # events paused: a view drawn from the menu may rebuild now

    def __init__(
        self,
        bridge: GatewayBridge,
        parent: QObject | None = None,
        *,
        exported: bool | None = None,
        first: QSystemTrayIcon | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        # True when a StatusNotifierItem host draws the menu from Qt's D-Bus export.
        self.exported = status_notifier_host_present() if exported is None else exported
        self._snapshot = bridge.snapshot
        self.status: TrayStatus | None = None  # what the icon shows
        self._menu_dirty = True
        self._confirm: QObject | None = None  # the open question box
        self.extras: Callable[[], MenuExtras] = MenuExtras
        self.shelf = SessionShelf()
        self._built_shape: tuple[object, ...] = ()
        # The icon shown at start-up, if any, is taken over with its menu; a QMenu cannot have a
        # QObject parent, so the menu is deleted in dispose().
        self.tray = first if first is not None else QSystemTrayIcon()
        self.tray.setParent(self)
        self.menu = first.contextMenu() if first is not None else QMenu()
        self.menu.setObjectName("tray-menu")
        self.tray.setContextMenu(self.menu)
        self.click_menu: QMenu | None = None  # the Qt-drawn copy a left click pops (SNI hosts)
        self._finished_timer = QTimer(self, singleShot=True)  # an idle session becomes "finished"
        self._finished_timer.timeout.connect(self.refresh)
        self._rebuild_timer = QTimer(self, singleShot=True, interval=REBUILD_DELAY_MS)
        self._rebuild_timer.timeout.connect(self._on_settled)
        self._host_menu_open = QTimer(self, singleShot=True, interval=HOST_MENU_HOLD_MS)
        self._host_menu_open.timeout.connect(self._rebuild_if_closed)
        self._shape_timer = QTimer(self, singleShot=True)  # the end of the shape grace (docstring)
        self._shape_timer.timeout.connect(self._rebuild_if_closed)
        self.menu.aboutToShow.connect(self._on_about_to_show)
        self.menu.aboutToHide.connect(self._on_about_to_hide)
        self.tray.activated.connect(self._on_activated)
        bridge.snapshot_changed.connect(self._on_snapshot_changed)
        self._commands = MenuCommands(
            reconnect=bridge.reconnect,
            set_yolo=self._ask_yolo,
            choose_mode=self._ask_mode,
            interrupt=bridge.interrupt,
            review=self.review_requested.emit,
            new_task=self.new_task_requested.emit,
            settings=self.settings_requested.emit,
            quit=self.quit_requested.emit,
            timebox=self._ask_timebox,
            open_journal=self.open_journal_requested.emit,
            set_start_at_login=self.start_at_login_toggled.emit,
            close_session=self._close_session,
            answer_prompt=self.prompt_requested.emit,
        )
        self._render_status()
        self.rebuild_menu()

    def dispose(self) -> None:
        """Hide the icon and free the menu (call before the QApplication goes away)."""
        self._rebuild_timer.stop()
        self._host_menu_open.stop()
        self._shape_timer.stop()
        self._finished_timer.stop()
        self._bridge.snapshot_changed.disconnect(self._on_snapshot_changed)
        if self.click_menu is not None:
            self.click_menu.deleteLater()
            self.click_menu = None
        if self._confirm is not None:
            self._confirm.deleteLater()
            self._confirm = None
        self.tray.hide()
        self.tray.setContextMenu(None)  # type: ignore[arg-type]  # PySide6 accepts None
        self.menu.deleteLater()

    def show_message(self, title: str, body: str) -> None:
        """The fallback notification (no buttons) when no notification service is present."""
        self.tray.showMessage(title, body, icons.app_icon(), 8000)

    def refresh(self) -> None:
        """Something changed: update the icon now, the menu when it is next needed."""
        self._render_status()
        self._menu_dirty = True
        self._rebuild_timer.start()

    def _on_settled(self) -> None:
        """Events paused: an exported menu is rebuilt now; a Qt-drawn one waits to be opened."""
        if self.exported:
            self._rebuild_if_closed()
        elif self._menu_dirty:
            self.shelf.pick(self._snapshot)  # the shelf remembers who was busy, idle since when
        self.settled.emit()

    def _on_snapshot_changed(self, snapshot: AppSnapshot) -> None:
        self._snapshot = snapshot
        self.shelf.note_busy(snapshot)
        self.refresh()

    def _render_status(self) -> None:
        extras = self.extras()
        status = tray_status(
            self._snapshot,
            extras.timeboxes,
            extras.journal_problem,
            holding=extras.holding_notifications,
        )
        if status == self.status:
            return
        if self.status is None or (status.icon_name, status.count) != (
            self.status.icon_name,
            self.status.count,
        ):
            self.tray.setIcon(icons.tray_icon(status.icon_name, status.count))
        self.tray.setToolTip(status.tooltip)
        self.status = status

    def rebuild_menu(self) -> None:
        self._built_shape = self._shape()
        self.build_drawn(self.menu, exported=self.exported)
        self._menu_dirty = False
        change = self.shelf.next_change()
        if change is None:
            self._finished_timer.stop()
        else:
            delay = max(0.0, change - self.shelf.now())
            self._finished_timer.start(min(int(delay * 1000) + 1000, 2**31 - 1))

    def _close_session(self, gateway_id: str, session_id: str) -> None:
        self.shelf.close(gateway_id, session_id)
        self.refresh()

    def popup_menu(self) -> None:
        """Pop the menu up at the pointer but off its panel (``menu_origin``), built first."""
        if not self.exported:
            if self._menu_dirty or self.extras().timeboxes:
                self.rebuild_menu()
            menu = self.menu
        else:
            if self.click_menu is None:
                self.click_menu = QMenu()
                self.click_menu.setObjectName("tray-click-menu")
            self.build_drawn(self.click_menu)
            menu = self.click_menu
        menu.adjustSize()
        pointer = QCursor.pos()
        screen = QGuiApplication.screenAt(pointer) or QGuiApplication.primaryScreen()
        area, size = screen.availableGeometry(), menu.sizeHint()
        x, y = menu_origin(
            Box(area.x(), area.y(), area.width(), area.height()),
            size.width(),
            size.height(),
            (pointer.x(), pointer.y()),
        )
        menu.popup(QPoint(x, y))

    def build_drawn(self, menu: QMenu, *, exported: bool = False) -> None:
        pick = self.shelf.pick(self._snapshot)
        extras = self.extras()
        build_menu(
            menu, self._snapshot, self._commands, exported=exported, extras=extras, pick=pick
        )

    def _rebuild_if_closed(self) -> None:
        if not self._menu_dirty or self.menu.isVisible():
            return
        if not self._host_menu_open.isActive():
            self.rebuild_menu()
            return
        if self._shape() == self._built_shape:
            return  # words only: wait for the hold
        opened_for = HOST_MENU_HOLD_MS - self._host_menu_open.remainingTime()
        if opened_for >= HOST_SHAPE_GRACE_MS:
            self.rebuild_menu()
        else:
            self._shape_timer.start(max(1, HOST_SHAPE_GRACE_MS - opened_for))

    def _shape(self) -> tuple[object, ...]:
        """What decides the top level's entries (not their words): see the module docstring."""
        extras = self.extras()
        pick = self.shelf.peek(self._snapshot)
        return (
            tuple(
                (g.gateway_id, g.link, bool(g.error), bool(g.sessions))
                for g in self._snapshot.gateways
            ),
            # which sessions, not their order: a reorder keeps the size (no clipping)
            frozenset((gid, s.session_id) for gid, ss in pick.shown.items() for s in ss),
            bool(pick.rest),
            extras.recent is not None,
            extras.start_at_login is not None,
        )

    def _on_about_to_show(self) -> None:
        if self._menu_dirty or self.extras().timeboxes:  # a countdown is shown: make it current
            self.rebuild_menu()
        if self.exported:
            self._host_menu_open.start()

    def _on_about_to_hide(self) -> None:
        self._host_menu_open.stop()
        if self._menu_dirty:
            self._rebuild_timer.start()

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        """A host's ``ProvideXdgActivationToken`` (Plasma) waits in the environment: spent here."""
        token = take_env_token()
        if reason not in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            return
        if self._snapshot.waiting_count():
            with event_token.handling(token):
                self.review_requested.emit()
            return
        shown = self.click_menu if self.exported else self.menu
        if shown is None or not shown.isVisible():
            self.popup_menu()

    def _ask_mode(self, gateway_id: str, mode: str) -> None:
        gateway = self._snapshot.gateway(gateway_id)
        name = shown(gateway.name if gateway else gateway_id, 60)
        self._ask(
            "Change approval mode",
            menu_text.mode_confirmation(mode, name),
            f"Set to “{mode}”",
            lambda: self._bridge.set_approval_mode(gateway_id, mode),
        )

    def _ask_yolo(self, gateway_id: str, session_id: str, on: bool) -> None:
        if not on:
            self._bridge.set_yolo(gateway_id, session_id, False)
            return
        gateway = self._snapshot.gateway(gateway_id)
        title = session_title(gateway.session(session_id) if gateway else None, session_id)
        self._ask(
            "Turn YOLO on",
            f"Let session “{shown(title, 60)}” run every command without asking?\n\n"
            "Only this session is affected; you can turn it off again from this menu.",
            "Turn YOLO on",
            lambda: self._bridge.set_yolo(gateway_id, session_id, True),
        )

    def _ask_timebox(self, gateway_id: str, session_id: str, kind: BoxKind) -> None:
        gateway = self._snapshot.gateway(gateway_id)
        session = gateway.session(session_id) if gateway else None
        title = shown(session_title(session, session_id), 60)
        if kind is BoxKind.MINUTES:
            span, accept = "for the next 15 minutes", "Turn YOLO on for 15 minutes"
        elif session is not None and session.running:
            span, accept = "until its current turn ends", "Turn YOLO on for this turn"
        else:
            span, accept = "during its next turn", "Turn YOLO on for the next turn"
        self._ask(
            "Turn YOLO on for a while",
            f"Let session “{title}” run every command without asking {span}?\n\n"
            "Hermes Tray turns YOLO off again by itself and checks that Hermes did; it tells "
            "you if it could not. Only this session is affected.",
            accept,
            lambda: self.timebox_requested.emit(gateway_id, session_id, kind),
        )

    def _ask(self, title: str, text: str, accept_label: str, on_accept: object) -> None:
        from PySide6.QtWidgets import QMessageBox  # here: its class and enums cost idle ~0.3 MiB

        if self._confirm is not None:
            self._confirm.deleteLater()
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel)
        box.setObjectName("confirm-box")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setWindowIcon(icons.app_icon())
        ok = box.addButton(accept_label, QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def finished() -> None:
            if box.clickedButton() is ok:
                on_accept()  # type: ignore[operator]
            # the checkable action already flipped; show the real state again
            self._menu_dirty = True
            self._rebuild_timer.start()

        box.finished.connect(finished)
        self._confirm = box
        box.open()


def status_notifier_host_present() -> bool:
    """xcb: SNI only with a watcher up (stack.md §3.1); on Wayland it registers when one comes."""
    platform = QGuiApplication.platformName()
    if platform in ("offscreen", "minimal"):
        return False
    return platform != "xcb" or bool(watcher_owner())


def watcher_owner() -> str:
    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return ""
    reply = bus.interface().serviceOwner(WATCHER)
    value = reply.value() if hasattr(reply, "value") else reply
    return value if isinstance(value, str) else ""


class TrayHostWatch(QObject):
    """Emits ``changed`` with the new :class:`TrayHost` whenever the answer may have moved."""

    changed = Signal(object)  # TrayHost

    def __init__(self, *, status_notifier_icon: bool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._sni_icon = status_notifier_icon
        self._watcher: QDBusServiceWatcher | None = None
        self.host = tray_host(self.probe())
        if QGuiApplication.platformName() in HEADLESS_PLATFORMS:
            return  # no panel to watch; asking for the bus would start Qt's D-Bus thread
        bus = QDBusConnection.sessionBus()
        if bus.isConnected():
            self._watcher = QDBusServiceWatcher(
                WATCHER, bus, QDBusServiceWatcher.WatchModeFlag.WatchForOwnerChange, self
            )
            self._watcher.serviceOwnerChanged.connect(self._on_owner_changed)

    def probe(self) -> TrayProbe:
        platform = QGuiApplication.platformName()
        desktop = os.environ.get("XDG_CURRENT_DESKTOP", "")
        if platform in HEADLESS_PLATFORMS:
            return TrayProbe(platform=platform, desktop=desktop)
        return TrayProbe(
            platform=platform,
            watcher_owner=watcher_owner(),
            # An icon Qt built as XEmbed shows only in an XEmbed tray: ask X who owns one.
            xembed=xembed_tray() if platform == "xcb" and not self._sni_icon else None,
            qt_available=QSystemTrayIcon.isSystemTrayAvailable(),
            icon_is_status_notifier=self._sni_icon,
            desktop=desktop,
        )

    def check(self) -> None:
        host = tray_host(self.probe())
        if host != self.host:
            self.host = host
            self.changed.emit(host)

    def _on_owner_changed(self, _name: str, _old: str, _new: str) -> None:
        self.check()
        if self._watcher is not None:  # the check dies with the watcher at dispose
            QTimer.singleShot(SETTLE_MS, self._watcher, self.check)

    def dispose(self) -> None:
        if self._watcher is not None:
            self._watcher.serviceOwnerChanged.disconnect(self._on_owner_changed)
            self._watcher.deleteLater()
            self._watcher = None
