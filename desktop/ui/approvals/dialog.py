"""The one window where a person answers every command an agent waits on.

What a person sees: docs/using-the-tray.md ("The approval dialog"); what may be answered:
docs/safety.md ("Only what you saw"), decided by ``desktop.model.approvals``. The dialog keeps
no rows (the store does) and never talks to the network: a decision leaves as one
``DecisionRequest``, and the row's buttons stay off until the next ``upsert`` (a double click
cannot send two answers). ``clock`` must be the core's (``Approval.expires_at`` is on it).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QHideEvent,
    QKeyEvent,
    QMouseEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QDialog,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import Approval, Choice, SessionState
from desktop.journal import Surface
from desktop.model.app_state import AppState
from desktop.model.approvals import rules, texts
from desktop.model.approvals.layout import (
    ApprovalBoard,
    BatchGroup,
    RowEntry,
    RowId,
    in_arrival_order,
)
from desktop.model.approvals.texts import KEY_HINTS
from desktop.model.bridge_events import DecisionRequest, RowsForgotten, SessionUpdate
from desktop.model.window_place import Box, dialog_origin
from desktop.risk import assess as risk_assess
from desktop.ui.approvals.cards import STYLESHEET, RowCard, plain_label
from desktop.ui.approvals.list_view import ApprovalListView, pointer_over

SessionLookup = Callable[[str, str], SessionState | None]  # (gateway_id, session_id) -> session


_K = Qt.Key
_M = Qt.KeyboardModifier
_NONE = _M.NoModifier
Move = tuple[str, int]  # ("row" or "page", -1 up / 1 down)
_BINDINGS: dict[tuple[Qt.Key, Qt.KeyboardModifier], Choice | Move] = {
    (_K.Key_Up, _NONE): ("row", -1),
    (_K.Key_Down, _NONE): ("row", 1),
    (_K.Key_PageUp, _NONE): ("page", -1),
    (_K.Key_PageDown, _NONE): ("page", 1),
    (_K.Key_A, _NONE): Choice.ONCE,
    (_K.Key_Return, _M.ControlModifier): Choice.ONCE,
    (_K.Key_Enter, _M.ControlModifier): Choice.ONCE,
    (_K.Key_D, _NONE): Choice.DENY,
    (_K.Key_Backspace, _M.ControlModifier): Choice.DENY,
    (_K.Key_S, _NONE): Choice.SESSION,
    (_K.Key_A, _M.ShiftModifier): Choice.ALWAYS,
}


def action_for(key: int, modifiers: Qt.KeyboardModifier) -> Choice | Move | None:
    """The action bound to ``key`` with exactly these modifiers (keypad flag ignored)."""
    mods = modifiers & ~_M.KeypadModifier
    try:
        return _BINDINGS.get((Qt.Key(key), Qt.KeyboardModifier(mods)))
    except ValueError:  # not a Qt.Key member (e.g. a dead key)
        return None


FRESH_GAP_MS = 30  # release to press again: X11 repeats ~0 ms, a person's re-press 50+ ms


class RepeatGate:
    """Let one key press make at most one decision.

    After a decision the selection moves on, so a key held a moment too long would answer the
    next, unread command: auto-repeats never decide, and the deciding key must be released first.
    Qt's repeat flag is not enough: on X11 a held key sends release/press pairs with one timestamp
    and Qt marks only some, so a press within FRESH_GAP_MS of that release is the same hold.
    Times are key event timestamps in ms (0: a synthesized event).
    """

    def __init__(self) -> None:
        self._held: int | None = None  # the key that made the last decision, until released
        self._released: tuple[int, int] | None = None  # (that key, when it came up)

    def press(self, key: int, *, auto_repeat: bool, at_ms: int = 0) -> bool:
        """A decision key went down: True if it may decide (and the gate then locks on it)."""
        if auto_repeat or self._held is not None or self._repeat_of_release(key, at_ms):
            if self._released is not None and self._released[0] == key:
                self._held, self._released = key, None  # the hold goes on: wait for a real lift
            return False
        self._held, self._released = key, None
        return True

    def release(self, key: int, *, auto_repeat: bool, at_ms: int = 0) -> None:
        if not auto_repeat and key == self._held:
            self._held, self._released = None, (key, at_ms)

    def reset(self) -> None:
        """Forget the held key (focus left the dialog, so its release may never arrive here)."""
        self._held = self._released = None

    def _repeat_of_release(self, key: int, at_ms: int) -> bool:
        if self._released is None or self._released[0] != key:
            return False
        released_at = self._released[1]
        return bool(at_ms and released_at) and 0 <= at_ms - released_at < FRESH_GAP_MS


class ApprovalDialog(QDialog):
    decision_requested = Signal(object)  # DecisionRequest
    stop_requested = Signal(str, str)  # (gateway_id, session_id): interrupt the agent's turn

    def __init__(
        self,
        rows: AppState,
        *,
        clock: Callable[[], float] = time.monotonic,
        grace_seconds: float = 8.0,
        tick_ms: int = 1000,
        session_of: SessionLookup = lambda gateway_id, session_id: None,  # no YOLO note
    ) -> None:
        super().__init__()
        self.setObjectName("approvalDialog")
        self.setStyleSheet(STYLESHEET)
        self.resize(780, 640)
        self._clock = clock
        self._grace = grace_seconds
        self._selected: RowId | None = None
        self._selected_at: float | None = None
        self._intents: dict[int, rules.BatchIntent] = {}  # batch uid -> "… all" as clicked
        self._confirmation: tuple[QMessageBox, RowEntry] | None = None  # "Always allow?"
        self._open: set[RowId] = set()  # rows that still need the person
        self._counting: set[RowId] = set()  # open rows with an expiry (the countdown timer)
        self._answered: dict[int, BatchGroup] = {}  # fully resolved batches, until they leave
        self._notice_about: RowId | None = None  # the row the notice line speaks of, if one
        self._session_of = session_of  # the store's sessions: whose YOLO is on, their names
        self.board = ApprovalBoard(rows)
        cover = functools.partial(self._intent, choice=Choice.ONCE)  # what "Approve all" covers
        self.list_view = ApprovalListView(self.board, clock, cover)
        self.list_view.on_screen_changed.connect(self._on_screen_changed)
        # On the list, not the window: a window's own minimum would stop its layout from
        # widening it when the list needs more (see ApprovalListView._keep_buttons_whole).
        self.list_view.setMinimumWidth(480)
        self.list_view.choice_clicked.connect(self._on_choice_clicked)
        self.list_view.reconfirm_clicked.connect(self._on_reconfirm_clicked)
        self.list_view.batch_action.connect(self._on_batch_action)
        self.list_view.stop_clicked.connect(self._on_stop_clicked)
        self.list_view.dismiss_clicked.connect(self._remove_batch)
        self.yolo_note = plain_label("yoloNote")
        self.yolo_note.hide()
        self.notice = plain_label("dialogNotice")  # why a key did nothing, what a press left out
        hints = plain_label("keyHints")
        hints.setText(KEY_HINTS)
        hints.setAlignment(Qt.AlignmentFlag.AlignCenter)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 8)
        box.addWidget(self.list_view, 1)
        for label in (self.yolo_note, self.notice, hints):
            label.setContentsMargins(12, 0, 12, 0)
            box.addWidget(label)
        self._timer = QTimer(self)
        self._timer.setObjectName("countdownTimer")
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self._tick)
        self._leave_timer = QTimer(self)  # when the next answered batch may leave
        self._leave_timer.setObjectName("leaveTimer")
        self._leave_timer.setSingleShot(True)
        self._leave_timer.timeout.connect(self._let_batches_leave)
        self._cover_timer = QTimer(self)  # when a row on screen was read long enough
        self._cover_timer.setSingleShot(True)
        self._cover_timer.timeout.connect(self._on_screen_changed)
        self._gate = RepeatGate()
        self._filtered = (self, self.list_view, self.list_view.viewport())  # see eventFilter
        self._focused: list[QWidget] = []  # the focus widget (and its viewport), filtered too
        for widget in self._filtered:
            widget.installEventFilter(self)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
        self.list_view.setFocus()  # the keyboard's home once the window is active
        self._note_presence()
        self._after_change()

    def upsert(
        self, gateway_id: str, gateway_name: str, approval: Approval, session_title: str
    ) -> None:
        """The store now holds ``approval`` (ApprovalRequested/Changed): show or update its row."""
        known = self.board.row((gateway_id, approval.key))
        if known is not None:
            rules.absorb_core_state(known, approval)
        row = self.list_view.upsert(gateway_id, gateway_name, approval, session_title)
        self._count(row)
        self.board.note_resolution(row.batch, self._clock())
        if row.batch.resolved_at is None:
            self._answered.pop(row.batch.uid, None)
        else:
            self._answered[row.batch.uid] = row.batch
        if self._notice_about == row.row_id and not row.is_open:
            self._say("")  # the command the line spoke of is answered
        confirmation = self._confirmation
        if confirmation and confirmation[1] is row and not rules.can_decide(row, Choice.ALWAYS):
            confirmation[0].reject()
        self._follow_through(row.batch)
        selected = self.selected_row()
        if selected is None or not selected.is_open or selected.awaiting_core:
            # Move on to the next waiting row (a key still needs key_dwell on it to answer).
            after = (
                self._next_selection(self._selected)
                if self._selected is not None
                else self.board.next_open(None)  # the first look: any waiting row
            )
            if after is not None:
                self._select(after)
        session = self._session_of(gateway_id, approval.session_id)
        if session is not None and session.yolo.effective:
            self._show_yolo_note()
        self._after_change()
        self._let_batches_leave()

    def session_changed(self, update: SessionUpdate) -> None:
        """A session's state changed: keep the YOLO note true (only sessions shown here count)."""
        if self.board.session(update.gateway_id, update.session.session_id) is not None:
            self._show_yolo_note()

    def focus_batch(self, gateway_id: str, batch_id: str, near: QRect | None = None) -> None:
        batch = self.board.find_batch(gateway_id, batch_id)
        self.present(activate=True, near=near)
        if batch is not None:
            waiting = [r for r in in_arrival_order(batch.rows) if r.is_open]
            self._choose((waiting or batch.rows)[0], with_heading=True)

    def pending_count(self) -> int:
        """Rows that still need the person (waiting, or stale and awaiting a re-confirmation)."""
        return len(self._open)

    def clear_gateway(self, gateway_id: str) -> None:
        gateway = self.board.gateway(gateway_id)
        if gateway is not None:
            self._remove([b for s in gateway.sessions for b in s.batches], release=True)
        self._show_yolo_note()

    def forget_rows(self, forgotten: RowsForgotten) -> None:
        """The store dropped these resolved rows (its bound, in a flood): stop showing them."""
        rows = (self.board.row((forgotten.gateway_id, key)) for key in forgotten.keys)
        self._remove([r for r in rows if r is not None], release=False)

    def present(self, activate: bool, near: QRect | None = None) -> None:
        """Show the window (first next to ``near``, the tray icon); focus it only if asked for."""
        if not self.isVisible():
            self._place_near(near)
        self.list_view.materialise()
        if activate:
            self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
            self.show()
            self.raise_()
            self.activateWindow()
            self.list_view.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
            current = self.selected_row()
            if current is None or not current.is_open or current.awaiting_core:
                current = self.board.next_open(None) or current
            self._select(current, with_heading=True)  # the first waiting row, heading in view
            return
        if not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
            self.show()
        self._select(self.selected_row())  # scrolls it into view now that there is geometry

    def decision_refused(self, gateway_id: str, key: str, reason: str) -> None:
        """The core did not send the decision: give the row its buttons back and say why."""
        row = self.board.row((gateway_id, key))
        if row is None:
            return
        rules.refuse(row, reason)
        self._intents.pop(row.batch.uid, None)
        self.list_view.node_changed(row)
        self.list_view.node_changed(row.batch)

    def showEvent(self, event: QShowEvent) -> None:
        self.list_view.materialise()
        super().showEvent(event)
        self._tick()  # the countdowns stood still while hidden

    def hideEvent(self, event: QHideEvent) -> None:
        """Drop the cards, and the notice of this visit, when hidden (not when minimised)."""
        super().hideEvent(event)
        if not event.spontaneous():
            self.list_view.dematerialise()
            self._say("")
        self._sync_timer()
        self._note_presence()

    def event(self, event: QEvent) -> bool:
        """The pointer came or went, or the window was (de)activated: is the person reading?"""
        handled = super().event(event)
        if event.type() in (_E.Enter, _E.Leave, _E.ActivationChange):
            self._note_presence()
        return handled

    def selected_row(self) -> RowEntry | None:
        """The row the keyboard acts on."""
        return self.board.row(self._selected) if self._selected else None

    @property
    def confirmation_box(self) -> QMessageBox | None:
        return None if self._confirmation is None else self._confirmation[0]

    def _answer(self, row: RowEntry, choice: Choice, surface: Surface) -> None:
        if not rules.can_decide(row, choice):
            return
        if choice is Choice.ALWAYS:
            self._ask_always(row, surface)
            return
        self._send([row], choice, surface)
        self._advance_from(row)

    def _ask_always(self, row: RowEntry, surface: Surface) -> None:
        """Ask first: "Always" writes to Hermes' permanent allowlist, so show which pattern.

        Opened with ``open()``, never ``exec()`` (which would starve the qasync loop, stack.md §5).
        """
        if self._confirmation is not None:
            self._confirmation[0].reject()
        box = QMessageBox(QMessageBox.Icon.Warning, "Always allow?", "", parent=self)
        box.setObjectName("alwaysConfirmation")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(texts.always_confirmation(row.approval))
        confirm = box.addButton("Always allow", QMessageBox.ButtonRole.AcceptRole)
        confirm.setObjectName("confirmAlways")
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)  # Enter must not allow anything for good
        box.setEscapeButton(cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(_result: int = 0) -> None:
            self._confirmation = None
            self._gate.reset()  # Shift+A was released in the question, not here
            if box.clickedButton() is not confirm or self.board.row(row.row_id) is not row:
                return
            if rules.can_decide(row, Choice.ALWAYS):
                self._send([row], Choice.ALWAYS, surface)
                self._advance_from(row)

        box.finished.connect(finished)
        self._confirmation = (box, row)
        box.open()

    def _send(self, rows: list[RowEntry], choice: Choice, surface: Surface) -> None:
        for r in rows:
            confirmed = r.reconfirming
            r.awaiting_core, r.reconfirming, r.notice = True, False, ""
            self.list_view.node_changed(r)
            gateway_id, key = r.row_id
            request = DecisionRequest(gateway_id, key, choice, surface, confirmed)
            self.decision_requested.emit(request)
        if rows:
            self.list_view.node_changed(rows[0].batch)

    def _follow_through(self, batch: BatchGroup) -> None:
        intent = self._intents.get(batch.uid)
        if intent is None:
            return
        if not intent.still_valid(batch):
            del self._intents[batch.uid]
            return
        due = intent.due(batch)
        intent.sent.update(r.key for r in due)
        self._send(due, intent.choice, Surface.DIALOG_BATCH)

    def _advance_from(self, row: RowEntry) -> None:
        if self._selected == row.row_id:
            self._select(self._next_selection(row.row_id) or row)

    def _on_choice_clicked(self, row: RowEntry, choice: Choice) -> None:
        self._say("")  # answered by mouse: a key's refusal no longer applies
        self._choose(row)
        self._answer(row, choice, Surface.DIALOG_BUTTON)

    def _on_reconfirm_clicked(self, row: RowEntry) -> None:
        if rules.needs_reconfirm(row):
            row.reconfirming = True
            self.list_view.node_changed(row)
        self._choose(row)

    def _on_batch_action(self, batch: BatchGroup, choice: Choice) -> None:
        self._moved_on_to(batch)
        intent = self._intent(batch, choice)
        targets = intent.due(batch)
        intent.sent.update(r.key for r in targets)
        self._intents[batch.uid] = intent
        selected = self.selected_row()
        self._send(targets, choice, Surface.DIALOG_BATCH)
        self._say(texts.batch_left_out(intent))
        if selected is not None and selected.batch is batch and selected.key in intent.keys:
            self._advance_from(selected)

    def _on_stop_clicked(self, batch: BatchGroup) -> None:
        self._on_batch_action(batch, Choice.DENY)
        self.stop_requested.emit(batch.gateway_id, batch.session.session_id)

    def _intent(self, batch: BatchGroup, choice: Choice) -> rules.BatchIntent:
        return rules.BatchIntent.for_batch(
            batch,
            choice,
            shown_since=self.list_view.on_screen_since,
            now=self._clock(),
            assess=risk_assess,
            dwell=rules.BATCH_DWELL_S,
        )

    def _on_screen_changed(self) -> None:
        # Read first: after the cards judge, it could be past the dwell they saw as unfinished.
        now, dwell = self._clock(), rules.BATCH_DWELL_S
        self.list_view.refresh_covers()
        ends = [
            since + dwell
            for row in self.list_view.rows_on_screen()
            if row.is_open
            and (since := self.list_view.on_screen_since(row)) is not None
            and since + dwell > now
        ]
        _wake(self._cover_timer, ends, now)

    def _choose(self, row: RowEntry, *, with_heading: bool = False) -> None:
        """The person picked ``row`` (click, key, notification)."""
        self._select(row, with_heading=with_heading)
        self._moved_on_to(row.batch)

    def _moved_on_to(self, batch: BatchGroup) -> None:
        if self._answered:
            self.board.note_moved_on(batch, list(self._answered.values()))
            self._let_batches_leave()

    def _note_presence(self) -> None:
        shown = self.isVisible()
        self.board.note_presence(
            self._clock(),
            pointer_inside=shown and pointer_over(self),
            focused=shown and (self.isActiveWindow() or self.confirmation_box is not None),
        )
        self._let_batches_leave()

    def _let_batches_leave(self) -> None:
        now, board = self._clock(), self.board
        later: list[float] = []
        held = QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton
        for batch in list(self._answered.values()):
            at = board.leaves_at(batch, self._grace)
            if at is not None and at <= now and held:
                # Mid-click (a press on another batch moved the person on): the list must not
                # reflow before the release, or the release misses the button it was meant for.
                self._leave_timer.start(100)  # look again while it is held
                return
            if at is not None and at <= now:
                self._remove_batch(batch)
            elif at is not None:
                later.append(at)
        _wake(self._leave_timer, later, now)

    def _select(self, row: RowEntry | None, *, with_heading: bool = False) -> None:
        row_id = row.row_id if row is not None else None
        if row_id != self._selected:
            self._selected_at = self._clock()
        self._selected = row_id
        self.list_view.set_selected(row, with_heading=with_heading)

    def _tick(self) -> None:
        self.list_view.refresh_countdowns(self._clock())
        self._sync_timer()

    def _remove_batch(self, batch: BatchGroup) -> None:
        if self.board.node(batch.uid) is batch:
            self._remove([batch], release=True)

    def _remove(self, nodes: Sequence[BatchGroup | RowEntry], *, release: bool) -> None:
        """Take one gateway's batches or rows off the list, and all the dialog held about them.

        ``release``: the store may forget those rows too (not when it dropped them itself).
        """
        rows = [r for n in nodes for r in (n.rows if isinstance(n, BatchGroup) else [n])]
        leaving = {r.uid for r in rows}
        for r in rows:
            self._open.discard(r.row_id)
            self._counting.discard(r.row_id)
        for batch in {r.batch.uid: r.batch for r in rows}.values():
            if all(r.uid in leaving for r in batch.rows):  # the batch goes with its last row
                self._intents.pop(batch.uid, None)
                self._answered.pop(batch.uid, None)
        if self._confirmation and self._confirmation[1].uid in leaving:
            self._confirmation[0].reject()
        selected = self.selected_row()
        if selected is not None and selected.uid in leaving:
            after = self._next_selection(selected.row_id)
            self._select(after if after is not None and after.uid not in leaving else None)
        for node in nodes:
            self.list_view.remove(node)
        if release and rows:
            self.board.store.release_rows(rows[0].gateway_id, [r.key for r in rows])
        self._after_change()
        if not self.board.gateways and self.isVisible() and not self.isActiveWindow():
            self.hide()  # nothing left to ask, and the person is not working in it

    def _count(self, row: RowEntry) -> None:
        if row.is_open:
            self._open.add(row.row_id)
        else:
            self._open.discard(row.row_id)
        if rules.counts_down(row):
            self._counting.add(row.row_id)
        else:
            self._counting.discard(row.row_id)

    def _after_change(self) -> None:
        self.setWindowTitle(texts.window_title(len(self._open)))
        self._sync_timer()

    def _sync_timer(self) -> None:
        needed = bool(self._counting) and self.isVisible()
        if needed and not self._timer.isActive():
            self._timer.start()
        elif not needed and self._timer.isActive():
            self._timer.stop()

    def _say(self, text: str, about: RowId | None = None) -> None:
        self.notice.setText(text)
        self._notice_about = about if text else None

    def _show_yolo_note(self) -> None:
        titles = []
        for gateway in self.board.gateways:
            for group in gateway.sessions:
                session = self._session_of(gateway.gateway_id, group.session_id)
                if session is None or not session.yolo.effective:
                    continue
                waiting = sum(1 for b in group.batches for r in b.rows if r.is_open)
                if waiting:
                    titles.append((session.title or session.session_id, waiting))
        text = texts.yolo_note(titles)
        self.yolo_note.setText(text)
        self.yolo_note.setVisible(bool(text))

    def _place_near(self, anchor: QRect | None) -> None:
        if QGuiApplication.platformName().startswith("wayland"):
            return
        tray = anchor if anchor is not None and anchor.isValid() else None
        screen = (QGuiApplication.screenAt(tray.center()) if tray else None) or (
            QGuiApplication.primaryScreen()
        )
        area, size = screen.availableGeometry(), self.frameGeometry().size()
        x, y = dialog_origin(
            Box(area.x(), area.y(), area.width(), area.height()),
            size.width(),
            size.height(),
            Box(tray.x(), tray.y(), tray.width(), tray.height()) if tray else None,
        )
        self.move(QPoint(x, y))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keys and presses of the dialog, the list, its viewport and the focused widget.

        Not ``keyPressEvent``: a focused scroll area or command view swallows arrow and page keys.
        Not every descendant (hundreds of cards): the focused widget gets keys first, the viewport
        what a card's child ignores. Child windows (the "Always allow?" question) are never
        filtered: a D typed there must never deny the row behind it.
        """
        kind = event.type()
        if isinstance(watched, QWidget) and watched.window() is not self:
            return False
        if kind == _E.KeyPress and isinstance(event, QKeyEvent):
            return self._on_key_press(event)
        if kind == _E.KeyRelease and isinstance(event, QKeyEvent):
            self._gate.release(
                event.key(), auto_repeat=event.isAutoRepeat(), at_ms=event.timestamp()
            )
        elif kind == _E.MouseButtonPress and isinstance(watched, QWidget):
            target: QWidget | None = watched
            viewport = self.list_view.viewport()
            if watched is viewport and isinstance(event, QMouseEvent):
                at = event.position().toPoint()
                target = self.list_view.item_widget_at(at) or watched  # the part that ignored it
            while target is not None and not isinstance(target, RowCard):
                target = target.parentWidget()
            if target is not None:
                self._choose(target.entry)
        elif kind == _E.WindowDeactivate and watched is self:
            self._gate.reset()  # the key's release may now go to another window
        return False

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        previous, self._focused = self._focused, []
        for widget in previous:
            if shiboken6.isValid(widget):
                widget.removeEventFilter(self)
        if new is None or new in self._filtered or not shiboken6.isValid(self):
            return
        if new.window() is self:
            # A scrolling widget (the command view) gets its presses on its viewport.
            extra = [new.viewport()] if isinstance(new, QAbstractScrollArea) else []
            self._focused = [new, *extra]
            for widget in self._focused:
                widget.installEventFilter(self)

    def _on_key_press(self, event: QKeyEvent) -> bool:
        action = action_for(event.key(), event.modifiers())
        if action is None:
            return False
        if isinstance(action, Choice):
            if not event.isAutoRepeat():  # a held key: said once, on its first press
                self._decide_by_key(action, event)
        elif action[0] == "row":
            row = self.board.neighbour(self._selected, action[1])
            if row is not None:
                self._choose(row)
        else:
            row = self.selected_row()
            card = self.list_view.card(row) if row is not None else None
            if card is not None:
                card.command.scroll_page(action[1])
        return True  # ours, whether or not it applied: it must not reach a button as well

    def _next_selection(self, after: RowId | None) -> RowEntry | None:
        """Where the selection moves by itself: never onto a replacement or a high-risk row."""
        return self.board.next_open(after, lambda r: rules.selectable_by_itself(r, risk_assess))

    def _key_ready(self, row: RowEntry) -> bool:
        since = self.list_view.on_screen_since(row)
        dwell = rules.key_dwell(row, rules.KEY_DWELL_S)
        return rules.key_ready(since, self._selected_at, self._clock(), dwell)

    def _decide_by_key(self, choice: Choice, event: QKeyEvent) -> None:
        """Answer the selected row if it may be and the repeat gate lets ``event`` decide."""
        row = self.selected_row()
        ready = row is not None and rules.can_decide(row, choice) and self._key_ready(row)
        key, at_ms = event.key(), event.timestamp()
        if row is not None and ready and self._gate.press(key, auto_repeat=False, at_ms=at_ms):
            self._say("")
            self._moved_on_to(row.batch)
            self._answer(row, choice, Surface.DIALOG_KEYBOARD)
            return
        too_soon = row is not None and not self._key_ready(row)
        text = texts.key_refusal(row, choice, too_soon=too_soon, held=ready)
        self._say(text, row.row_id if row is not None else None)


def _wake(timer: QTimer, at: list[float], now: float) -> None:
    if at:
        timer.start(max(1, round((min(at) - now) * 1000)))
    else:
        timer.stop()


_E = QEvent.Type
