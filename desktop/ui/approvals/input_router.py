"""Keyboard and mouse routing for every widget inside the approval dialog.

Why an event filter on each descendant rather than ``keyPressEvent`` on the dialog: a focused
button swallows Up/Down (it moves focus among buttons) and a scroll area swallows them to
scroll, so keys would reach the dialog only sometimes. The router is installed on the dialog and
on every child widget, including ones created later (it watches ``ChildAdded``), and turns keys
into intents (move, page, decide) for the dialog. Held keys pass through the :class:`RepeatGate`.
Widgets of child *windows* (the "Always allow?" question is a QObject child of the dialog) are
left alone: a D typed there must never deny the row selected behind it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

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
        clicked: the person pressed the mouse somewhere on this row's card.
    """

    def __init__(
        self,
        root: QWidget,
        *,
        move: Callable[[int], None],
        page: Callable[[int], None],
        can_decide: Callable[[Choice], bool],
        decide: Callable[[Choice], None],
        clicked: Callable[[RowCard], None],
    ) -> None:
        super().__init__(root)
        self.gate = RepeatGate()
        self._root = root
        self._move, self._page = move, page
        self._can_decide, self._decide, self._clicked = can_decide, decide, clicked
        self.watch(root)

    def watch(self, obj: QObject) -> None:
        """Route events of ``obj`` and of all its widget descendants."""
        obj.installEventFilter(self)
        for child in obj.children():
            if child.isWidgetType():
                self.watch(child)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Consume the dialog's keys; adopt new children; report clicks on cards."""
        kind = event.type()
        if isinstance(watched, QWidget) and watched.window() is not self._root:
            return False  # a child window (the "Always allow?" question): its keys are its own
        if kind == _E.KeyPress and isinstance(event, QKeyEvent):
            return self._on_key_press(event)
        if kind == _E.KeyRelease and isinstance(event, QKeyEvent):
            self.gate.release(event.key(), auto_repeat=event.isAutoRepeat())
        elif kind == _E.ChildAdded:
            child = event.child()  # type: ignore[attr-defined]
            if child.isWidgetType():
                self.watch(child)
        elif kind == _E.MouseButtonPress and isinstance(watched, QWidget):
            card = _card_of(watched)
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
            if self._can_decide(choice) and self.gate.press(
                event.key(), auto_repeat=event.isAutoRepeat()
            ):
                self._decide(choice)
        return True  # ours, whether or not it applied: it must not reach a button as well


def _card_of(widget: QWidget | None) -> RowCard | None:
    while widget is not None and not isinstance(widget, RowCard):
        widget = widget.parentWidget()
    return widget
