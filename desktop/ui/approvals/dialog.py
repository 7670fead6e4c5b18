"""The one window where a person answers every command an agent waits on.

Why it looks and behaves this way (the tray engineer codes against the public methods):

* **It never talks to the network.** The bridge feeds it the core's frozen ``Approval`` values
  through :meth:`ApprovalDialog.upsert`; a decision leaves as one :class:`DecisionRequest` on
  ``decision_requested``. The core decides what happens next; the row only says "Sending…" once
  the next ``upsert`` says so. Until then its buttons are off, so a double click cannot send two
  answers; if the core refuses, the bridge calls :meth:`decision_refused` (or upserts the row
  WAITING again) and the buttons come back.
* **Grouped and stable**: gateway → session → batch, oldest first, appended only (``layout``),
  and the card under the pointer or the selection never moves on screen (``list_view``).
  Resolved rows stay greyed with their outcome; a batch leaves once every row is resolved and
  ``grace_seconds`` passed with the pointer off the list, or when the person clicks "Dismiss".
* **No focus stealing**: only :meth:`present` with ``activate=True`` (the person asked: tray
  click, notification click via :meth:`focus_batch`) raises and activates the window.
* **Keyboard first** (``keys``): the map is in the module docstring there; a held key can never
  answer a second row. While the dialog is the active window the selection only moves when the
  person moves it (or answers the selected row); while it is not, or when it is opened
  explicitly, a selection left on an answered row jumps to the first row still waiting.
* **Time is a parameter**: ``clock`` must be the core's clock (monotonic seconds), because
  ``Approval.expires_at`` is on it. One QTimer ticks only while a row counts down or a resolved
  batch waits out its grace.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QDialog, QMessageBox, QVBoxLayout, QWidget

from desktop.core.model import Approval, ApprovalPhase, Choice
from desktop.ui.approvals import rules, texts
from desktop.ui.approvals.confirm import AlwaysConfirmation
from desktop.ui.approvals.input_router import InputRouter
from desktop.ui.approvals.layout import BatchGroup, RowEntry, RowId, in_arrival_order
from desktop.ui.approvals.list_view import ApprovalListView
from desktop.ui.approvals.requests import (
    SURFACE_BATCH,
    SURFACE_BUTTON,
    SURFACE_KEYBOARD,
    DecisionRequest,
)
from desktop.ui.approvals.row_card import RowCard, plain_label
from desktop.ui.approvals.style import STYLESHEET
from desktop.ui.approvals.tree_model import ApprovalTreeModel


class ApprovalDialog(QDialog):
    """Every waiting command, grouped; emits ``decision_requested(DecisionRequest)``."""

    decision_requested = Signal(object)  # DecisionRequest

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        grace_seconds: float = 8.0,
        tick_ms: int = 1000,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("approvalDialog")
        self.setStyleSheet(STYLESHEET)
        self.setWindowTitle("Hermes — commands waiting for you")
        self.resize(780, 640)
        self.setMinimumWidth(480)
        self._clock = clock
        self._grace = grace_seconds
        self._selected: RowId | None = None
        self._intents: dict[int, rules.BatchIntent] = {}  # batch uid -> "… all" as clicked
        self._confirmation: tuple[AlwaysConfirmation, RowEntry] | None = None
        self.model = ApprovalTreeModel(self)
        self.list_view = ApprovalListView(self.model, clock)
        self.list_view.choice_clicked.connect(self._on_choice_clicked)
        self.list_view.reconfirm_clicked.connect(self._on_reconfirm_clicked)
        self.list_view.batch_action.connect(self._on_batch_action)
        self.list_view.dismiss_clicked.connect(self._remove_batch)
        hints = plain_label("keyHints")
        hints.setText(texts.KEY_HINTS)
        hints.setAlignment(Qt.AlignmentFlag.AlignCenter)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 8)
        box.addWidget(self.list_view, 1)
        box.addWidget(hints)
        self._timer = QTimer(self)
        self._timer.setObjectName("countdownTimer")
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self._tick)
        self._input = InputRouter(
            self,
            self.list_view,
            move=self._move_selection,
            page=self._page_command,
            can_decide=self._can_decide_selected,
            decide=self._decide_selected,
            clicked=lambda card: self._select(card.entry),
        )
        self.list_view.setFocus()  # the keyboard's home once the window is active
        self._after_change()

    # -- public API -----------------------------------------------------------------------------
    def upsert(
        self, gateway_id: str, gateway_name: str, approval: Approval, session_title: str
    ) -> None:
        """Add or update one row from the core's latest value (ApprovalRequested/Changed)."""
        known = self.model.board.row((gateway_id, approval.key))
        local_state_changed = known is not None and rules.absorb_core_state(known, approval)
        row = self.model.upsert(gateway_id, gateway_name, approval, session_title)
        if local_state_changed:  # the model announced approval changes itself
            self.model.node_changed(row)
            self.model.node_changed(row.batch)
        self.model.board.note_resolution(row.batch, self._clock())
        confirmation = self._confirmation
        if confirmation and confirmation[1] is row and not rules.can_decide(row, Choice.ALWAYS):
            confirmation[0].cancel()
        self._follow_through(row.batch)
        if not self.isActiveWindow():  # nobody is typing here: the selection may move freely
            self._select_actionable()
        self._after_change()

    def focus_batch(self, gateway_id: str, batch_id: str) -> None:
        """Show the dialog, active, with that batch's first waiting row selected."""
        batch = self.model.board.find_batch(gateway_id, batch_id)
        self.present(activate=True)
        if batch is not None:
            waiting = [r for r in in_arrival_order(batch.rows) if r.is_open]
            self._select((waiting or batch.rows)[0])

    def pending_count(self) -> int:
        """Rows that still need the person (waiting, or stale and awaiting a re-confirmation)."""
        return sum(1 for r in self.model.board.rows() if r.is_open)

    def clear_gateway(self, gateway_id: str) -> None:
        """Forget every row of a gateway at once (removed from the settings, say)."""
        gateway = self.model.board.gateway(gateway_id)
        if gateway is not None:
            self._before_removal([b for s in gateway.sessions for b in s.batches])
            self.model.remove(gateway)
            self._after_removal()

    def present(self, activate: bool) -> None:
        """Show the window; raise and focus it only when the person asked for it."""
        self.list_view.materialise()  # before show(): built hidden, laid out once when shown
        if activate:
            self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
            self.show()
            self.raise_()
            self.activateWindow()
            self.list_view.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
            self._select_actionable()
        elif not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
            self.show()
        self._select(self.selected_row())  # scrolls it into view now that there is geometry

    def decision_refused(self, gateway_id: str, key: str, reason: str) -> None:
        """The core did not send the decision: give the row its buttons back and say why."""
        row = self.model.board.row((gateway_id, key))
        if row is None:
            return
        row.awaiting_core = False
        row.notice = reason or "the gateway core refused it"
        self._intents.pop(row.batch.uid, None)
        self.model.node_changed(row)
        self.model.node_changed(row.batch)

    def showEvent(self, event: QShowEvent) -> None:
        """Cards exist while the dialog is shown (also when shown other than by present)."""
        self.list_view.materialise()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        """Drop the cards when the dialog is closed or hidden (not when merely minimised)."""
        super().hideEvent(event)
        if not event.spontaneous():
            self.list_view.dematerialise()

    # -- read-only helpers (tests, the tray) ----------------------------------------------------
    def selected_row(self) -> RowEntry | None:
        """The row the keyboard acts on."""
        return self.model.board.row(self._selected) if self._selected else None

    def card(self, gateway_id: str, key: str) -> RowCard | None:
        """The card showing that row, if any.

        Cards exist only while the dialog is shown; asking for one while it is hidden builds
        them all (they are dropped again the next time the dialog hides). The app never asks:
        this is for tests and tools that inspect a row.
        """
        row = self.model.board.row((gateway_id, key))
        if row is None:
            return None
        self.list_view.materialise()
        return self.list_view.card(row)

    @property
    def ticking(self) -> bool:
        """The countdown timer runs (only while something counts down)."""
        return self._timer.isActive()

    @property
    def confirmation_box(self) -> QMessageBox | None:
        """The open "Always allow?" question, if any."""
        if self._confirmation is None or self._confirmation[0].done:
            return None
        return self._confirmation[0].box

    # -- deciding -------------------------------------------------------------------------------
    def _answer(self, row: RowEntry, choice: Choice, surface: str) -> None:
        if not rules.can_decide(row, choice):
            return
        if choice is Choice.ALWAYS:
            self._ask_always(row, surface)
            return
        self._send([row], choice, surface)
        self._advance_from(row)

    def _ask_always(self, row: RowEntry, surface: str) -> None:
        if self._confirmation is not None:
            self._confirmation[0].cancel()

        def confirmed() -> None:
            if self.model.board.row(row.row_id) is row and rules.can_decide(row, Choice.ALWAYS):
                self._send([row], Choice.ALWAYS, surface)
                self._advance_from(row)

        def finished() -> None:
            self._confirmation = None
            self._input.gate.reset()  # Shift+A was released in the question, not here

        confirmation = AlwaysConfirmation(self, row.approval, confirmed, finished)
        self._confirmation = (confirmation, row)
        confirmation.open()

    def _send(self, rows: list[RowEntry], choice: Choice, surface: str) -> None:
        """Mark each row as answered and ask for its decision, in order.

        The core's events reach the dialog only after ``decide()`` returned (next loop turn).
        """
        for r in rows:
            r.awaiting_core, r.reconfirming, r.notice = True, False, ""
            self.model.node_changed(r)
            gateway_id, key = r.row_id
            stale = r.approval.phase is ApprovalPhase.STALE
            self.decision_requested.emit(DecisionRequest(gateway_id, key, choice, surface, stale))
        if rows:
            self.model.node_changed(rows[0].batch)

    def _follow_through(self, batch: BatchGroup) -> None:
        intent = self._intents.get(batch.uid)
        if intent is None:
            return
        if not intent.still_valid(batch):
            del self._intents[batch.uid]
            return
        due = intent.due(batch)
        intent.sent.update(r.approval.key for r in due)
        self._send(due, intent.choice, SURFACE_BATCH)

    def _advance_from(self, row: RowEntry) -> None:
        if self._selected == row.row_id:
            self._select(self.model.board.next_open(row.row_id) or row)

    def _on_choice_clicked(self, row: RowEntry, choice: Choice) -> None:
        self._select(row)
        self._answer(row, choice, SURFACE_BUTTON)

    def _on_reconfirm_clicked(self, row: RowEntry) -> None:
        if rules.needs_reconfirm(row):
            row.reconfirming = True
            self.model.node_changed(row)
        self._select(row)

    def _on_batch_action(self, batch: BatchGroup, choice: Choice) -> None:
        intent = rules.BatchIntent.for_batch(batch, choice)
        targets = rules.batch_targets(batch, choice)
        intent.sent.update(r.approval.key for r in targets)
        self._intents[batch.uid] = intent
        selected = self.selected_row()
        self._send(targets, choice, SURFACE_BATCH)
        if selected is not None and selected.batch is batch:
            self._advance_from(selected)

    # -- selection, time, removal ---------------------------------------------------------------
    def _select_actionable(self) -> None:
        """Keep a selected row that still waits; otherwise select the first one that does.

        Only called while the person is not typing in the dialog (it is inactive, or they just
        opened it): a selection that jumps to a row that arrived a moment ago, under a key being
        pressed, could answer a command nobody read.
        """
        current = self.selected_row()
        if current is None or not current.is_open or current.awaiting_core:
            self._select(self.model.board.next_open(None) or current)

    def _select(self, row: RowEntry | None) -> None:
        self._selected = row.row_id if row is not None else None
        self.list_view.set_selected(row)

    def _tick(self) -> None:
        now = self._clock()
        self.list_view.refresh_countdowns(now)
        if not self.list_view.pointer_inside():
            for batch in self.model.board.past_grace(now, self._grace):
                self._remove_batch(batch)
        self._sync_timer()

    def _remove_batch(self, batch: BatchGroup) -> None:
        if self.model.board.node(batch.uid) is not batch:
            return
        self._before_removal([batch])
        self.model.remove(batch)
        self._after_removal()

    def _before_removal(self, batches: list[BatchGroup]) -> None:
        leaving = {r.uid for b in batches for r in b.rows}
        for b in batches:
            self._intents.pop(b.uid, None)
        if self._confirmation and self._confirmation[1].uid in leaving:
            self._confirmation[0].cancel()
        selected = self.selected_row()
        if selected is not None and selected.uid in leaving:
            after = self.model.board.next_open(selected.row_id)
            self._select(after if after is not None and after.uid not in leaving else None)

    def _after_removal(self) -> None:
        self._after_change()
        if not self.model.board.gateways and self.isVisible() and not self.isActiveWindow():
            self.hide()  # nothing left to ask, and the person is not working in it

    def _after_change(self) -> None:
        count = self.pending_count()
        waiting = f"{count} command{'' if count == 1 else 's'} waiting" if count else "all answered"
        self.setWindowTitle(f"Hermes approvals — {waiting}")
        self._sync_timer()

    def _sync_timer(self) -> None:
        board = self.model.board
        needed = any(rules.counts_down(r) for r in board.rows()) or any(
            b.resolved_at is not None for b in board.batches()
        )
        if needed and not self._timer.isActive():
            self._timer.start()
        elif not needed and self._timer.isActive():
            self._timer.stop()

    # -- keyboard intents (from InputRouter) ----------------------------------------------------
    def _move_selection(self, step: int) -> None:
        self._select(self.model.board.neighbour(self._selected, step))

    def _page_command(self, pages: int) -> None:
        row = self.selected_row()
        card = self.list_view.card(row) if row is not None else None
        if card is not None:
            card.command.scroll_page(pages)

    def _can_decide_selected(self, choice: Choice) -> bool:
        row = self.selected_row()
        return row is not None and rules.can_decide(row, choice)

    def _decide_selected(self, choice: Choice) -> None:
        row = self.selected_row()
        if row is not None:
            self._answer(row, choice, SURFACE_KEYBOARD)
