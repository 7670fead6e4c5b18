"""The decision journal in the running app: bridge signals in, menu lines and "Open journal" out.

When the journal cannot be written (a full or read-only disk) it holds the lines in memory, says
so (``problem``, for the tray's status) and retries every :data:`RETRY_MS`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, QUrl, Signal

from desktop.journal import Journal, JournalEntry, local_now
from desktop.model.bridge_events import ApprovalUpdate, CommandReport, DecisionMade
from desktop.model.decision_log import DecisionRecorder, entry_details, entry_line
from desktop.ui.bridge import GatewayBridge

log = logging.getLogger(__name__)

RETRY_MS = 30_000


class JournalController(QObject):
    changed = Signal()  # a line was written, or ``problem`` changed

    def __init__(
        self,
        bridge: GatewayBridge,
        journal: Journal,
        *,
        opener: Callable[[QUrl], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.journal = journal
        self.recorder = DecisionRecorder(journal)
        self._opener = opener
        self.problem = journal.problem
        self._retry = QTimer(self, interval=RETRY_MS)
        self._retry.timeout.connect(self.retry)
        bridge.decision_made.connect(self._on_decision_made)
        bridge.approval_changed.connect(self._on_approval_changed)
        bridge.command_ran.connect(self._on_command_ran)
        bridge.gateway_removed.connect(self._on_gateway_removed)

    def retry(self) -> None:
        self.journal.retry()
        self._check_problem()

    def _check_problem(self) -> None:
        problem = self.journal.problem
        if not problem:
            self._retry.stop()
        elif not self._retry.isActive():
            self._retry.start()
        if problem != self.problem:
            self.problem = problem
            self.changed.emit()

    def recent_lines(self) -> tuple[tuple[str, str], ...]:
        """``(menu line, details)`` of the last decisions, newest first."""
        today = local_now()
        return tuple((entry_line(e, today), entry_details(e)) for e in self.recorder.recent)

    def available(self) -> bool:
        return bool(self.recorder.recent) or self.journal.path.exists()

    def open_journal(self) -> bool:
        if not self.journal.path.exists():
            log.info("no decision journal at %s yet", self.journal.path)
            return False
        opened = self._opener(QUrl.fromLocalFile(str(self.journal.path)))
        if not opened:
            log.warning("the desktop could not open %s", self.journal.path)
        return bool(opened)

    def close(self) -> None:
        """At quit: decisions still waiting for an outcome are written as unknown."""
        self._retry.stop()
        if self.recorder.close():
            self.changed.emit()
        if self.journal.unwritten and not self.journal.retry():
            log.error(
                "Quitting with %d decision(s) the journal could not write", self.journal.unwritten
            )

    def _wrote(self, written: JournalEntry | list[JournalEntry] | None) -> None:
        if written:
            self.changed.emit()
            self._check_problem()

    def _on_decision_made(self, made: DecisionMade) -> None:
        self._wrote(self.recorder.decided(made))

    def _on_approval_changed(self, update: ApprovalUpdate) -> None:
        self._wrote(
            self.recorder.approval_changed(
                update.gateway_id, update.approval, update.gateway_name, update.session_title
            )
        )

    def _on_command_ran(self, report: CommandReport) -> None:
        self._wrote(self.recorder.command_ran(report))

    def _on_gateway_removed(self, gateway_id: str) -> None:
        self._wrote(
            self.recorder.gateway_removed(gateway_id, "the gateway was removed in Settings")
        )
