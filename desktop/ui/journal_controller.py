"""The decision journal in the running app: bridge signals in, menu lines and "Open journal" out.

Why a thin Qt adapter: linking a decision to its outcome is pure logic (``decision_log``); this
object only connects the bridge's ``decision_made``, ``approval_changed`` and
``gateway_removed`` to it, tells the tray when a line was written, and opens the file with the
desktop's default application. The opener is injected so tests never launch one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices

from desktop.journal import Journal
from desktop.ui.bridge import GatewayBridge
from desktop.ui.bridge_events import ApprovalUpdate, DecisionMade
from desktop.ui.decision_log import DecisionRecorder, entry_details, entry_line

log = logging.getLogger(__name__)

Opener = Callable[[QUrl], bool]


def _local_now() -> datetime:
    return datetime.now().astimezone()


class JournalController(QObject):
    """Journal every decision with its gateway-reported outcome; serve the Recent decisions."""

    changed = Signal()  # a line was written

    def __init__(
        self,
        bridge: GatewayBridge,
        journal: Journal,
        *,
        opener: Opener = QDesktopServices.openUrl,
        clock: Callable[[], datetime] = _local_now,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.journal = journal
        self.recorder = DecisionRecorder(journal, clock=clock)
        self._opener = opener
        self._clock = clock
        bridge.decision_made.connect(self._on_decision_made)
        bridge.approval_changed.connect(self._on_approval_changed)
        bridge.gateway_removed.connect(self._on_gateway_removed)

    @property
    def path(self) -> Path:
        return self.journal.path

    def recent_lines(self) -> tuple[tuple[str, str], ...]:
        """``(menu line, details)`` of the last decisions, newest first."""
        today = self._clock()
        return tuple((entry_line(e, today), entry_details(e)) for e in self.recorder.recent)

    def available(self) -> bool:
        return bool(self.recorder.recent) or self.path.exists()

    def open_journal(self) -> bool:
        """Open the journal file in the desktop's default application."""
        if not self.path.exists():
            log.info("no decision journal at %s yet", self.path)
            return False
        opened = self._opener(QUrl.fromLocalFile(str(self.path)))
        if not opened:
            log.warning("the desktop could not open %s", self.path)
        return bool(opened)

    def close(self) -> None:
        """At quit: decisions still waiting for an outcome are written as unknown."""
        if self.recorder.pending_count:
            self.recorder.close()
            self.changed.emit()

    def _on_decision_made(self, made: DecisionMade) -> None:
        if self.recorder.decided(made) is not None:
            self.changed.emit()

    def _on_approval_changed(self, update: ApprovalUpdate) -> None:
        if (
            self.recorder.approval_changed(
                update.gateway_id, update.approval, update.gateway_name, update.session_title
            )
            is not None
        ):
            self.changed.emit()

    def _on_gateway_removed(self, gateway_id: str) -> None:
        if self.recorder.gateway_removed(gateway_id, "the gateway was removed in Settings"):
            self.changed.emit()
