"""The scrolling card list: a view of :class:`ApprovalTreeModel`, one widget per node.

Why a hand-made view instead of a QTreeView: a row needs a multi-line, scrollable, selectable
command and real buttons; delegates cannot host those, and index widgets lose them on every
reset. This view follows the model's signals precisely — an inserted row creates one card at
that position, a changed row refreshes one card — so nothing is rebuilt and a 1 MB command is
laid out once.

Stability: before the model inserts or removes anything, the view notes where the card under
the pointer (else the selected card) sits in the viewport, and afterwards scrolls so it sits
exactly there again. Late arrivals in an earlier batch therefore push content *above* the
viewport, never the row the person is reading or about to click.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from desktop.ui.approvals.group_cards import BatchCard, GroupWidget, make_group_widget
from desktop.ui.approvals.layout import Node, RowEntry
from desktop.ui.approvals.row_card import RowCard, plain_label
from desktop.ui.approvals.tree_model import ApprovalTreeModel

_Anchor = tuple[QWidget, int]


class ApprovalListView(QScrollArea):
    """Cards for every node of the model, grouped and in model order."""

    choice_clicked = Signal(object, object)  # (RowEntry, Choice)
    reconfirm_clicked = Signal(object)  # RowEntry
    batch_action = Signal(object, object)  # (BatchGroup, Choice)
    dismiss_clicked = Signal(object)  # BatchGroup

    def __init__(
        self, model: ApprovalTreeModel, clock: Callable[[], float], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("approvalList")
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Always on: a scroll bar appearing would narrow every card and re-wrap every command
        # (moving rows under the pointer, and re-laying out a 1 MB command).
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self._model = model
        self._clock = clock
        self._widgets: dict[int, QWidget] = {}
        self._selected: RowCard | None = None
        self._anchor: _Anchor | None = None
        content = QWidget()
        content.setObjectName("approvalListContent")
        outer = QVBoxLayout(content)
        outer.setContentsMargins(12, 12, 12, 12)
        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(0, 0, 0, 0)
        self.body_layout.setSpacing(18)
        self.empty = plain_label("emptyLabel")
        self.empty.setText("Nothing is waiting for you.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.body)
        outer.addWidget(self.empty)
        outer.addStretch(1)
        self.setWidget(content)
        model.rowsAboutToBeInserted.connect(self._capture_anchor)
        model.rowsInserted.connect(self._on_rows_inserted)
        model.rowsAboutToBeRemoved.connect(self._on_rows_about_to_be_removed)
        model.rowsRemoved.connect(self._on_rows_removed)
        model.dataChanged.connect(self._on_data_changed)

    # -- lookups --------------------------------------------------------------------------------
    def card(self, row: RowEntry) -> RowCard | None:
        """The card showing ``row``."""
        widget = self._widgets.get(row.uid)
        return widget if isinstance(widget, RowCard) else None

    def widget_for(self, node: Node) -> QWidget | None:
        """The widget showing any node (section, batch card or row card)."""
        return self._widgets.get(node.uid)

    def row_cards(self) -> list[RowCard]:
        """Every row card, top to bottom."""
        return [c for r in self._model.board.rows() if (c := self.card(r)) is not None]

    # -- selection and time ---------------------------------------------------------------------
    def set_selected(self, row: RowEntry | None) -> None:
        """Highlight ``row``'s card and scroll it into view."""
        card = self.card(row) if row is not None else None
        if self._selected is not None and self._selected is not card:
            self._selected.set_selected(False)
        self._selected = card
        if card is not None:
            card.set_selected(True)
            self.ensureWidgetVisible(card, 0, 12)

    def refresh_countdowns(self, now: float) -> None:
        """Update every row's countdown text."""
        for card in self.row_cards():
            card.refresh_countdown(now)

    def pointer_inside(self) -> bool:
        """The pointer rests on the list (removals then wait: see the dialog's grace)."""
        return self.viewport().underMouse()

    # -- model signals --------------------------------------------------------------------------
    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        layout = self._body_layout(parent)
        for row in range(first, last + 1):
            node = self._model.node(self._model.index(row, 0, parent))
            if node is not None and node.uid not in self._widgets:
                widget = self._build(node)
                layout.insertWidget(row, widget)
                widget.show()  # now, not queued: the anchor needs its geometry at once
        self._refresh_ancestors(parent)
        self.empty.setVisible(not self._model.board.gateways)
        self._restore_anchor()

    def _on_rows_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        self._capture_anchor()
        for row in range(first, last + 1):
            node = self._model.node(self._model.index(row, 0, parent))
            widget = self._widgets.get(node.uid) if node is not None else None
            if widget is None or node is None:
                continue
            self._forget(node)
            if self._anchor is not None and widget.isAncestorOf(self._anchor[0]):
                self._anchor = None
            widget.hide()
            widget.setParent(None)
            widget.deleteLater()

    def _on_rows_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        self._refresh_ancestors(parent)
        self.empty.setVisible(not self._model.board.gateways)
        self._restore_anchor()

    def _on_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex) -> None:
        for row in range(top_left.row(), bottom_right.row() + 1):
            node = self._model.node(top_left.siblingAtRow(row))
            widget = self._widgets.get(node.uid) if node is not None else None
            if isinstance(widget, RowCard | GroupWidget):
                widget.refresh(self._clock())

    # -- building -------------------------------------------------------------------------------
    def _build(self, node: Node) -> QWidget:
        if isinstance(node, RowEntry):
            card = RowCard(node)
            card.refresh(self._clock())
            card.choice_clicked.connect(self.choice_clicked)
            card.reconfirm_clicked.connect(self.reconfirm_clicked)
            self._widgets[node.uid] = card
            return card
        group = make_group_widget(node)
        if isinstance(group, BatchCard):
            group.batch_action.connect(self.batch_action)
            group.dismiss_clicked.connect(self.dismiss_clicked)
        self._widgets[node.uid] = group
        for child in self._model.board.children(node):
            group.body_layout.addWidget(self._build(child))
        group.refresh(self._clock())
        return group

    def _forget(self, node: Node) -> None:
        widget = self._widgets.pop(node.uid, None)
        if widget is not None and widget is self._selected:
            self._selected = None
        for child in self._model.board.children(node):
            self._forget(child)

    def _body_layout(self, parent: QModelIndex) -> QVBoxLayout:
        node = self._model.node(parent)
        widget = self._widgets.get(node.uid) if node is not None else None
        return widget.body_layout if isinstance(widget, GroupWidget) else self.body_layout

    def _refresh_ancestors(self, index: QModelIndex) -> None:
        while index.isValid():
            node = self._model.node(index)
            widget = self._widgets.get(node.uid) if node is not None else None
            if isinstance(widget, GroupWidget):
                widget.refresh(self._clock())
            index = index.parent()

    # -- keeping the row under the pointer still ------------------------------------------------
    def _capture_anchor(self, *_: object) -> None:
        if not self.isVisible():
            self._anchor = None
            return
        target: QWidget | None = None
        if self.pointer_inside():
            under = self.viewport().childAt(self.viewport().mapFromGlobal(QCursor.pos()))
            while under is not None and not isinstance(under, RowCard):
                under = under.parentWidget()
            target = under
        target = target or self._selected
        self._anchor = (target, self._y_of(target)) if target is not None else None

    def _restore_anchor(self) -> None:
        anchor, self._anchor = self._anchor, None
        if anchor is None or not self.isVisible():
            return
        self._settle()
        widget, old_y = anchor
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self._y_of(widget) - old_y)

    def _y_of(self, widget: QWidget) -> int:
        return widget.mapTo(self.viewport(), QPoint(0, 0)).y()

    @staticmethod
    def _settle() -> None:
        """Run the pending layout passes now, so geometry reflects the change."""
        for _ in range(6):  # one pass per nesting level: row, batch, session, gateway, list
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
