"""The scrolling card list: a view of :class:`ApprovalTreeModel`, one widget per node.

Why a hand-made view instead of a QTreeView: a row needs a multi-line, scrollable, selectable
command and real buttons; delegates cannot host those, and index widgets lose them on every
reset. This view follows the model's signals precisely — an inserted row creates one card at
that position, a changed row refreshes one card — so nothing is rebuilt and a 1 MB command is
laid out once.

Cards exist only while they can be seen: the model is always current, but the widgets are built
by :meth:`ApprovalListView.materialise` (the dialog calls it when it is shown) and dropped by
:meth:`ApprovalListView.dematerialise` (when it is hidden). A hidden dialog with a thousand
waiting commands therefore costs the model, not a thousand cards (~0.4 MiB each).

Layout runs once per event-loop turn, not once per inserted card: a new card is queued for
showing and a single posted flush (normal priority, so it runs before the low-priority paint
request) shows the queued cards, runs the pending layout passes and restores the anchor.

Stability: before the model inserts or removes anything, the view notes where the card under
the pointer (else the selected card) sits in the viewport, and afterwards scrolls so it sits
exactly there again. Late arrivals in an earlier batch therefore push content *above* the
viewport, never the row the person is reading or about to click.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from desktop.ui.approvals.group_cards import BatchCard, GroupWidget, make_group_widget
from desktop.ui.approvals.layout import Node, RowEntry
from desktop.ui.approvals.row_card import RowCard, plain_label
from desktop.ui.approvals.tree_model import ApprovalTreeModel

_Anchor = tuple[QWidget, int]
_FLUSH = QEvent.Type(QEvent.registerEventType())


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
        self._selected_row: RowEntry | None = None
        self._anchor: _Anchor | None = None
        self._live = False  # cards are built (see materialise)
        self._queued: list[QWidget] = []  # inserted cards to show in the next flush
        self._flush_posted = False
        self._scroll_pending = False  # bring the selected card into view in the next flush
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

    # -- building and dropping the cards ------------------------------------------------------
    @property
    def live(self) -> bool:
        """The cards exist (the dialog is shown, or a caller asked for a card)."""
        return self._live

    def materialise(self) -> None:
        """Build a card for every node of the model (no-op if they exist)."""
        if self._live:
            return
        self._live = True
        for gateway in self._model.board.children(None):
            widget = self._build(gateway)
            self.body_layout.addWidget(widget)
            widget.show()  # explicitly: visible with the list, or at once if it is visible
        self.empty.setVisible(not self._model.board.gateways)
        self.set_selected(self._selected_row)

    def dematerialise(self) -> None:
        """Drop every card; the model keeps the data (the dialog was hidden)."""
        if not self._live:
            return
        self._live = False
        self._anchor, self._queued, self._scroll_pending = None, [], False
        for gateway in self._model.board.children(None):
            widget = self._widgets.get(gateway.uid)
            if widget is not None:
                self._drop(widget)
        self._widgets.clear()
        self._selected = None

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
        """Highlight ``row``'s card and scroll it into view (after this turn's layout)."""
        self._selected_row = row
        card = self.card(row) if row is not None else None
        if self._selected is not None and self._selected is not card:
            self._selected.set_selected(False)
        self._selected = card
        if card is not None:
            card.set_selected(True)
            if self._flush_posted:
                self._scroll_pending = True  # its geometry is not laid out yet
            else:
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
        self.empty.setVisible(not self._model.board.gateways)
        if not self._live:
            return
        layout = self._body_layout(parent)
        for row in range(first, last + 1):
            node = self._model.node(self._model.index(row, 0, parent))
            if node is not None and node.uid not in self._widgets:
                widget = self._build(node)
                layout.insertWidget(row, widget)
                self._queued.append(widget)  # shown in the flush, with the turn's layout
        self._refresh_ancestors(parent)
        self._post_flush()

    def _on_rows_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        if not self._live:
            return
        self._capture_anchor()
        for row in range(first, last + 1):
            node = self._model.node(self._model.index(row, 0, parent))
            widget = self._widgets.get(node.uid) if node is not None else None
            if widget is None or node is None:
                continue
            self._forget(node)
            if self._anchor is not None and (
                widget is self._anchor[0] or widget.isAncestorOf(self._anchor[0])
            ):
                self._anchor = None
            self._drop(widget)

    def _on_rows_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        self.empty.setVisible(not self._model.board.gateways)
        if not self._live:
            return
        self._refresh_ancestors(parent)
        self._post_flush()

    def _on_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex) -> None:
        if not self._live:
            return
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

    def _drop(self, widget: QWidget) -> None:
        if widget in self._queued:
            self._queued.remove(widget)
        widget.hide()
        widget.setParent(None)
        widget.deleteLater()

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
        if not self.isVisible() or not self._live:
            self._anchor = None
            return
        if self._flush_posted and self._anchor is not None:
            return  # noted before this turn's first change; nothing was laid out since
        target: QWidget | None = None
        if self.pointer_inside():
            under = self.viewport().childAt(self.viewport().mapFromGlobal(QCursor.pos()))
            while under is not None and not isinstance(under, RowCard):
                under = under.parentWidget()
            target = under
        target = target or self._selected
        self._anchor = (target, self._y_of(target)) if target is not None else None

    def _post_flush(self) -> None:
        if not self._flush_posted:
            self._flush_posted = True
            QCoreApplication.postEvent(self, QEvent(_FLUSH))

    def customEvent(self, event: QEvent) -> None:
        """The coalesced flush of this turn's inserts and removals."""
        if event.type() == _FLUSH:
            self.flush()
        else:
            super().customEvent(event)

    def flush(self) -> None:
        """Show queued cards, lay out once, keep the anchor still, scroll to the selection."""
        self._flush_posted = False
        queued, self._queued = self._queued, []
        for widget in queued:
            widget.show()
        anchor, self._anchor = self._anchor, None
        scroll, self._scroll_pending = self._scroll_pending, False
        if not self._live or not self.isVisible():
            return
        if anchor is not None or scroll:
            self._settle()
        if anchor is not None and shiboken6.isValid(anchor[0]):
            widget, old_y = anchor
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + self._y_of(widget) - old_y)
        if scroll and self._selected is not None:
            self.ensureWidgetVisible(self._selected, 0, 12)

    def _y_of(self, widget: QWidget) -> int:
        return widget.mapTo(self.viewport(), QPoint(0, 0)).y()

    @staticmethod
    def _settle() -> None:
        """Run the pending layout passes now, so geometry reflects the change."""
        for _ in range(6):  # one pass per nesting level: row, batch, session, gateway, list
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
