"""New task: the prompt has the focus, Ctrl+Enter starts, the gateway choice only when needed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop.ui.new_task_dialog import NewTaskDialog
from tests.model.builders import gateway, snap

OFFSCREEN_WINDOW = pytest.mark.qt_log_ignore(
    "This plugin does not support raise", "This plugin does not support propagateSizeHints"
)


@pytest.fixture
def dialog(qtbot):
    d = NewTaskDialog()
    qtbot.addWidget(d)
    started = []
    d.task_requested.connect(lambda *args: started.append(args))
    d.started = started
    return d


@OFFSCREEN_WINDOW
def test_typing_goes_to_the_prompt_and_ctrl_enter_starts(dialog, qtbot):
    dialog.present(snap(gateway("g1", "Local")))
    qtbot.waitUntil(lambda: dialog.prompt.hasFocus())
    qtbot.keyClicks(dialog.focusWidget(), "run the tests")
    assert dialog.prompt.toPlainText() == "run the tests"
    qtbot.keyClick(dialog.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.started == [("g1", dialog.directory.text(), "run the tests")]


@OFFSCREEN_WINDOW
def test_ctrl_enter_without_a_prompt_starts_nothing(dialog, qtbot):
    dialog.present(snap(gateway("g1", "Local")))
    qtbot.keyClick(dialog.prompt, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier)
    assert dialog.started == []


@OFFSCREEN_WINDOW
def test_the_gateway_choice_shows_only_with_several_gateways(dialog):
    dialog.present(snap(gateway("g1", "Local")))
    assert dialog.gateway.isHidden()
    assert dialog.gateway_label.isHidden()
    dialog.present(snap(gateway("g1", "Local"), gateway("g2", "Server")))
    assert not dialog.gateway.isHidden()
    assert dialog.gateway.count() == 2
