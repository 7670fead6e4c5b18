"""The dialog's keyboard map and its guard against a held key answering several rows.

Why a guard: after a decision the selection moves to the next waiting row, so a key held a
moment too long (auto-repeat) would approve the next command the person has not read. The
:class:`RepeatGate` therefore ignores auto-repeated presses *and* demands that the key which made
a decision is released before any other decision. Qt's repeat flag is not enough: on X11 a held
key sends release/press pairs and Qt marks only some of them (2 of 22 up to 23 of 23 measured,
depending on load). A repeat's release and its next press carry the same server timestamp,
while a person lifting and pressing a key again takes far longer than :data:`FRESH_GAP_MS`; so
a press that follows the deciding key's release sooner than that is the same hold. It is plain
Python (tested without Qt); only :func:`action_for` knows Qt key codes.

Keyboard map (also shown at the bottom of the dialog):

====================  ==========================================
Up / Down             move the selection between rows
PageUp / PageDown     scroll the selected row's command
A, Ctrl+Enter         approve the selected row once
D, Ctrl+Backspace     deny the selected row
S                     allow the selected row for the session
Shift+A               always allow (asks for confirmation first)
====================  ==========================================
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
    """Let one key press make at most one decision (see module docstring).

    Times are the key events' own timestamps in milliseconds; 0 means the event has none (a
    synthesized event), and then only the repeat flag and the release count.
    """

    def __init__(self) -> None:
        self._held: int | None = None  # the key that made the last decision, until released
        self._released: tuple[int, int] | None = None  # (that key, when it came up)

    @property
    def locked(self) -> bool:
        """A decision key is still held down."""
        return self._held is not None

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
