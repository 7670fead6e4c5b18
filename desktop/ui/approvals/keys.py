"""The dialog's keyboard map (shown at its bottom) and a guard against a held key answering rows.

After a decision the selection moves on, so a key held a moment too long would answer the next,
unread command. :class:`RepeatGate` ignores auto-repeats and wants the deciding key released
before any other decision. Qt's repeat flag is not enough: on X11 a held key sends release/press
pairs with one timestamp and Qt marks only some of them, so a press sooner than
:data:`FRESH_GAP_MS` after the deciding key's release is the same hold.
"""

from __future__ import annotations

import enum

from PySide6.QtCore import Qt

from desktop.core.model import Choice


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
