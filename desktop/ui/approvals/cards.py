"""The list's widgets; they render and report clicks, the dialog applies the rules.

Gateway text is plain text only: labels are forced to ``Qt.PlainText`` (a QLabel guesses rich
text from ``<b>``); buttons and tooltips (QToolTip renders rich text) carry only our own words.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QFontDatabase, QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.core.model import Action, Choice, RunKind
from desktop.core.text_safety import bound_text
from desktop.model.approvals import rules, texts
from desktop.model.approvals.layout import BatchGroup, GatewayGroup, Node, RowEntry, SessionGroup
from desktop.risk import assess
from desktop.ui.approvals.command_view import CommandView


class PlainLabel(QLabel):
    """A label whose press, once handled (text selection), goes on: it also selects the row."""

    def mousePressEvent(self, event: QMouseEvent) -> None:
        super().mousePressEvent(event)
        event.ignore()


class WrappedLabel(PlainLabel):
    """A word-wrapped label that caches its height per width until its text or style change.

    QLabel lays its text out on every ``heightForWidth`` (200 rows: 150 ms per new row, 25 cached).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}

    def setText(self, text: str) -> None:
        if text != self.text():
            self._heights.clear()
        super().setText(text)

    def minimumSizeHint(self) -> QSize:
        """At most a narrow dialog's width (QLabel's is the longest unbreakable run's)."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 120), hint.height())

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= 4:  # a few widths at most
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in _LAYOUT_CHANGES:
            self._heights.clear()
        super().changeEvent(event)


SPOKEN_COMMAND_CHARS = 300  # of the (revealed) command, in what a screen reader is told
_LAYOUT_CHANGES = (
    QEvent.Type.FontChange,
    QEvent.Type.StyleChange,
    QEvent.Type.ContentsRectChange,
    QEvent.Type.LayoutDirectionChange,
)


def plain_label(object_name: str, *, wrap: bool = True) -> QLabel:
    """A plain-text label; a wrapped one (it may hold gateway text) can be selected to copy.

    The unwrapped ones hold a few words of ours (a number, a badge, a countdown): a selectable
    label is laid out and painted through a text document, ~1 ms a new row for these alone.
    """
    label = WrappedLabel() if wrap else PlainLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if wrap:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def action_button(text: str, object_name: str, tip: str = "") -> QPushButton:
    """A push button that Enter can never trigger by accident (no auto-default in dialogs)."""
    button = QPushButton(text)
    button.setObjectName(object_name)
    button.setAutoDefault(False)
    button.setDefault(False)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click must not pull focus off the list
    button.setToolTip(tip)  # our own words only (empty: none, Qt's default)
    return button


def set_style_property(widget: QWidget, name: str, value: str | bool) -> bool:
    """Set a property the sheet matches on, re-polishing ``widget``; True if it changed.

    Children whose rules name the property on this ancestor need a re-polish too.
    """
    if widget.property(name) == value:
        return False
    widget.setProperty(name, value)
    repolish(widget)
    return True


def repolish(widget: QWidget) -> None:
    # Polish alone: it drops the widget's cached rules itself (an unpolish first, Qt's usual pair,
    # restored the palette only for polish to set it again: a third of the cost).
    widget.style().polish(widget)


URGENT_SECONDS = 15  # the countdown turns red below this


class RowCard(QFrame):
    """The card of one :class:`RowEntry`; call :meth:`refresh` whenever the entry changed."""

    choice_clicked = Signal(object, object)  # (RowEntry, Choice)
    reconfirm_clicked = Signal(object)  # RowEntry

    def __init__(self, entry: RowEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("rowCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.number = plain_label("rowNumber", wrap=False)
        self.badge = plain_label("riskBadge", wrap=False)
        self.state = plain_label("stateLabel")
        self.countdown = plain_label("countdownLabel", wrap=False)
        self.risk_summary = plain_label("riskSummary")
        self.context = plain_label("contextLine")
        self.agent = plain_label("agentMessage")
        self.agent_toggle = action_button("More", "agentToggle", "Show all of the agent's message")
        self.agent_toggle.setFlat(True)
        self.agent_toggle.clicked.connect(self._toggle_agent)
        self._agent_expanded = False
        self.command = CommandView()
        self.hidden_warning = plain_label("hiddenWarning")
        self.notes = plain_label("rowNotes")
        self.description = plain_label("description")
        self.patterns = plain_label("patternKeys")
        self.result = plain_label("resultLine")
        self.output = plain_label("resultOutput")
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.reconfirm = action_button(
            "Re-confirm…", "reconfirmButton", "Answer this command although it may be stale"
        )
        self.reconfirm.clicked.connect(lambda: self.reconfirm_clicked.emit(self.entry))
        self.buttons: dict[Choice, QPushButton] = {}
        self._button_row = QHBoxLayout()
        self._button_row.setSpacing(6)
        self._choices: tuple[Choice, ...] = ()

        top = QHBoxLayout()
        top.setSpacing(8)
        top.addWidget(self.number, 0, Qt.AlignmentFlag.AlignTop)  # beside a state that wraps
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        self.state.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.state, 1)
        top.addWidget(self.countdown, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        actions = QHBoxLayout()
        actions.addLayout(self._button_row)
        actions.addStretch(1)
        actions.addWidget(self.reconfirm)
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.setSpacing(5)
        box.addLayout(top)
        agent = QHBoxLayout()
        agent.setSpacing(6)
        agent.addWidget(self.agent, 1)
        agent.addWidget(self.agent_toggle, 0, Qt.AlignmentFlag.AlignTop)
        box.addWidget(self.notes)
        box.addWidget(self.risk_summary)
        box.addWidget(self.context)
        box.addLayout(agent)
        for widget in (self.command, self.hidden_warning, self.description, self.patterns):
            box.addWidget(widget)
        box.addWidget(self.result)
        box.addWidget(self.output)
        box.addLayout(actions)
        self._command_source: str | None = None
        self._spoken_command = ""
        self.refresh(None)  # before it has a parent: its children's sheet rules see its state

    def rebind(self, entry: RowEntry) -> None:
        """Show another row from now on (a spare card reused by the list); call refresh next."""
        self.entry = entry
        self._command_source = None
        self._agent_expanded = False

    def refresh(self, now: float | None) -> None:
        """Re-render from ``self.entry`` (cheap when nothing changed: the command is cached)."""
        entry, a = self.entry, self.entry.approval
        again = " · asked again" if texts.asked_again(a) else ""
        self.number.setText(f"Command {entry.position + 1}{again}")
        self.command.setAccessibleName(f"Command {entry.position + 1}, full text")
        text, tone = texts.state_text(a, reconfirming=entry.reconfirming)
        not_used = a.result is not None and a.result.kind is RunKind.NOT_USED
        if not_used:  # the answer was thrown away: say that instead of "Approved (once)"
            text, tone = texts.result_text(a.result)
        self.state.setText(text)
        set_style_property(self.state, "tone", tone.value)
        if a.command != self._command_source:  # reveal a long command once, not per update
            self._command_source = a.command
            risk = assess(a.command, a.context.cwd)
            shown, hidden = texts.revealed(a.command)
            self.command.show_command(shown, texts.shown_marks(a.command, risk.findings))
            self._spoken_command = bound_text(shown, SPOKEN_COMMAND_CHARS)[0]
            self._show(self.hidden_warning, texts.hidden_warning(hidden))
            self.badge.setText(texts.RISK_BADGES[risk.level])
            set_style_property(self.badge, "level", risk.level.name.lower())
            self._show(self.risk_summary, texts.risk_summary(risk))
            set_style_property(self.risk_summary, "level", risk.level.name.lower())
        self._show(self.notes, texts.notes(a, entry.notice, entry.batch.batch_id))
        self._show(self.context, texts.context_line(a.context, os.path.expanduser("~")))
        self._refresh_agent()
        why, pattern = texts.flag_lines(a.description, a.pattern_keys)
        self._show(self.description, why)
        self._show(self.patterns, pattern)
        outcome, outcome_tone = texts.result_text(a.result)
        self._show(self.result, "" if not_used else outcome)
        set_style_property(self.result, "tone", outcome_tone.value)
        self._show(self.output, texts.output_text(a.result))
        self._sync_buttons()
        self._look_resolved(a.action is Action.DONE)
        if now is not None:
            self.refresh_countdown(now)

    def looks_fit(self, node: Node) -> bool:
        """Greyed or not as ``node``'s card: rebinding it to ``node`` re-styles no child."""
        done = isinstance(node, RowEntry) and node.approval.action is Action.DONE
        return self.property("resolved") == done

    def prime(self) -> None:
        """Look as a waiting row's card (while spare): re-styling one took ~1 ms of a new row."""
        set_style_property(self.state, "tone", texts.Tone.WAITING.value)
        self._look_resolved(False)

    def _look_resolved(self, resolved: bool) -> None:
        changed = set_style_property(self, "resolved", resolved)
        if changed and self.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
            for widget in self.shaded_when_resolved():  # unpolished ones read it when shown
                repolish(widget)

    def spoken(self) -> str:
        """What a screen reader says of this card, most telling first; not the ticking countdown."""
        first = (self.number, self.badge, self.state, self.notes, self.risk_summary, self.context)
        parts = _said(first)
        parts.append(f"Command: {self._spoken_command}")  # as it is: it may end in a dot
        parts += _said((self.hidden_warning, self.description, self.result))
        return ". ".join(parts)

    def shaded_when_resolved(self) -> tuple[QWidget, ...]:
        """The children the sheet greys out on a resolved card (``#rowCard[resolved="true"] …``)."""
        return (
            self.number,
            self.command,
            self.description,
            self.patterns,
            self.notes,
            self.badge,
            self.risk_summary,
        )

    def refresh_countdown(self, now: float) -> None:
        expires_at = self.entry.approval.expires_at
        if not rules.counts_down(self.entry) or expires_at is None:
            self.countdown.setText("")
            return
        self.countdown.setText(texts.remaining_text(expires_at, now))
        set_style_property(self.countdown, "urgent", expires_at - now < URGENT_SECONDS)

    def set_selected(self, selected: bool) -> None:
        set_style_property(self, "selected", selected)

    def _sync_buttons(self) -> None:
        a = self.entry.approval
        if a.choices != self._choices:
            self._choices = a.choices
            for button in self.buttons.values():
                self._button_row.removeWidget(button)
                button.hide()
                button.deleteLater()
            self.buttons = {}
            for choice in a.choices:
                key = texts.CHOICE_SHORTCUTS[choice]
                button = action_button(
                    texts.CHOICE_LABELS[choice], f"choice_{choice.value}", f"Shortcut: {key}"
                )
                button.clicked.connect(
                    lambda _=False, c=choice: self.choice_clicked.emit(self.entry, c)
                )
                self._button_row.addWidget(button)
                self.buttons[choice] = button
        for choice, button in self.buttons.items():
            button.setEnabled(rules.can_decide(self.entry, choice))
            button.setVisible(a.action is not Action.DONE)
        stale = rules.needs_reconfirm(self.entry) and not self.entry.awaiting_core
        self.reconfirm.setVisible(stale)

    def _refresh_agent(self) -> None:
        text, more = texts.agent_line(self.entry.approval.context, expanded=self._agent_expanded)
        self._show(self.agent, text)
        self.agent_toggle.setVisible(more)
        self.agent_toggle.setText("Less" if self._agent_expanded else "More")

    def _toggle_agent(self) -> None:
        self._agent_expanded = not self._agent_expanded
        self._refresh_agent()

    @staticmethod
    def _show(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setVisible(bool(text))


def _said(labels: tuple[QLabel, ...]) -> list[str]:
    """The texts of the labels shown, each on one line and without its closing full stop."""
    texts_shown = (label.text() for label in labels if not label.isHidden())
    return [text.replace("\n", " ").rstrip(". ") for text in texts_shown if text]


Cover = Callable[[BatchGroup], rules.BatchIntent]  # what "Approve all" on a batch covers now


class GroupWidget(QFrame):
    """The heading of one group node; a spare one is rebound by setting ``group``."""

    group: GatewayGroup | SessionGroup | BatchGroup

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.outer = QVBoxLayout(self)
        self.outer.setSpacing(6)

    def refresh(self, now: float | None) -> None: ...


class Heading(GroupWidget):
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
        rows = self.group.rows
        self.summary.setText(texts.batch_summary(self.group))  # expired is not answered
        self.badge.setVisible(rules.answers_in_order(self.group))
        several = len(rows) > 1  # a lone command's own buttons say the same thing
        for button in (self.approve_all, self.deny_all):
            button.setVisible(several and not self.group.fully_resolved)
        self.deny_all.setEnabled(bool(rules.batch_targets(self.group, Choice.DENY)))
        self.refresh_cover()
        self.deny_and_stop.setVisible(not self.group.fully_resolved)
        self.dismiss.setVisible(self.group.fully_resolved)
        set_style_property(self, "resolved", self.group.fully_resolved)

    def refresh_cover(self) -> None:
        """Re-render what "Approve all" covers alone: rows came on or off screen, or were read."""
        why = texts.approve_all_blocked(self.cover(self.group))
        self.approve_all.setEnabled(not why)
        self.approve_all.setToolTip(why or texts.APPROVE_ALL_TIP)


# The dialog's stylesheet: widgets opt in by object name and dynamic property. ``palette(...)``
# colours read in light and dark themes, the fixed state tones on both. The scroll bar is drawn
# here too: the default style took up to 1 ms to repaint it on every arrival.
STYLESHEET = """
#approvalListContent { background: palette(window); }
#approvalList QScrollBar:vertical { background: palette(window); width: 12px; margin: 0; }
#approvalList QScrollBar::handle:vertical {
    background: palette(mid); border-radius: 4px; min-height: 24px; margin: 2px;
}
#approvalList QScrollBar::handle:vertical:hover, #approvalList QScrollBar::handle:vertical:pressed {
    background: palette(dark);
}
#approvalList QScrollBar::add-line:vertical, #approvalList QScrollBar::sub-line:vertical {
    height: 0;
}
#approvalList QScrollBar::add-page:vertical, #approvalList QScrollBar::sub-page:vertical {
    background: none;
}
#gatewayTitle { font-size: 14pt; font-weight: 600; padding: 0 0 2px 2px; }
#sessionTitle { font-weight: 600; padding: 2px 0 0 2px; }
#batchCard {
    background: palette(alternate-base);
    border: 1px solid palette(mid);
    border-radius: 8px;
}
#batchCard[resolved="true"] { border-style: dashed; }
#batchSummary { color: palette(placeholder-text); }
#orderBadge {
    background: #8a4b00; color: white; border-radius: 8px; padding: 1px 8px; font-weight: 600;
}
#rowCard {
    background: palette(base);
    border: 1px solid palette(mid);
    border-radius: 6px;
    padding: 1px;
}
#rowCard[selected="true"] { border: 2px solid palette(highlight); padding: 0; }
#rowCard[resolved="true"] { background: palette(window); }
#rowCard[resolved="true"] #rowNumber, #rowCard[resolved="true"] #commandView,
#rowCard[resolved="true"] #description, #rowCard[resolved="true"] #patternKeys,
#rowCard[resolved="true"] #rowNotes {
    color: palette(placeholder-text);
}
#rowNumber { font-weight: 600; }
#stateLabel[tone="waiting"] { color: palette(highlight); font-weight: 600; }
#stateLabel[tone="blocked"] { color: #8a4b00; }
#stateLabel[tone="busy"] { color: palette(placeholder-text); font-style: italic; }
#stateLabel[tone="good"] { color: #1b7a36; font-weight: 600; }
#stateLabel[tone="bad"] { color: #b3261e; font-weight: 600; }
#stateLabel[tone="ended"] { color: palette(placeholder-text); }
#stateLabel[tone="warn"] { color: #8a4b00; font-weight: 600; }
#countdownLabel { color: palette(placeholder-text); }
#countdownLabel[urgent="true"] { color: #b3261e; font-weight: 600; }
#commandView { background: palette(base); border: 1px solid palette(midlight); border-radius: 4px; }
#hiddenWarning {
    color: #b3261e; font-weight: 600; background: #fdecea; border-radius: 4px; padding: 3px 6px;
}
#rowNotes { color: #8a4b00; }
#description, #patternKeys { color: palette(text); }
#choice_deny:enabled { color: #b3261e; }
#keyHints { color: palette(placeholder-text); padding: 4px 2px 0 2px; }
#emptyLabel { color: palette(placeholder-text); padding: 40px; }
#riskBadge { border-radius: 8px; padding: 1px 8px; font-weight: 600; }
#riskBadge[level="high"] { background: #b3261e; color: white; }
#riskBadge[level="medium"] { background: #8a4b00; color: white; }
#riskBadge[level="low"] { background: palette(midlight); color: palette(text); font-weight: 400; }
#rowCard[resolved="true"] #riskBadge { background: palette(mid); color: palette(window); }
#rowCard[resolved="true"] #riskSummary { color: palette(placeholder-text); }
#riskSummary[level="high"] { color: #b3261e; font-weight: 600; }
#riskSummary[level="medium"] { color: #8a4b00; font-weight: 600; }
#riskSummary[level="low"] { color: palette(placeholder-text); }
#contextLine, #agentMessage { color: palette(placeholder-text); }
#agentToggle { padding: 0 4px; }
#resultLine[tone="good"] { color: #1b7a36; font-weight: 600; }
#resultLine[tone="bad"] { color: #b3261e; font-weight: 600; }
#resultLine[tone="ended"] { color: palette(placeholder-text); font-weight: 600; }
#resultOutput {
    background: palette(window); border: 1px solid palette(midlight); border-radius: 4px;
    padding: 3px 6px;
}
"""
