"""The approval dialog's keyboard and mouse: the key map, the held-key guard, the event filters.

After a decision the selection moves on, so a key held a moment too long would answer the next,
unread command: :class:`RepeatGate` ignores auto-repeats and wants the deciding key released
before any other decision. Qt's repeat flag is not enough: on X11 a held key sends release/press
pairs with one timestamp and Qt marks only some of them, so a press sooner than
:data:`FRESH_GAP_MS` after the deciding key's release is the same hold.

Event filters, not ``keyPressEvent``: a focused scroll area or command view swallows the arrow
and page keys. Not a filter on every descendant either (hundreds of cards, tens of thousands of
useless calls): the router filters the dialog, the list and its viewport (where what a card's
child ignores propagates to) and the one focused widget inside the dialog (keys reach it first).
Widgets of child windows (the "Always allow?" question) are never filtered: a D typed there must
never deny the row behind it.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from desktop.core.model import Choice
from desktop.ui.approvals.cards import RowCard
from desktop.ui.approvals.list_view import ApprovalListView


class KeyAction(enum.Enum):
    """What a key press means in the dialog."""

    UP = "up"
    DOWN = "down"
    PAGE_UP = "page up"
    PAGE_DOWN = "page down"
    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"
    DENY = "deny"


DECISIONS = {
    KeyAction.ONCE: Choice.ONCE,
    KeyAction.SESSION: Choice.SESSION,
    KeyAction.ALWAYS: Choice.ALWAYS,
    KeyAction.DENY: Choice.DENY,
}

_K = Qt.Key
_M = Qt.KeyboardModifier
_NONE = _M.NoModifier
_BINDINGS: dict[tuple[Qt.Key, Qt.KeyboardModifier], KeyAction] = {
    (_K.Key_Up, _NONE): KeyAction.UP,
    (_K.Key_Down, _NONE): KeyAction.DOWN,
    (_K.Key_PageUp, _NONE): KeyAction.PAGE_UP,
    (_K.Key_PageDown, _NONE): KeyAction.PAGE_DOWN,
    (_K.Key_A, _NONE): KeyAction.ONCE,
    (_K.Key_Return, _M.ControlModifier): KeyAction.ONCE,
    (_K.Key_Enter, _M.ControlModifier): KeyAction.ONCE,
    (_K.Key_D, _NONE): KeyAction.DENY,
    (_K.Key_Backspace, _M.ControlModifier): KeyAction.DENY,
    (_K.Key_S, _NONE): KeyAction.SESSION,
    (_K.Key_A, _M.ShiftModifier): KeyAction.ALWAYS,
}


def action_for(key: int, modifiers: Qt.KeyboardModifier) -> KeyAction | None:
    """The action bound to ``key`` with exactly these modifiers (keypad flag ignored)."""
    mods = modifiers & ~_M.KeypadModifier
    try:
        return _BINDINGS.get((Qt.Key(key), Qt.KeyboardModifier(mods)))
    except ValueError:  # not a Qt.Key member (e.g. a dead key)
        return None


FRESH_GAP_MS = 30  # release to press again: X11 repeats ~0 ms, a person's re-press 50+ ms


class RepeatGate:
    """Let one key press make at most one decision.

    Times are the key events' timestamps in milliseconds; 0: none (a synthesized event).
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
        """A key came up; the real release of the deciding key unlocks the gate."""
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


_E = QEvent.Type


class InputRouter(QObject):
    """Feeds the dialog intents; the dialog decides whether they apply.

    ``decide`` gets a decision key's choice and the gate's press, to call only for a row it may
    answer: a key on a row that cannot be answered must not lock the gate.
    """

    def __init__(
        self,
        root: QWidget,
        area: ApprovalListView,
        *,
        move: Callable[[int], None],
        page: Callable[[int], None],
        decide: Callable[[Choice, Callable[[], bool]], None],
        clicked: Callable[[RowCard], None],
    ) -> None:
        super().__init__(root)
        self.gate = RepeatGate()
        self._root = root
        self._move, self._page = move, page
        self._decide, self._clicked = decide, clicked
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
        elif not event.isAutoRepeat():  # a held key: said once, on its first press
            key, at_ms = event.key(), event.timestamp()
            press = functools.partial(self.gate.press, key, auto_repeat=False, at_ms=at_ms)
            self._decide(DECISIONS[action], press)
        return True  # ours, whether or not it applied: it must not reach a button as well


def _card_of(widget: QWidget | None) -> RowCard | None:
    while widget is not None and not isinstance(widget, RowCard):
        widget = widget.parentWidget()
    return widget
