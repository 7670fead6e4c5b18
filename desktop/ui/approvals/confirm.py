"""The "Always allow?" question, asked without blocking the event loop.

"Always" writes to Hermes' permanent allowlist: the person sees which pattern first. Opened with
``open()``, never ``exec()`` (which would starve the qasync loop, stack.md §5).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.core.model import Approval
from desktop.model.approvals import texts


class AlwaysConfirmation:
    """One open question; ``on_confirmed`` runs only for "Always allow", ``on_finished`` always."""

    def __init__(
        self,
        parent: QWidget,
        approval: Approval,
        on_confirmed: Callable[[], None],
        on_finished: Callable[[], None],
    ) -> None:
        self.box = QMessageBox(parent)
        self.box.setObjectName("alwaysConfirmation")
        self.box.setIcon(QMessageBox.Icon.Warning)
        self.box.setWindowTitle("Always allow?")
        self.box.setTextFormat(Qt.TextFormat.PlainText)
        self.box.setText(texts.always_confirmation(approval))
        self.confirm_button = self.box.addButton("Always allow", QMessageBox.ButtonRole.AcceptRole)
        self.confirm_button.setObjectName("confirmAlways")
        self.cancel_button = self.box.addButton(QMessageBox.StandardButton.Cancel)
        self.box.setDefaultButton(self.cancel_button)  # Enter must not allow anything for good
        self.box.setEscapeButton(self.cancel_button)
        self.box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._on_confirmed = on_confirmed
        self._on_finished_callback = on_finished
        self.done = False
        self.box.finished.connect(self._on_finished)

    def cancel(self) -> None:
        """Close the question without allowing anything."""
        if not self.done:
            self.box.reject()

    def _on_finished(self, _result: int) -> None:
        self.done = True
        confirmed = self.box.clickedButton() is self.confirm_button
        self._on_finished_callback()
        if confirmed:
            self._on_confirmed()
