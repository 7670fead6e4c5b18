"""The "New task…" dialog: a gateway, a directory and a prompt start a session the tray watches.

On hermes-agent 0.19.0 a session is visible only to the client that created it, so starting work
from the tray is how a person gets a session whose approvals the tray sees. The prompt has the
focus when it opens (text typed into a focused gateway box was lost); Ctrl+Enter starts.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.model.plain_text import shown
from desktop.model.snapshot import AppSnapshot, Link
from desktop.ui import icons


class NewTaskDialog(QDialog):
    task_requested = Signal(str, str, str)  # gateway_id, cwd, prompt

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New task — Hermes Tray")
        self.setWindowIcon(icons.app_icon())
        self.setObjectName("new-task-dialog")
        self.resize(520, 300)
        self.gateway = QComboBox()
        self.gateway_label = QLabel("Gateway")
        self.directory = QLineEdit(os.path.expanduser("~"))
        self.directory.setPlaceholderText("Folder the agent works in, on the gateway's machine")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.directory, 1)
        row.addWidget(browse)
        self.prompt = QPlainTextEdit()
        self.prompt.setPlaceholderText(
            "What should the agent do? e.g. “Run the tests and fix what fails”"
        )
        self.hint = QLabel(
            "Ctrl+Enter starts. Hermes Tray follows the new session, so the commands it wants "
            "to run ask you here."
        )
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Prompt", self.prompt)
        form.addRow("Folder", row)
        form.addRow(self.gateway_label, self.gateway)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.start_button = self.buttons.addButton(
            "Start task", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.start_button.setToolTip("Ctrl+Enter")
        self.buttons.accepted.connect(self._start)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(self.start_button.click)  # nothing while disabled
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.hint)
        layout.addWidget(self.buttons)
        self.prompt.textChanged.connect(self._update_enabled)
        self.directory.textChanged.connect(self._update_enabled)

    def set_gateways(self, snapshot: AppSnapshot) -> None:
        """Offer the connected gateways (others cannot create sessions now)."""
        current = self.gateway.currentData()
        self.gateway.clear()
        for g in snapshot.gateways:
            if g.link is Link.UP:
                self.gateway.addItem(shown(g.name, 60), g.gateway_id)
        index = self.gateway.findData(current)
        if index >= 0:
            self.gateway.setCurrentIndex(index)
        several = self.gateway.count() > 1
        self.gateway.setVisible(several)
        self.gateway_label.setVisible(several)
        self._update_enabled()

    def present(self, snapshot: AppSnapshot) -> None:
        self.set_gateways(snapshot)
        self.show()
        self.raise_()
        self.activateWindow()
        self.prompt.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def _update_enabled(self) -> None:
        ok = (
            self.gateway.count() > 0
            and bool(self.directory.text().strip())
            and bool(self.prompt.toPlainText().strip())
        )
        self.start_button.setEnabled(ok)
        self.start_button.setToolTip("" if self.gateway.count() else "No gateway is connected.")

    def _browse(self) -> None:
        """A non-blocking folder picker (never a nested ``exec()``: stack.md §5)."""
        picker = QFileDialog(self, "Directory for the task", self.directory.text())
        picker.setFileMode(QFileDialog.FileMode.Directory)
        picker.setOption(QFileDialog.Option.ShowDirsOnly, True)
        picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        picker.fileSelected.connect(self.directory.setText)
        picker.open()

    def _start(self) -> None:
        gateway_id = self.gateway.currentData()
        if not gateway_id:
            return
        self.task_requested.emit(
            gateway_id, self.directory.text().strip(), self.prompt.toPlainText().strip()
        )
        self.prompt.clear()
        self.accept()
