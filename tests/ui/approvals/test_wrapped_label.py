"""The word-wrapped label's remembered heights follow its text and font."""

from __future__ import annotations

from PySide6.QtGui import QFont
from pytestqt.qtbot import QtBot

from desktop.ui.approvals.cards import WrappedLabel, plain_label


def test_heights_follow_text_and_font(qtbot: QtBot) -> None:
    label = plain_label("probe")
    assert isinstance(label, WrappedLabel)
    qtbot.addWidget(label)
    label.setText("short")
    one_line = label.heightForWidth(200)
    assert label.heightForWidth(200) == one_line  # remembered
    label.setText("a long sentence that must wrap over several lines " * 8)
    assert label.heightForWidth(200) > one_line  # a new text is measured again
    wrapped = label.heightForWidth(200)
    font = QFont(label.font())
    font.setPointSize(font.pointSize() * 2)
    label.setFont(font)
    assert label.heightForWidth(200) > wrapped  # so is a new font
