"""A thin Qt item model over the Qt-free :class:`~desktop.model.approvals.layout.ApprovalBoard`.

Qt's model signals tell the card list exactly what changed (a new row updates one card, not the
list), and the tree is checkable with ``qtmodeltester`` (napari's "Qt-free collection + thin item
model"). Indexes carry the node's ``uid``, looked up through the board, so a stale index never
reaches a removed node. Rows are only appended, except a re-ask, right after the row it replaces.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from desktop.core.model import Approval
from desktop.model.app_state import AppState
from desktop.model.approvals import texts
from desktop.model.approvals.layout import (
    ApprovalBoard,
    BatchGroup,
    GatewayGroup,
    Node,
    RowEntry,
    SessionGroup,
)

NODE_ROLE = Qt.ItemDataRole.UserRole + 1  # the Qt-free node itself (read-only)
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # the invalid index; never mutated


class ApprovalTreeModel(QAbstractItemModel):
    """gateway → session → batch → row, one column; display text is revealed plain text."""

    def __init__(self, store: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.board = ApprovalBoard(store)

    # -- Qt API ---------------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = _ROOT) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        children = self.board.children(self.node(parent))
        if row >= len(children):
            return QModelIndex()
        return self.createIndex(row, 0, children[row].uid)

    def parent(self, child: _Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        node = self.node(child)
        up = self.board.parent(node) if node is not None else None
        return self.index_of(up)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.board.children(self.node(parent)))

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Display text (plain, revealed) or the node itself for ``NODE_ROLE``."""
        node = self.node(index)
        if node is None:
            return None
        if role == NODE_ROLE:
            return node
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return _display(node)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        node = self.node(index)
        if node is None:
            return Qt.ItemFlag.NoItemFlags
        if isinstance(node, RowEntry):
            return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return Qt.ItemFlag.ItemIsEnabled

    # -- addressing -----------------------------------------------------------------------------
    def node(self, index: _Index) -> Node | None:
        """The live node behind ``index`` (None for the root or a removed node)."""
        if not index.isValid():
            return None
        return self.board.node(index.internalId())

    def index_of(self, node: Node | None) -> QModelIndex:
        """The index of ``node`` (invalid for ``None``, the root)."""
        if node is None:
            return QModelIndex()
        siblings = self.board.children(self.board.parent(node))
        return self.createIndex(siblings.index(node), 0, node.uid)

    # -- mutations (announced) ------------------------------------------------------------------
    def upsert(
        self, gateway_id: str, gateway_name: str, approval: Approval, title: str
    ) -> RowEntry:
        """Add or update one row (the store holds ``approval``), creating its groups as needed."""
        b = self.board
        gateway = b.gateway(gateway_id) or self._append(
            None, lambda: b.add_gateway(gateway_id, gateway_name)
        )
        self._rename(gateway, gateway_name)
        session = b.session(gateway_id, approval.session_id) or self._append(
            gateway, lambda: b.add_session(gateway, approval.session_id, title)
        )
        self._rename(session, title)
        row = b.row((gateway_id, approval.key))
        if row is not None:  # it stays where it was first placed (the core never moves a row)
            self.node_changed(row)
            self.node_changed(row.batch)
            return row
        after = b.home(gateway_id, approval)
        if after is not None:  # a re-ask: right after the row it replaces, in that row's batch
            batch = after.batch
            position = batch.rows.index(after) + 1
            self.beginInsertRows(self.index_of(batch), position, position)
            row = b.add_row(batch, approval.key, after)
            self.endInsertRows()
        else:
            batch = b.batch(gateway_id, approval.session_id, approval.batch_id) or self._append(
                session, lambda: b.add_batch(session, approval.batch_id)
            )
            row = self._append(batch, lambda: b.add_row(batch, approval.key))
        self.node_changed(batch)
        return row

    def node_changed(self, node: Node) -> None:
        """Tell views that ``node``'s shown data changed."""
        index = self.index_of(node)
        self.dataChanged.emit(index, index, [])

    def remove(self, node: Node) -> None:
        """Remove ``node`` (and its subtree), then any group left empty above it."""
        parent = self.board.parent(node)
        index = self.index_of(node)
        self.beginRemoveRows(index.parent(), index.row(), index.row())
        self.board.remove(node)
        self.endRemoveRows()
        if parent is not None and not self.board.children(parent):
            self.remove(parent)

    def _append(self, parent: Node | None, create: Any) -> Any:
        position = len(self.board.children(parent))
        self.beginInsertRows(self.index_of(parent), position, position)
        node = create()
        self.endInsertRows()
        return node

    def _rename(self, node: GatewayGroup | SessionGroup, text: str) -> None:
        current = node.name if isinstance(node, GatewayGroup) else node.title
        if text == current:
            return
        if isinstance(node, GatewayGroup):
            node.name = text
        else:
            node.title = text
        self.node_changed(node)


def _display(node: Node) -> str:
    if isinstance(node, GatewayGroup):
        return texts.label_text(node.name, 120) or node.gateway_id
    if isinstance(node, SessionGroup):
        return texts.session_heading(node.title, node.session_id)
    if isinstance(node, BatchGroup):
        n = len(node.rows)
        return f"{n} command" + ("" if n == 1 else "s")
    first_line = node.approval.command.split("\n", 1)[0]
    state, _tone = texts.state_text(node.approval, reconfirming=node.reconfirming)
    return f"{texts.label_text(first_line, 120)} — {state}"
