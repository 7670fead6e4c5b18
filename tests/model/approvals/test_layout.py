"""The Qt-free grouping and ordering rules, with plain calls."""

from __future__ import annotations

from desktop.core.model import Approval, OutcomeKind
from desktop.model.app_state import AppState
from desktop.model.approvals.layout import ApprovalBoard, BatchGroup, RowEntry, in_arrival_order
from tests.model.approvals.factory import approval, hold, resolved, update


def put(board: ApprovalBoard, gateway_id: str, a: Approval) -> RowEntry:
    """What the item model does for an upsert, without Qt."""
    g = board.gateway(gateway_id) or board.add_gateway(gateway_id, gateway_id.upper())
    s = board.session(gateway_id, a.session_id) or board.add_session(g, a.session_id, "")
    b = board.batch(gateway_id, a.session_id, a.batch_id) or board.add_batch(s, a.batch_id)
    hold(board.store, gateway_id, a)
    return board.add_row(b, a.key)


def shape(board: ApprovalBoard) -> list[tuple[str, str, str, list[str]]]:
    return [
        (g.gateway_id, s.session_id, b.batch_id, [r.approval.key for r in b.rows])
        for g in board.gateways
        for s in g.sessions
        for b in s.batches
    ]


def test_groups_by_gateway_session_batch_in_first_seen_order() -> None:
    board = ApprovalBoard(AppState())
    put(board, "g1", approval("a", session="s1", batch="b1"))
    put(board, "g2", approval("b", session="s9", batch="b9"))
    put(board, "g1", approval("c", session="s2", batch="b2"))
    put(board, "g1", approval("d", session="s1", batch="b1", position=1))
    put(board, "g1", approval("e", session="s1", batch="b3"))
    assert shape(board) == [
        ("g1", "s1", "b1", ["a", "d"]),
        ("g1", "s1", "b3", ["e"]),
        ("g1", "s2", "b2", ["c"]),
        ("g2", "s9", "b9", ["b"]),
    ]
    assert [r.approval.key for r in board.rows()] == ["a", "d", "e", "c", "b"]


def test_late_arrival_appends_and_keeps_every_earlier_row_in_relative_order() -> None:
    board = ApprovalBoard(AppState())
    for key, batch in [("a", "b1"), ("b", "b2"), ("c", "b2")]:
        put(board, "g", approval(key, batch=batch))
    before = [r.approval.key for r in board.rows()]
    put(board, "g", approval("late", batch="b1", position=1))  # belongs to the first batch
    after = [r.approval.key for r in board.rows()]
    assert [k for k in after if k != "late"] == before
    assert after.index("late") == 1  # inside its batch, at the batch's end


def test_arrival_order_uses_position_then_first_seen() -> None:
    board = ApprovalBoard(AppState())
    second = put(board, "g", approval("second", position=1))
    first = put(board, "g", approval("first", position=0))
    batch = board.find_batch("g", "b1")
    assert isinstance(batch, BatchGroup)
    assert [r.approval.key for r in batch.rows] == ["second", "first"]  # shown as they came
    assert in_arrival_order(batch.rows) == [first, second]  # answered as the server queued


def test_neighbour_clamps_and_starts_at_an_end_without_selection() -> None:
    board = ApprovalBoard(AppState())
    rows = [put(board, "g", approval(k, position=i)) for i, k in enumerate("abc")]
    assert board.neighbour(None, 1) is rows[0]
    assert board.neighbour(None, -1) is rows[2]
    assert board.neighbour(("g", "a"), 1) is rows[1]
    assert board.neighbour(("g", "c"), 1) is rows[2]
    assert board.neighbour(("g", "a"), -1) is rows[0]
    assert ApprovalBoard(AppState()).neighbour(None, 1) is None


def test_next_open_skips_resolved_and_answered_rows_and_wraps() -> None:
    board = ApprovalBoard(AppState())
    a, b, c, d = (put(board, "g", approval(k, position=i)) for i, k in enumerate("abcd"))
    update(b, resolved(b.approval, OutcomeKind.DENIED))
    c.awaiting_core = True
    assert board.next_open(("g", "a")) is d
    assert board.next_open(("g", "d")) is a  # wraps to the top
    update(a, resolved(a.approval, OutcomeKind.EXPIRED))
    assert board.next_open(("g", "d")) is None  # only itself is left


def test_remove_prunes_nothing_by_itself_and_forgets_the_subtree() -> None:
    board = ApprovalBoard(AppState())
    row = put(board, "g", approval("a"))
    gateway = board.gateway("g")
    assert gateway is not None
    board.remove(gateway)
    assert board.gateways == []
    assert board.row(("g", "a")) is None
    assert board.node(row.uid) is None


def test_grace_starts_when_the_last_row_resolves_and_stops_if_one_reopens() -> None:
    board = ApprovalBoard(AppState())
    a = put(board, "g", approval("a"))
    b = put(board, "g", approval("b", position=1))
    batch = a.batch
    update(a, resolved(a.approval, OutcomeKind.APPROVED))
    board.note_resolution(batch, 10.0)
    assert batch.resolved_at is None  # b still waits
    update(b, resolved(b.approval, OutcomeKind.WITHDRAWN, reason="cancelled"))
    board.note_resolution(batch, 12.0)
    board.note_resolution(batch, 13.0)  # a later update does not restart the grace
    assert batch.resolved_at == 12.0
    assert board.past_grace(16.9, 5.0) == []
    assert board.past_grace(17.0, 5.0) == [batch]
    put(board, "g", approval("reask", position=2, reask_of="b"))
    board.note_resolution(batch, 14.0)
    assert batch.resolved_at is None
