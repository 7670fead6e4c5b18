"""The tray app's widgets, wired to the bridge: who opens what when something happens.

Apart from ``desktop.app`` (the process: QApplication, loop, discovery, demo, shutdown) so tests
can build it on their own loop with stand-in clients.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from desktop.core.model import DecisionResult
from desktop.model.bridge_events import (
    ApprovalUpdate,
    DecisionRequest,
    Notice,
)
from desktop.model.notify_policy import app_high_risk
from desktop.model.tray_host import TrayFallback, no_tray_notice
from desktop.platform.activation import SAY_WHERE_ADVICE, SAY_WHERE_WHAT
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import PROMPT_BATCH, NotificationController
from desktop.ui.prompt_windows import PromptWindows
from desktop.ui.tray import TrayController, TrayHostWatch
from desktop.ui.tray_menu import MenuExtras
from desktop.ui.window_activation import WindowActivation
from desktop.ui.yolo_timebox import YoloTimeboxController

if TYPE_CHECKING:
    from desktop.journal import Journal
    from desktop.model.notify_policy import HighRisk, NotifySettings
    from desktop.model.tray_host import TrayHost
    from desktop.ui.approvals.dialog import ApprovalDialog
    from desktop.ui.journal_controller import JournalController
    from desktop.ui.new_task_dialog import NewTaskDialog
    from desktop.ui.settings_controller import SettingsController
    from desktop.ui.tray_window import TrayWindow

log = logging.getLogger(__name__)


class TrayShell(QObject):
    def __init__(
        self,
        bridge: GatewayBridge,
        *,
        notify_settings: NotifySettings | None = None,
        on_quit: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
        high_risk: HighRisk | None = None,
        first_icon: QSystemTrayIcon | None = None,
    ) -> None:
        super().__init__()
        self.bridge = bridge
        self.tray = TrayController(bridge, self, first=first_icon)
        self._dialog: ApprovalDialog | None = None  # built on first use (see ``dialog``)
        self._dialog_had_attention = False
        self._clock = clock  # the core's clock: the dialog's countdowns and dwell times use it
        self._new_task: NewTaskDialog | None = None
        self.settings: SettingsController | None = None
        self.journal: JournalController | None = None
        bridge.approval_requested.connect(self._on_approval_update)
        bridge.approval_changed.connect(self._on_approval_update)
        self.tray.review_requested.connect(self.review)
        self.tray.new_task_requested.connect(lambda: self.new_task.present(bridge.snapshot))
        self.tray.quit_requested.connect(on_quit)
        self._own_window: TrayWindow | None = None  # built when there is no tray host
        self.notifications = NotificationController(
            bridge,
            self.tray.show_message,
            notify_settings,
            parent=self,
            high_risk=high_risk or app_high_risk,
        )
        # The desktop kept the dialog behind (Wayland, no token): one notice says where.
        where = Notice("warning", SAY_WHERE_WHAT, advice=SAY_WHERE_ADVICE)
        self._activation = WindowActivation(lambda: self.notifications.show_notice(where), self)
        self.yolo = YoloTimeboxController(bridge, clock=clock, parent=self)
        self.prompts = PromptWindows(bridge, self)  # clarify questions, one window each
        self.host_watch = TrayHostWatch(status_notifier_icon=self.tray.exported, parent=self)
        self._fallback = TrayFallback()
        self.tray.prompt_requested.connect(self.prompts.open)
        self.tray.tray.messageClicked.connect(self.notifications.balloon_clicked)
        self.notifications.review_requested.connect(self.review_batch)
        self.tray.extras = self.menu_extras
        self.yolo.changed.connect(self.tray.refresh)
        self.yolo.notice_raised.connect(self.notifications.show_notice)
        self.notifications.holding_changed.connect(self.tray.refresh)
        self.tray.timebox_requested.connect(self.yolo.start)
        self.tray.refresh()
        self.host_watch.changed.connect(self._on_tray_host)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._dialog and event.type() in (
            QEvent.Type.Show,
            QEvent.Type.Hide,
            QEvent.Type.WindowActivate,
            QEvent.Type.WindowDeactivate,
        ):
            attention = self._dialog_attention()
            if attention != self._dialog_had_attention:
                self._dialog_had_attention = attention
                self.notifications.dialog_changed(attention, self._dialog_shows)
        return False

    def _dialog_attention(self) -> bool:
        """The dialog is shown and active, or its own question box ("Always allow?") is."""
        dialog = self._dialog
        window = QApplication.activeWindow()
        while window is not None and window is not dialog:
            window = window.parentWidget()
        return dialog is not None and dialog.isVisible() and window is dialog

    def _dialog_shows(self, gateway_id: str, batch_id: str) -> bool:
        dialog = self._dialog
        return dialog is not None and dialog.board.find_batch(gateway_id, batch_id) is not None

    @property
    def dialog(self) -> ApprovalDialog:
        if self._dialog is None:
            from desktop.ui.approvals.dialog import ApprovalDialog

            self._dialog = ApprovalDialog(
                self.bridge.rows, clock=self._clock, session_of=self.bridge.rows.session
            )
            self._dialog.decision_requested.connect(self.decide)
            self._dialog.stop_requested.connect(self.bridge.interrupt)
            self.bridge.session_changed.connect(self._dialog.session_changed)
            self.bridge.rows_forgotten.connect(self._dialog.forget_rows)
            self.bridge.gateway_removed.connect(self._dialog.clear_gateway)
            self._dialog.installEventFilter(self)
        return self._dialog

    @property
    def new_task(self) -> NewTaskDialog:
        if self._new_task is None:
            from desktop.ui.new_task_dialog import NewTaskDialog

            self._new_task = NewTaskDialog()
            self._new_task.task_requested.connect(self.bridge.new_task)
        return self._new_task

    def attach(
        self,
        *,
        settings: SettingsController | None = None,
        journal: Journal | None = None,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
        notify_settings: NotifySettings | None = None,
    ) -> None:
        """Add the optional parts (each at most once); the app does it after the icon shows."""
        if notify_settings is not None:
            self.notifications.apply_settings(notify_settings)
        if settings is not None and self.settings is None:
            self.settings = settings
            settings.notify_settings_changed.connect(self.notifications.apply_settings)
            settings.notice_raised.connect(self.notifications.show_notice)
            settings.changed.connect(self.tray.refresh)
            self.tray.start_at_login_toggled.connect(settings.set_start_at_login)
            self.tray.settings_requested.connect(settings.open_dialog)
        if journal is not None and self.journal is None:
            from desktop.ui.journal_controller import JournalController

            self.journal = JournalController(self.bridge, journal, opener=open_url, parent=self)
            self.journal.changed.connect(self.tray.refresh)
            self.tray.open_journal_requested.connect(self.journal.open_journal)
        if settings is not None or journal is not None:
            self.tray.refresh()

    def menu_extras(self) -> MenuExtras:
        journal = self.journal
        return MenuExtras(
            timeboxes=self.yolo.boxes.labels(self._clock()),
            recent=journal.recent_lines() if journal is not None else None,
            journal_available=journal is not None and journal.available(),
            start_at_login=self.settings.start_at_login if self.settings is not None else None,
            journal_problem=journal.problem if journal is not None else "",
            holding_notifications=self.notifications.policy.holding,
        )

    def show(self) -> None:
        self.tray.tray.show()
        self._on_tray_host(self.host_watch.host)

    @property
    def own_window(self) -> TrayWindow:
        if self._own_window is None:
            from desktop.ui.tray_window import TrayWindow

            self._own_window = TrayWindow(self.tray)
            self._own_window.activated.connect(self.host_watch.check)
        return self._own_window

    def _on_tray_host(self, host: TrayHost) -> None:
        step = self._fallback.update(host)
        if host.own_window:
            self.own_window.set_host(host)
        if step.show_window:
            log.warning("no system tray (%s): showing the tray's own window", host.summary)
            self.own_window.present()
        if step.step_back and self._own_window is not None:
            log.info("a system tray appeared (%s): back to the icon", host.summary)
            self._own_window.hide()
        if step.notify:
            self.notifications.show_notice(no_tray_notice(host))

    def present(self) -> None:
        """A second launch: own window shown, not activated (on Wayland it would steal focus)."""
        if self._fallback.window:
            self.own_window.showNormal()
        self.review()

    def dispose(self) -> None:
        """Hide the icon and delete the windows (before the loop and QApplication go)."""
        self.yolo.dispose()
        self.host_watch.dispose()
        if self.journal is not None:
            self.journal.close()
        self.notifications.dispose()
        self.prompts.dispose()
        self.tray.dispose()
        if self._own_window is not None:  # closing it would only minimize it
            self._own_window.hide()
            self._own_window.deleteLater()
        windows: list[QWidget] = [w for w in (self._dialog, self._new_task) if w is not None]
        if self.settings is not None and self.settings.dialog is not None:
            windows.append(self.settings.dialog)
        for window in windows:
            window.close()
            window.deleteLater()

    def decide(self, request: DecisionRequest) -> DecisionResult:
        result = self.bridge.decide(request)
        if not result.sent and self._dialog is not None:
            self._dialog.decision_refused(request.gateway_id, request.key, result.reason)
        return result

    def review(self) -> None:
        dialog, near = self.dialog, self.tray.tray.geometry()
        self._activation.bring_forward(dialog, lambda: dialog.present(activate=True, near=near))

    def review_batch(self, gateway_id: str, batch_id: str) -> None:
        if gateway_id and batch_id.startswith(PROMPT_BATCH):  # a question's bubble
            self.prompts.open(gateway_id, batch_id.removeprefix(PROMPT_BATCH))
        elif gateway_id and batch_id:
            dialog, near = self.dialog, self.tray.tray.geometry()
            self._activation.bring_forward(
                dialog, lambda: dialog.focus_batch(gateway_id, batch_id, near=near)
            )
        else:
            self.review()

    def _on_approval_update(self, update: ApprovalUpdate) -> None:
        self.dialog.upsert(
            update.gateway_id, update.gateway_name, update.approval, update.session_title
        )
