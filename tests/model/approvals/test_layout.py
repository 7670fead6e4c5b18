"""The Qt-free grouping and ordering rules, with plain calls."""

from __future__ import annotations

from desktop.core.model import Approval, OutcomeKind
from desktop.model.app_state import AppState
from desktop.model.approvals.layout import ApprovalBoard, BatchGroup, RowEntry, in_arrival_order
from tests.model.approvals.factory import approval, hold, resolved, update


def put(board: ApprovalBoard, gateway_id: str, a: Approval) -> RowEntry:
    """What the card list does for an upsert, without Qt."""
    g = board.gateway(gateway_id) or board.add_gateway(gateway_id, gateway_id.upper())
    s = board.session(gateway_id, a.session_id) or board.add_session(g, a.session_id, "")
    hold(board.store, gateway_id, a)
    after = board.home(gateway_id, a)
    if after is not None:
        return board.add_row(after.batch, a.key, after)
    b = board.batch(gateway_id, a.session_id, a.batch_id) or board.add_batch(s, a.batch_id)
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


def answered_batch(board: ApprovalBoard, at: float) -> BatchGroup:
    """A batch of two rows, both answered, the last at ``at``."""
    a = put(board, "g", approval("a"))
    b = put(board, "g", approval("b", position=1))
    update(a, resolved(a.approval, OutcomeKind.APPROVED))
    board.note_resolution(a.batch, at - 2.0)
    assert a.batch.resolved_at is None  # b still waits
    update(b, resolved(b.approval, OutcomeKind.WITHDRAWN, reason="cancelled"))
    board.note_resolution(a.batch, at)
    board.note_resolution(a.batch, at + 1.0)  # a later update does not move the time
    assert a.batch.resolved_at == at
    return a.batch


def test_an_answered_batch_stays_while_the_pointer_is_in_or_the_dialog_has_focus() -> None:
    board = ApprovalBoard(AppState())
    batch = answered_batch(board, 12.0)
    board.note_presence(10.0, pointer_inside=True, focused=False)
    assert board.leaves_at(batch, 5.0) is None  # however long they read
    board.note_presence(20.0, pointer_inside=False, focused=True)
    assert board.leaves_at(batch, 5.0) is None
    board.note_presence(30.0, pointer_inside=False, focused=False)
    assert board.leaves_at(batch, 5.0) == 35.0  # the person left at 30: it lingers a little
    board.note_presence(31.0, pointer_inside=False, focused=False)  # still away: same time
    assert board.leaves_at(batch, 5.0) == 35.0
    board.note_presence(32.0, pointer_inside=True, focused=False)  # back before it went
    assert board.leaves_at(batch, 5.0) is None


def test_a_batch_answered_while_the_person_is_away_lingers_from_its_answer() -> None:
    board = ApprovalBoard(AppState())
    board.note_presence(3.0, pointer_inside=False, focused=False)
    batch = answered_batch(board, 12.0)  # answered elsewhere (a bubble, another client)
    assert board.leaves_at(batch, 5.0) == 17.0


def test_an_answered_batch_goes_at_once_when_the_person_moves_on() -> None:
    board = ApprovalBoard(AppState())
    board.note_presence(0.0, pointer_inside=True, focused=True)
    batch = answered_batch(board, 12.0)
    other = put(board, "g", approval("c", batch="b2")).batch
    board.note_moved_on(batch, [batch])  # a row of the answered batch itself: still reading
    assert board.leaves_at(batch, 5.0) is None
    board.note_moved_on(other, [batch])
    assert board.leaves_at(batch, 5.0) == 12.0  # due already: it may go now


def test_moving_on_before_a_batch_was_answered_does_not_count() -> None:
    board = ApprovalBoard(AppState())
    board.note_presence(0.0, pointer_inside=True, focused=True)
    a = put(board, "g", approval("a"))
    other = put(board, "g", approval("c", batch="b2")).batch
    board.note_moved_on(other, [a.batch])  # still open: not answered yet
    update(a, resolved(a.approval, OutcomeKind.DENIED))
    board.note_resolution(a.batch, 5.0)
    assert board.leaves_at(a.batch, 5.0) is None


def test_a_reask_joining_an_answered_batch_keeps_it_open() -> None:
    board = ApprovalBoard(AppState())
    batch = answered_batch(board, 12.0)
    board.note_moved_on(put(board, "g", approval("c", batch="b2")).batch, [batch])
    put(board, "g", approval("reask", batch="b3", reask_of="b"))
    board.note_resolution(batch, 14.0)
    assert batch.resolved_at is None
    assert not batch.moved_on
    assert board.leaves_at(batch, 5.0) is None


def test_a_reask_sits_right_after_the_row_it_replaces_even_in_a_new_core_batch() -> None:
    board = ApprovalBoard(AppState())
    for i, key in enumerate("abc"):
        put(board, "g", approval(key, position=i))
    again = put(board, "g", approval("b2", batch="later", position=0, reask_of="b"))
    again2 = put(board, "g", approval("b3", batch="later2", position=0, reask_of="b2"))
    plain = put(board, "g", approval("d", batch="later", position=1))
    assert shape(board) == [
        ("g", "s1", "b1", ["a", "b", "b2", "b3", "c"]),
        ("g", "s1", "later", ["d"]),
    ]
    assert (again.position, again2.position, plain.position) == (1, 1, 1)  # "Command 2" again
    rows = again.batch.rows
    assert [r.key for r in in_arrival_order(rows)] == ["a", "b", "c", "b2", "b3"]
    assert board.find_batch("g", "later2") is again.batch  # a notification for it finds it


def test_a_reask_of_a_row_no_longer_shown_gets_its_own_batch() -> None:
    board = ApprovalBoard(AppState())
    again = put(board, "g", approval("b2", batch="later", reask_of="gone"))
    first = put(board, "g", approval("x", batch="b1"))
    in_batch = put(board, "g", approval("x2", batch="b1", position=1, reask_of="x"))
    assert shape(board) == [("g", "s1", "later", ["b2"]), ("g", "s1", "b1", ["x", "x2"])]
    assert (again.position, first.position, in_batch.position) == (0, 0, 1)
