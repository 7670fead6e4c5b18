"""The item model: checked by Qt's model tester through every kind of change."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from desktop.core.model import OutcomeKind
from desktop.model.app_state import AppState
from desktop.model.approvals.layout import BatchGroup, GatewayGroup, RowEntry
from desktop.ui.approvals.tree_model import NODE_ROLE, ApprovalTreeModel
from tests.model.approvals.factory import HOSTILE, approval, resolved
from tests.ui.approvals.factory import upsert


def texts_of(model: ApprovalTreeModel, parent: QModelIndex | None = None) -> list[object]:
    parent = parent or QModelIndex()
    out: list[object] = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        out.append(index.data())
        children = texts_of(model, index)
        if children:
            out.append(children)
    return out


def test_model_passes_qt_model_tester_through_inserts_updates_and_removals(
    qtmodeltester: ModelTester,
) -> None:
    model = ApprovalTreeModel(AppState())
    qtmodeltester.check(model)  # keeps checking on every signal until the test ends
    upsert(model, "g1", "Laptop", approval("a", session="s1", batch="b1"), "Build")
    upsert(model, "g1", "Laptop", approval("b", session="s1", batch="b1", position=1), "Build")
    upsert(model, "g2", "Server", approval("c", session="s2", batch="b2"), "")
    upsert(model, "g1", "Laptop 2", resolved(approval("a"), OutcomeKind.DENIED), "Build v2")
    qtmodeltester.check(model)
    batch = model.board.find_batch("g1", "b1")
    assert isinstance(batch, BatchGroup)
    model.remove(batch)
    assert [g.gateway_id for g in model.board.gateways] == ["g2"]  # empty groups pruned
    gateway = model.board.gateway("g2")
    assert isinstance(gateway, GatewayGroup)
    model.remove(gateway)
    assert model.rowCount() == 0
    qtmodeltester.check(model)


def test_tree_shape_and_display_text(qtbot: QtBot) -> None:
    model = ApprovalTreeModel(AppState())
    upsert(model, "g", "Laptop", approval("a", command="ls -la\nrm x"), "Build")
    upsert(model, "g", "Laptop", approval("b", position=1, command="pwd"), "Build")
    assert texts_of(model) == [
        "Laptop",
        [
            "Session: Build",
            ["2 commands", ["ls -la — Waiting for you", "pwd — Waiting for you"]],
        ],
    ]


def test_inserts_are_announced_as_appends(qtbot: QtBot) -> None:
    model = ApprovalTreeModel(AppState())
    upsert(model, "g", "G", approval("a"), "")
    batch_index = model.index(0, 0, model.index(0, 0, model.index(0, 0)))
    with qtbot.waitSignal(model.rowsInserted) as inserted:
        upsert(model, "g", "G", approval("b", position=1), "")
    parent, first, last = inserted.args
    assert parent == batch_index
    assert (first, last) == (1, 1)


def test_update_changes_data_in_place_and_node_role_returns_the_entry(qtbot: QtBot) -> None:
    model = ApprovalTreeModel(AppState())
    first = upsert(model, "g", "G", approval("a"), "")
    row_index = model.index_of(first)
    with qtbot.waitSignal(model.dataChanged):
        again = upsert(model, "g", "G", replace(approval("a"), description="changed"), "")
    assert again is first
    node = row_index.data(NODE_ROLE)
    assert isinstance(node, RowEntry)
    assert node.approval.description == "changed"


def test_hostile_text_is_revealed_in_display_role(qtbot: QtBot) -> None:
    model = ApprovalTreeModel(AppState())
    upsert(model, "g", HOSTILE, approval("a", command=HOSTILE), HOSTILE)
    gateway = model.index(0, 0)
    shown = [gateway.data(), model.index(0, 0, gateway).data()]
    assert all("\u202e" not in s and "\u200b" not in s for s in shown)
    assert all("⟨U+202E⟩" in s and "<b>x</b>" in s for s in shown)
    assert model.flags(gateway) == Qt.ItemFlag.ItemIsEnabled


def test_stale_index_of_a_removed_node_reads_as_nothing(qtbot: QtBot) -> None:
    model = ApprovalTreeModel(AppState())
    row = upsert(model, "g", "G", approval("a"), "")
    index = model.index_of(row)
    gateway = model.board.gateway("g")
    assert gateway is not None
    model.remove(gateway)
    assert model.node(index) is None
    assert model.data(index) is None
