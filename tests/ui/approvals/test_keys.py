"""The dialog's key map and the keyboard guard, with plain calls."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import Choice
from desktop.ui.approvals.dialog import FRESH_GAP_MS, Move, RepeatGate, action_for

M = Qt.KeyboardModifier


@pytest.mark.parametrize(
    ("key", "mods", "action"),
    [
        (Qt.Key.Key_A, M.NoModifier, Choice.ONCE),
        (Qt.Key.Key_Return, M.ControlModifier, Choice.ONCE),
        (Qt.Key.Key_Enter, M.ControlModifier | M.KeypadModifier, Choice.ONCE),
        (Qt.Key.Key_D, M.NoModifier, Choice.DENY),
        (Qt.Key.Key_Backspace, M.ControlModifier, Choice.DENY),
        (Qt.Key.Key_S, M.NoModifier, Choice.SESSION),
        (Qt.Key.Key_A, M.ShiftModifier, Choice.ALWAYS),
        (Qt.Key.Key_Up, M.NoModifier, ("row", -1)),
        (Qt.Key.Key_Down, M.NoModifier, ("row", 1)),
        (Qt.Key.Key_Return, M.NoModifier, None),  # plain Enter never answers
        (Qt.Key.Key_A, M.ControlModifier, None),
        (Qt.Key.Key_Backspace, M.NoModifier, None),
    ],
)
def test_key_map(key: Qt.Key, mods: Qt.KeyboardModifier, action: Choice | Move | None) -> None:
    assert action_for(key, mods) == action


def test_repeat_gate_needs_a_real_release_between_decisions() -> None:
    gate = RepeatGate()
    a, d = int(Qt.Key.Key_A), int(Qt.Key.Key_D)
    assert gate.press(a, auto_repeat=False)
    assert not gate.press(a, auto_repeat=True)  # held: auto-repeat
    gate.release(a, auto_repeat=True)  # X11 sends auto-repeat releases too
    assert not gate.press(a, auto_repeat=False)
    assert not gate.press(d, auto_repeat=False)  # another key while A is still down
    gate.release(d, auto_repeat=False)
    assert not gate.press(d, auto_repeat=False)  # A is still down
    gate.release(a, auto_repeat=False)
    assert gate.press(d, auto_repeat=False)
    gate.reset()
    assert not gate.press(a, auto_repeat=True)  # auto-repeat never decides, even unlocked
    assert gate.press(a, auto_repeat=False)  # unlocked


def test_a_release_followed_at_once_by_a_press_is_the_same_hold() -> None:
    gate = RepeatGate()
    a = int(Qt.Key.Key_A)
    assert gate.press(a, auto_repeat=False, at_ms=1000)
    gate.release(a, auto_repeat=False, at_ms=1530)  # X11 repeat, not marked by Qt
    assert not gate.press(a, auto_repeat=False, at_ms=1530)
    assert not gate.press(int(Qt.Key.Key_D), auto_repeat=False)  # held: only a real lift unlocks
    gate.release(a, auto_repeat=False, at_ms=1563)
    assert not gate.press(a, auto_repeat=False, at_ms=1563 + FRESH_GAP_MS - 1)
    gate.release(a, auto_repeat=False, at_ms=2000)
    assert gate.press(a, auto_repeat=False, at_ms=2000 + FRESH_GAP_MS)  # a person's re-press


def test_without_timestamps_a_release_still_unlocks() -> None:
    gate = RepeatGate()
    a = int(Qt.Key.Key_A)
    assert gate.press(a, auto_repeat=False)
    gate.release(a, auto_repeat=False)
    assert gate.press(a, auto_repeat=False)
