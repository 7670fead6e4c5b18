"""The headings above the row cards: gateway section, session section and batch card.

Gateway names and session titles are hostile text: plain-text labels, revealed and bounded by
:mod:`texts`. The list view places each heading and card itself, so a heading holds no children.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout, QWidget

from desktop.core.model import Choice
from desktop.model.approvals import rules, texts
from desktop.model.approvals.layout import BatchGroup, GatewayGroup, SessionGroup
from desktop.ui.approvals.row_card import action_button, plain_label, set_style_property

Cover = Callable[[BatchGroup], rules.BatchIntent]  # what "Approve all" on a batch covers now


Group = GatewayGroup | SessionGroup | BatchGroup


class GroupWidget(QFrame):
    """The heading of one group node; a spare one is rebound by setting ``group``."""

    group: Group

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.outer = QVBoxLayout(self)
        self.outer.setSpacing(6)

    def refresh(self, now: float | None) -> None:
        """Re-render the heading from the group node."""


class Heading(GroupWidget):
    """A gateway's heading (its revealed name) or a session's (its title and short folder)."""

    group: GatewayGroup | SessionGroup

    def __init__(self, group: GatewayGroup | SessionGroup, parent: QWidget | None = None) -> None:
        kind = "gateway" if isinstance(group, GatewayGroup) else "session"
        super().__init__(f"{kind}Section", parent)
        self.group = group
        self.title = plain_label(f"{kind}Title")
        self.outer.setContentsMargins(0, 0, 0, 4 if kind == "gateway" else 0)
        self.outer.addWidget(self.title)

    def refresh(self, now: float | None) -> None:
        group = self.group
        if isinstance(group, GatewayGroup):
            name = texts.label_text(group.name, 120) or texts.label_text(group.gateway_id, 60)
            self.title.setText(f"Gateway: {name}")
            return
        rows = (row for batch in group.batches for row in batch.rows)
        cwd = next((r.approval.context.cwd for r in rows if r.approval.context.cwd), "")
        self.title.setText(texts.session_heading(group.title, group.session_id, cwd))


class BatchCard(GroupWidget):
    """The commands asked together; "Approve all" / "Deny all" act on them in arrival order."""

    batch_action = Signal(object, object)  # (BatchGroup, Choice)
    stop_clicked = Signal(object)  # BatchGroup: deny every waiting row, then interrupt
    dismiss_clicked = Signal(object)  # BatchGroup

    group: BatchGroup

    def __init__(self, group: BatchGroup, cover: Cover, parent: QWidget | None = None) -> None:
        super().__init__("batchCard", parent)
        self.group = group
        self.cover = cover
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.summary = plain_label("batchSummary", wrap=False)
        self.badge = plain_label("orderBadge", wrap=False)
        self.badge.setText("in order")
        self.badge.setToolTip("Hermes 0.19 answers this session's commands oldest first")
        self.approve_all = action_button("Approve all (once)", "approveAll")
        self.deny_all = action_button("Deny all", "denyAll")
        self.deny_and_stop = action_button(
            "Deny and stop the agent",
            "denyAndStop",
            "Deny every waiting command here, then interrupt the agent's turn",
        )
        self.dismiss = action_button("Dismiss", "dismissBatch", "Remove the answered commands")
        self.approve_all.clicked.connect(lambda: self.batch_action.emit(self.group, Choice.ONCE))
        self.deny_all.clicked.connect(lambda: self.batch_action.emit(self.group, Choice.DENY))
        self.deny_and_stop.clicked.connect(lambda: self.stop_clicked.emit(self.group))
        self.dismiss.clicked.connect(lambda: self.dismiss_clicked.emit(self.group))
        header = QHBoxLayout()
        header.setSpacing(8)
        header.addWidget(self.summary)
        header.addWidget(self.badge)
        header.addStretch(1)
        for button in (self.approve_all, self.deny_all, self.deny_and_stop, self.dismiss):
            header.addWidget(button)
        self.outer.setContentsMargins(10, 8, 10, 10)
        self.outer.addLayout(header)

    def refresh(self, now: float | None) -> None:
        """Summary, "in order" badge and which batch buttons apply right now."""
        rows = self.group.rows
        self.summary.setText(texts.batch_summary(self.group))  # expired is not answered
        self.badge.setVisible(rules.answers_in_order(self.group))
        several = len(rows) > 1  # a lone command's own buttons say the same thing
        for button in (self.approve_all, self.deny_all):
            button.setVisible(several and not self.group.fully_resolved)
        self.deny_all.setEnabled(bool(rules.batch_targets(self.group, Choice.DENY)))
        why = texts.approve_all_blocked(self.cover(self.group))
        self.approve_all.setEnabled(not why)
        self.approve_all.setToolTip(why or texts.APPROVE_ALL_TIP)
        self.deny_and_stop.setVisible(not self.group.fully_resolved)
        self.dismiss.setVisible(self.group.fully_resolved)
        set_style_property(self, "resolved", self.group.fully_resolved)
