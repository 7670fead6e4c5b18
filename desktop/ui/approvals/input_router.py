"""Keyboard and mouse routing for the approval dialog, with a handful of event filters.

Why event filters rather than ``keyPressEvent`` on the dialog: a focused scroll area or command
view swallows Up/Down/PageUp/PageDown to scroll, so keys would reach the dialog only sometimes.
Why not a filter on every descendant (as before): with hundreds of cards that is tens of
thousands of Python calls for paint, layout and timer events nobody routes. Instead the router
filters only where the events it needs pass:

* the dialog itself (keys sent to it, ``WindowDeactivate``), the list and its viewport: a key or
  a press that a card's child ignores propagates up through the viewport, where it is caught;
* the one widget holding the keyboard focus inside the dialog (followed through
  ``QApplication.focusChanged``): keys reach it first, so it is filtered before it can scroll,
  and a click that gave it focus is seen as a click on its card.

Keys become intents (move, page, decide) for the dialog; held keys pass through the
:class:`RepeatGate`. Widgets of child *windows* (the "Always allow?" question is a QObject child
of the dialog) are never filtered: a D typed there must never deny the row selected behind it.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from desktop.core.model import Choice
from desktop.ui.approvals.keys import DECISIONS, KeyAction, RepeatGate, action_for
from desktop.ui.approvals.row_card import RowCard

_E = QEvent.Type


class InputRouter(QObject):
    """Feeds the dialog intents; the dialog decides whether they apply.

    Args:
        move: select the row ``step`` rows away (+1 down, -1 up).
        page: scroll the selected row's command by ``pages``.
        can_decide: whether ``choice`` applies to the selected row now (checked before the gate
            locks, so a key on a row that cannot be answered does not lock it).
        decide: answer the selected row with ``choice`` from the keyboard.
        refused: a decision key did nothing (``held``: another decision key is still down);
            the dialog says why, so a key never fails silently.
        clicked: the person pressed the mouse somewhere on this row's card.
    """

    def __init__(
        self,
        root: QWidget,
        area: QAbstractScrollArea,
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
        self._widget_at: Callable[[QPoint], QWidget | None] | None = getattr(
            area, "item_widget_at", None
        )
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
        """Filter the widget that now has the keyboard focus, if it is inside the dialog."""
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
        """Consume the dialog's keys; report clicks on cards."""
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
                found = self._widget_at(at) if self._widget_at is not None else None
                target = found or watched.childAt(at) or watched  # the part that ignored it
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
