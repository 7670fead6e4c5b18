"""The tray app's widgets, wired to the bridge: who opens what when something happens.

Why apart from ``desktop.app``: the composition root deals with the process (QApplication, the
qasync loop, discovery, the demo, shutdown); this class only connects Qt objects, so tests can
build it on the test's loop with stand-in clients. Every path to a decision — the dialog's
buttons and a notification's — ends in the same ``GatewayBridge.decide`` slot.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject

from desktop.core.model import DecisionResult
from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.approvals.requests import DecisionRequest
from desktop.ui.bridge import GatewayBridge
from desktop.ui.bridge_events import ApprovalUpdate
from desktop.ui.new_task_dialog import NewTaskDialog
from desktop.ui.notifications import NotificationController
from desktop.ui.notify_policy import NotifySettings
from desktop.ui.tray import TrayController

log = logging.getLogger(__name__)


class TrayShell(QObject):
    """Tray icon + menu, approval dialog, notifications and small dialogs, around one bridge."""

    def __init__(
        self,
        bridge: GatewayBridge,
        *,
        notify_settings: NotifySettings | None = None,
        open_settings: Callable[[], None] | None = None,
        on_quit: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.tray = TrayController(bridge, self)
        self.dialog = ApprovalDialog()
        self.new_task = NewTaskDialog()
        self.notifications = NotificationController(
            bridge, self.tray.show_message, notify_settings, parent=self
        )
        self._open_settings = open_settings
        bridge.approval_requested.connect(self._on_approval_update)
        bridge.approval_changed.connect(self._on_approval_update)
        self.dialog.decision_requested.connect(self.decide)
        self.tray.review_requested.connect(self.review)
        self.tray.new_task_requested.connect(lambda: self.new_task.present(bridge.snapshot))
        self.tray.settings_requested.connect(self._on_settings_requested)
        self.tray.quit_requested.connect(on_quit)
        self.tray.tray.messageClicked.connect(self.notifications.balloon_clicked)
        self.notifications.review_requested.connect(self.review_batch)
        self.new_task.task_requested.connect(bridge.new_task)

    def show(self) -> None:
        self.tray.show()

    def dispose(self) -> None:
        """Hide the icon and delete the windows (before the loop and QApplication go)."""
        self.notifications.dispose()
        self.tray.dispose()
        for window in (self.dialog, self.new_task):
            window.close()
            window.deleteLater()

    # -- slots -------------------------------------------------------------------------------
    def decide(self, request: DecisionRequest) -> DecisionResult:
        result = self.bridge.decide(request)
        if not result.sent:
            self.dialog.decision_refused(request.gateway_id, request.key, result.reason)
        return result

    def review(self) -> None:
        self.dialog.present(activate=True)

    def review_batch(self, gateway_id: str, batch_id: str) -> None:
        if gateway_id and batch_id:
            self.dialog.focus_batch(gateway_id, batch_id)
        else:
            self.review()

    def _on_approval_update(self, update: ApprovalUpdate) -> None:
        self.dialog.upsert(
            update.gateway_id, update.gateway_name, update.approval, update.session_title
        )

    def _on_settings_requested(self) -> None:
        if self._open_settings is not None:
            self._open_settings()
