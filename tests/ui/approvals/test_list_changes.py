"""The card list changes the board and keeps its cards in step: updates in place, pruning."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QLabel

from desktop.core.model import OutcomeKind
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import approval, resolved
from tests.ui.approvals.factory import row_card, upsert


def test_removing_a_batch_prunes_the_groups_it_leaves_empty(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g1", "Laptop", approval("a", session="s1", batch="b1"), "Build")
    upsert(dialog, "g1", "Laptop", approval("b", session="s1", batch="b1", position=1), "Build")
    upsert(dialog, "g2", "Server", approval("c", session="s2", batch="b2"), "")
    upsert(dialog, "g1", "Laptop", resolved(approval("a"), OutcomeKind.DENIED), "Build")
    batch = dialog.board.find_batch("g1", "b1")
    assert batch is not None
    dialog.list_view.remove(batch)
    assert [g.gateway_id for g in dialog.board.gateways] == ["g2"]
    gateway = dialog.board.gateway("g2")
    assert gateway is not None
    dialog.list_view.remove(gateway)
    assert dialog.board.gateways == []
    assert dialog.list_view.empty.isVisibleTo(dialog.list_view)


def test_an_update_changes_its_row_and_card_in_place(shown: ApprovalDialog) -> None:
    first = upsert(shown, "g", "G", approval("a"), "")
    card = row_card(shown, "g", "a")
    assert card is not None
    again = upsert(shown, "g", "G", replace(approval("a"), description="changed"), "")
    assert again is first
    assert row_card(shown, "g", "a") is card
    assert card.description.text() == "Why Hermes asks: changed"


def test_titles_and_names_update_in_place(shown: ApprovalDialog) -> None:
    upsert(shown, "g", "Old name", approval("a"), "")
    shown.list_view.flush(overscan=True)  # the headings are built, then renamed
    upsert(shown, "g", "New name", replace(approval("a"), description="d"), "Titled later")
    shown.list_view.flush(overscan=True)
    titles = [shown.findChild(QLabel, name) for name in ("gatewayTitle", "sessionTitle")]
    assert [t.text() for t in titles if t is not None] == [
        "Gateway: New name",
        "Session: Titled later · shop",
    ]
