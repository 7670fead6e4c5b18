"""Keyboard and mouse routing for the approval dialog, with a handful of event filters.

Not ``keyPressEvent``: a focused scroll area or command view swallows the arrow and page keys.
Not a filter on every descendant: with hundreds of cards, tens of thousands of useless calls.
The router filters the dialog, the list and its viewport (where what a card's child ignores
propagates to) and the one focused widget inside the dialog (keys reach it first). Widgets of
child windows (the "Always allow?" question) are never filtered: a D typed there must never deny
the row behind it. Held decision keys pass through the :class:`RepeatGate`.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from desktop.core.model import Choice
from desktop.ui.approvals.keys import DECISIONS, KeyAction, RepeatGate, action_for
from desktop.ui.approvals.list_view import ApprovalListView
from desktop.ui.approvals.row_card import RowCard

_E = QEvent.Type


class InputRouter(QObject):
    """Feeds the dialog intents; the dialog decides whether they apply.

    ``can_decide`` is asked before the gate locks (a key on a row that cannot be answered must
    not lock it); ``refused`` lets the dialog say why a key did nothing (``held``: another
    decision key is still down).
    """

    def __init__(
        self,
        root: QWidget,
        area: ApprovalListView,
        *,
        move: Callable[[int], None],
        page: Callable[[int], None],
        can_decide: Callable[[Choice], bool],
        decide: Callable[[Choice], None],
        refused: Callable[[Choice, bool], None],
        clicked: Callable[[RowCard], None],
    ) -> None:
        super().__init__(root)
        self.gate = RepeatGate()
        self._root = root
        self._move, self._page = move, page
        self._can_decide, self._decide, self._clicked = can_decide, decide, clicked
        self._refused = refused
        self._area = area
        self._viewport = area.viewport()
        self._fixed: tuple[QWidget, ...] = (root, area, self._viewport)
        self._focused: list[QWidget] = []  # the focus widget (and its viewport) we filter
        for widget in self._fixed:
            widget.installEventFilter(self)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        previous, self._focused = self._focused, []
        for widget in previous:
            if shiboken6.isValid(widget):
                widget.removeEventFilter(self)
        if new is None or new in self._fixed or not shiboken6.isValid(self._root):
            return
        if new.window() is self._root:
            # A scrolling widget (the command view) gets its presses on its viewport.
            extra = [new.viewport()] if isinstance(new, QAbstractScrollArea) else []
            self._focused = [new, *extra]
            for widget in self._focused:
                widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if isinstance(watched, QWidget) and watched.window() is not self._root:
            return False  # a child window (the "Always allow?" question): its keys are its own
        if kind == _E.KeyPress and isinstance(event, QKeyEvent):
            return self._on_key_press(event)
        if kind == _E.KeyRelease and isinstance(event, QKeyEvent):
            self.gate.release(
                event.key(), auto_repeat=event.isAutoRepeat(), at_ms=event.timestamp()
            )
        elif kind == _E.MouseButtonPress and isinstance(watched, QWidget):
            target = watched
            if watched is self._viewport and isinstance(event, QMouseEvent):
                at = event.position().toPoint()
                target = self._area.item_widget_at(at) or watched  # the part that ignored it
            card = _card_of(target)
            if card is not None:
                self._clicked(card)
        elif kind == _E.WindowDeactivate and watched is self._root:
            self.gate.reset()  # the key's release may now go to another window
        return False

    def _on_key_press(self, event: QKeyEvent) -> bool:
        action = action_for(event.key(), event.modifiers())
        if action is None:
            return False
        if action in (KeyAction.UP, KeyAction.DOWN):
            self._move(1 if action is KeyAction.DOWN else -1)
        elif action in (KeyAction.PAGE_UP, KeyAction.PAGE_DOWN):
            self._page(1 if action is KeyAction.PAGE_DOWN else -1)
        else:
            choice = DECISIONS[action]
            if event.isAutoRepeat():
                return True  # a held key: said once, on its first press
            if not self._can_decide(choice):
                self._refused(choice, False)
            elif self.gate.press(event.key(), auto_repeat=False, at_ms=event.timestamp()):
                self._decide(choice)
            else:
                self._refused(choice, True)
        return True  # ours, whether or not it applied: it must not reach a button as well


def _card_of(widget: QWidget | None) -> RowCard | None:
    while widget is not None and not isinstance(widget, RowCard):
        widget = widget.parentWidget()
    return widget
