"""Native notifications for new approval batches: the Qt side of ``notify_policy``.

The pure policy decides what and when; this feeds it the bridge's signals, wakes at its deadline,
and sends a pressed button to the dialog's own bridge slot, for exactly the keys the bubble
showed. No notification service: the tray's balloon (no buttons). Due bubbles wait until the
notifier, started with the first one, answers. A clarify question's bubble has no answer buttons.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.core.model import Choice, PromptKind
from desktop.gateway.status import ConnectionState, ConnectionStatus
from desktop.journal import Surface
from desktop.model.bridge_events import ApprovalUpdate, DecisionRequest, Notice, PromptUpdate
from desktop.model.notify_policy import (
    ActionKind,
    BatchShown,
    HighRisk,
    NotificationPlan,
    NotifyAction,
    NotifyPolicy,
    NotifySettings,
    never_high_risk,
)
from desktop.model.plain_text import markup_safe
from desktop.model.prompt_text import only_in_hermes
from desktop.platform.do_not_disturb import DoNotDisturb
from desktop.ui.bridge import GatewayBridge

log = logging.getLogger(__name__)

PROMPT_BATCH = "prompt:"  # the batch id of a question's bubble: this prefix + the prompt key
MAX_PROMPTS_NOTIFIED = 500  # keys remembered so a re-judged prompt does not notify again


class NotificationController(QObject):
    review_requested = Signal(str, str)  # gateway_id, batch_id ("" = no particular batch)
    holding_changed = Signal()  # do-not-disturb holds new notifications (or no longer)

    def __init__(
        self,
        bridge: GatewayBridge,
        fallback: Callable[[str, str], None],  # (title, body): QSystemTrayIcon.showMessage
        settings: NotifySettings | None = None,
        parent: QObject | None = None,
        *,
        high_risk: HighRisk = never_high_risk,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._fallback = fallback
        self.policy = NotifyPolicy(
            settings or NotifySettings(),
            started_at=time.monotonic(),
            rows=bridge.rows.approval,
            high_risk=high_risk,
        )
        self.native: bool | None = None  # None until the bridge answers whether they work
        self._waiting_notices: list[Notice] = []  # due before that answer
        self._waiting_prompts: list[NotificationPlan] = []
        self._prompts_notified: dict[tuple[str, str], None] = {}
        self.last_plan: NotificationPlan | None = None  # what a click on a balloon opens
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self._flush)
        bridge.approval_requested.connect(self._on_approval_requested)
        bridge.approval_changed.connect(self._on_approval_changed)
        bridge.connection_status_changed.connect(self._on_connection_status_changed)
        bridge.notice_received.connect(self.show_notice)
        bridge.notifications_ready.connect(self._on_notifications_ready)
        bridge.notification_action_invoked.connect(self._on_action)
        bridge.do_not_disturb_changed.connect(self._on_do_not_disturb)
        bridge.prompt_asked.connect(self._on_prompt_asked)
        bridge.prompt_ended.connect(self._on_prompt_ended)

    def dispose(self) -> None:
        self._timer.stop()

    def _on_notifications_ready(self, native: bool) -> None:
        self.native = native
        notices, self._waiting_notices = self._waiting_notices, []
        for notice in notices:
            self.show_notice(notice)
        plans, self._waiting_prompts = self._waiting_prompts, []
        for plan in plans:
            self._show_prompt(plan)
        self._schedule()

    def _on_prompt_asked(self, update: PromptUpdate) -> None:
        """A clarify question the tray can answer: one bubble, the first time it is seen."""
        prompt = update.prompt
        ref = (update.gateway_id, prompt.key)
        elsewhere = only_in_hermes(prompt)
        if prompt.kind is not PromptKind.CLARIFY or not (prompt.answerable or elsewhere):
            return
        if ref in self._prompts_notified:
            return
        self._prompts_notified[ref] = None
        while len(self._prompts_notified) > MAX_PROMPTS_NOTIFIED:
            del self._prompts_notified[next(iter(self._prompts_notified))]
        plan = NotificationPlan(
            gateway_id=update.gateway_id,
            batch_id=PROMPT_BATCH + prompt.key,
            title=markup_safe(f"Question — {update.session_title}", 120),
            body=markup_safe(prompt.question or "Hermes asks you something.", 400)
            + (f"\n({prompt.blocked_reason})" if elsewhere else ""),  # our words, after theirs
            actions=() if elsewhere else (NotifyAction(ActionKind.REVIEW, "Answer…"),),
            session_id=prompt.session_id,
        )
        if self.native is None:
            self._waiting_prompts.append(plan)
            self._bridge.start_notifications()
            return
        self._show_prompt(plan)

    def _show_prompt(self, plan: NotificationPlan) -> None:
        self.last_plan = plan
        if self.native:
            self._bridge.show_notification(plan)
        else:
            self._fallback(plan.title, plan.body)

    def _on_prompt_ended(self, update: PromptUpdate) -> None:
        batch_id = PROMPT_BATCH + update.prompt.key
        self._waiting_prompts = [p for p in self._waiting_prompts if p.batch_id != batch_id]
        if (update.gateway_id, update.prompt.key) in self._prompts_notified and self.native:
            self._bridge.withdraw_notification(update.gateway_id, batch_id)

    def _on_approval_requested(self, update: ApprovalUpdate) -> None:
        self.policy.approval_requested(
            update.gateway_id, update.approval, update.session_title, time.monotonic()
        )
        self._schedule()

    def _on_approval_changed(self, update: ApprovalUpdate) -> None:
        self._withdraw(
            self.policy.approval_changed(
                update.gateway_id, update.approval, time.monotonic(), update.session_title
            )
        )
        self._schedule()

    def dialog_changed(self, attention: bool, shows: BatchShown) -> None:
        """The approval dialog is (or no longer is) what the person reads; ``shows`` its batches."""
        self._withdraw(self.policy.dialog_changed(attention, shows, time.monotonic()))
        self._schedule()

    def _withdraw(self, refs: list[tuple[str, str]]) -> None:
        if self.native:
            for gateway_id, batch_id in refs:
                self._bridge.withdraw_notification(gateway_id, batch_id)

    def _on_connection_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if new.state is ConnectionState.CONNECTED:
            self.policy.gateway_connected(gateway_id, time.monotonic())
            self._schedule()

    def _on_do_not_disturb(self, state: DoNotDisturb) -> None:
        holding = self.policy.holding
        self.policy.set_do_not_disturb(state.on is True)
        self._schedule()  # off: what waits is due now, as one notification
        if self.policy.holding != holding:
            self.holding_changed.emit()

    def apply_settings(self, settings: NotifySettings) -> None:
        self.policy.settings = settings
        self._schedule()

    def show_notice(self, notice: Notice) -> None:
        """Failures and warnings (the gateways' and the app's own) are worth a notification."""
        if notice.level not in ("warning", "error"):
            return
        if self.native is None:
            self._waiting_notices.append(notice)
            self._bridge.start_notifications()  # answers with notifications_ready
            return
        title = markup_safe(f"Hermes Tray — {notice.what}", 120)
        body = markup_safe(" — ".join(p for p in (notice.where, notice.advice) if p), 400)
        if self.native:
            self._bridge.show_text_notification(title, body, notice.level == "error")
        else:
            self._fallback(title, body)

    def _schedule(self) -> None:
        deadline = self.policy.next_deadline()
        if deadline is None:
            self._timer.stop()
            return
        self._timer.start(max(0, int((deadline - time.monotonic()) * 1000) + 1))

    def _flush(self) -> None:
        if self.native is None:
            # The first plan is due: start the notifier; the answer reschedules (above).
            self._bridge.start_notifications()
            return
        now = time.monotonic()
        plans = self.policy.due(now)
        self._withdraw(self.policy.take_withdrawn())
        for plan in plans:
            if plan.update and not self.native:
                continue  # a balloon cannot be updated; the next new batch will say it
            self.last_plan = plan
            log.info(
                "notifying: %s (%d approvals%s%s)",
                plan.batch_id or "summary",
                len(plan.keys),
                ", update" if plan.update else "",
                ", deadline near" if plan.urgent else "",
            )
            if self.native:
                self._bridge.show_notification(plan)
            else:
                self._fallback(markup_safe(plan.title, 120), markup_safe(plan.body, 400))
        for blocked in self.policy.take_blocked(now):
            if self.native:
                self._bridge.show_text_notification(blocked.title, blocked.body, False)
            else:
                self._fallback(blocked.title, markup_safe(blocked.body, 400))
        self._schedule()

    def balloon_clicked(self) -> None:
        """``QSystemTrayIcon.messageClicked``: open the dialog on the last batch shown."""
        plan = self.last_plan
        self.review_requested.emit(plan.gateway_id if plan else "", plan.batch_id if plan else "")

    def _on_action(self, plan: NotificationPlan, kind: ActionKind) -> None:
        """A button or the body was pressed: decide exactly what was shown, or open the dialog."""
        action = plan.action(kind)
        if kind is ActionKind.REVIEW or action is None:
            self.review_requested.emit(plan.gateway_id, plan.batch_id)
            return
        if kind is ActionKind.DENY_STOP:
            self._bridge.deny_and_stop(plan.gateway_id, action.keys, Surface.NOTIFICATION)
            return
        choice = Choice.ONCE if kind is ActionKind.APPROVE else Choice.DENY
        for key in action.keys:
            self._bridge.decide(DecisionRequest(plan.gateway_id, key, choice, Surface.NOTIFICATION))
