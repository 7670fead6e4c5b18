"""A small window to answer one ``clarify`` question: its choices as buttons, or typed text.

A window per question, not a card in the approvals dialog (built around commands), keeps "which
question did I answer" obvious. Plain text, the question revealed whole. ``answer`` queues
exactly one frame or says why not; once the prompt ends nothing here can send any more.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import DecisionResult, Prompt
from desktop.core.prompt_book import ANSWERED, EXPIRED, MAX_ANSWER_CHARS
from desktop.core.text_safety import reveal
from desktop.logsetup import mask_own_secrets
from desktop.model.bridge_events import PromptUpdate
from desktop.model.plain_text import markup_safe, menu_label, shown
from desktop.model.prompt_text import ended_text
from desktop.ui import icons

Answer = Callable[[str, str, str], DecisionResult]  # gateway_id, prompt key, text


class ClarifyDialog(QDialog):
    def __init__(self, update: PromptUpdate, answer: Answer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._answer = answer
        self._open = True
        self.gateway_id = update.gateway_id
        self.prompt: Prompt = update.prompt
        self.setWindowTitle("Question — Hermes Tray")
        self.setWindowIcon(icons.app_icon())
        self.setObjectName(f"clarify:{update.gateway_id}:{update.prompt.key}")
        self.resize(520, 260)
        where = QLabel(
            f"{shown(update.session_title, 80)} on {shown(update.gateway_name, 60)} asks:"
        )
        where.setTextFormat(Qt.TextFormat.PlainText)
        self.question = QLabel(reveal(mask_own_secrets(update.prompt.question)))
        self.question.setObjectName("clarify-question")
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(where)
        layout.addWidget(self.question)
        self.choice_buttons: list[QPushButton] = []
        for index, choice in enumerate(update.prompt.choices):
            button = QPushButton(menu_label(choice, 80))
            button.setObjectName(f"clarify-choice:{index}")
            button.setToolTip(markup_safe(choice, 300))
            button.setAutoDefault(False)  # Enter or a stray key press never picks a choice
            button.clicked.connect(lambda _=False, text=choice: self._send(text))
            layout.addWidget(button)
            self.choice_buttons.append(button)
        self.free_text = QLineEdit()
        self.free_text.setObjectName("clarify-free-text")
        self.free_text.setMaxLength(MAX_ANSWER_CHARS)
        self.free_text.setPlaceholderText(
            "Or type your own answer" if update.prompt.choices else "Type your answer"
        )
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("clarify-send")
        self.send_button.clicked.connect(self._send_typed)
        self.free_text.returnPressed.connect(self._send_typed)
        self.free_text.textChanged.connect(
            lambda text: self.send_button.setEnabled(self._open and bool(text.strip()))
        )
        self.typed_row = QWidget()
        typed = QHBoxLayout(self.typed_row)
        typed.addWidget(self.free_text, 1)
        typed.addWidget(self.send_button)
        layout.addWidget(self.typed_row)
        self.status = QLabel("")
        self.status.setObjectName("clarify-status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(False)
        self.send_button.setAutoDefault(False)
        layout.addWidget(buttons)
        self.free_text.setFocus()
        self.update_prompt(update.prompt)

    def update_prompt(self, prompt: Prompt) -> None:
        """The prompt's latest value (it may have become answerable, or stopped being so)."""
        self.prompt = prompt
        takes_text = prompt.free_text or not prompt.choices
        self.typed_row.setVisible(takes_text)
        can = self._open and prompt.answerable
        for button in self.choice_buttons:
            button.setEnabled(can)
        self.free_text.setEnabled(can)
        self.send_button.setEnabled(can and bool(self.free_text.text().strip()))
        if self._open:
            self.status.setText(
                "" if prompt.answerable else f"Answer it in Hermes: {prompt.blocked_reason}"
            )

    def ended(self, reason: str) -> None:
        """Say why the prompt ended; nothing here can send any more."""
        self._open = False
        self.update_prompt(self.prompt)
        self.status.setText(ended_text(reason))

    def _send_typed(self) -> None:
        text = self.free_text.text()
        if text.strip():
            self._send(text)

    def _send(self, text: str) -> None:
        if not self._open:
            return
        result = self._answer(self.gateway_id, self.prompt.key, text)
        if result.sent:
            self.ended(ANSWERED)
            self.accept()
        elif result.reason.startswith("expired"):
            self.ended(EXPIRED)
        else:
            self.status.setText(f"Not sent: {result.reason}")
