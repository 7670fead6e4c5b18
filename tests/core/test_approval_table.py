"""The approval table and the code agree: the code reads the table, and every input reaches it.

``TABLE`` is read from the table's text. Every listed (input, row kind, phase) cell is applied
to a real row and must move it where the cell says, with the cell's reason; every input is also
driven through the public method that issues it (a row is brought into each phase, the input is
applied), and the row must end where the cells of the inputs the method issued lead. An
unlisted cell raises under test (``STRICT``) and changes nothing in production (logged).
"""

from __future__ import annotations

import ast
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core import approvals, outcomes
from desktop.core.approvals import TABLE, ApprovalMachine, Input, Row, UnlistedError
from desktop.core.decisions import HEAD_UNSURE
from desktop.core.events import CoreEvent
from desktop.core.model import ApprovalPhase, Choice, Dialect, Outcome
from desktop.core.outbox import Outbox, Purpose
from desktop.core.settings import CoreSettings
from desktop.core.wire import ApprovalAsked, RowKind, ToolCompleted

PHASES = (ApprovalPhase.WAITING, ApprovalPhase.STALE, ApprovalPhase.SENDING)
ALL_PHASES = [*PHASES, ApprovalPhase.RESOLVED]
ANSWERS = {
    RowKind.FIFO: (Dialect.A, frozenset({RowKind.FIFO})),
    RowKind.SERVER_REQUEST: (Dialect.B, frozenset({RowKind.SERVER_REQUEST})),
    RowKind.PROMPT: (Dialect.C, frozenset({RowKind.PROMPT})),
    RowKind.BY_ID: (Dialect.A, frozenset({RowKind.FIFO, RowKind.BY_ID})),
}


def test_the_table_names_every_input_and_moves_no_resolved_row() -> None:
    lines = approvals.TRANSITIONS.strip().splitlines()[2:]
    assert {line.split("|")[0].strip() for line in lines} == {i.value for i in Input}
    resolved = [cell for (_, _, phase), cell in TABLE.items() if phase is ApprovalPhase.RESOLVED]
    assert all(cell.target is None for cell in resolved)


def test_a_cell_listed_twice_is_refused() -> None:
    line = "    asked             | F       | · | W | · | · |"
    with pytest.raises(ValueError, match="twice"):
        approvals._table(f"head\n---\n{line}\n{line}")


class Bench:
    def __init__(self, kind: RowKind) -> None:
        self.now = 100.0
        self.events: list[CoreEvent] = []
        self.outbox = Outbox()
        self.kind = kind
        self.lc = ApprovalMachine(CoreSettings(), self.events, self.outbox, lambda: self.now)
        self.lc.transport_opened()
        self.lc.connection_opened(*ANSWERS[kind], epoch=1)
        self.asked = ApprovalAsked(
            session_id="s1",
            kind=kind,
            command="rm -rf /tmp/x",
            reply_id="srq-1" if kind is RowKind.SERVER_REQUEST else None,
            request_id="p-1" if kind is not RowKind.FIFO else "",
            execution_generation=1 if kind is RowKind.PROMPT else None,
        )
        self.lc.tool_started("s1", "t1", "terminal")
        self.row = self.lc.asked(self.asked, 1)

    def into(self, phase: ApprovalPhase) -> Row:
        row, lc = self.row, self.lc
        if phase is ApprovalPhase.STALE:
            lc.connection_lost(set())
            lc.transport_opened()
            lc.connection_opened(*ANSWERS[self.kind], epoch=1)
        elif phase is ApprovalPhase.SENDING:
            if self.kind is RowKind.SERVER_REQUEST:
                frame = self.outbox.reply("{}", 1, approval_key=row.key)
            else:
                frame = self.outbox.request(
                    "approval.respond", {}, Purpose.DECISION, 1, approval_key=row.key
                )
            lc.decided(row, Choice.ONCE, frame.frame_id)
        elif phase is ApprovalPhase.RESOLVED:
            lc.withdrawn(row, outcomes.withdrawn("gone"))
        assert row.phase is phase
        return row


def _tick(b: Bench, row: Row) -> None:
    b.now = (row.expires_at or 0.0) + 1.0
    b.lc.tick()


def _frame(row: Row) -> int:
    return row.decision_frame or 0


def _failed(*, stale: str = "", ended: Outcome | None = None) -> Driver:
    def apply(b: Bench, r: Row) -> None:
        if r.phase is ApprovalPhase.SENDING:
            r.stale_reason, r.ended = stale or r.stale_reason, ended
        b.lc.frame_failed(r, _frame(r), maybe_sent=False, same_link=True)

    return apply


def _settled_by_answer(b: Bench, r: Row) -> None:
    b.outbox.drain()  # the answer left: it is what settled the prompt
    b.lc.settled_elsewhere(r, False)


Driver = Callable[["Bench", Row], None]
INPUTS: dict[Input, tuple[RowKind, Driver]] = {
    Input.ASKED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.asked(b.asked, 1) and None),
    Input.ASKED_UNDER_ID: (
        RowKind.SERVER_REQUEST,
        lambda b, r: b.lc.asked(dataclasses.replace(b.asked, command="ls"), 1) and None,
    ),
    Input.WITHDRAWN: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.withdrawn(r, outcomes.unknown())),
    Input.SETTLED_ELSEWHERE: (RowKind.PROMPT, lambda b, r: b.lc.settled_elsewhere(r, False)),
    Input.EXPIRED_ELSEWHERE: (RowKind.PROMPT, lambda b, r: b.lc.settled_elsewhere(r, True)),
    Input.SETTLED_BY_ANSWER: (RowKind.PROMPT, _settled_by_answer),
    Input.ITS_TOOL_DONE: (
        RowKind.FIFO,
        lambda b, r: b.lc.tool_completed(ToolCompleted("s1", "t1", "terminal")),
    ),
    Input.A_TOOL_DONE: (
        RowKind.FIFO,
        lambda b, r: b.lc.tool_completed(ToolCompleted("s1", "", "terminal")),
    ),
    Input.OTHER_TOOL_DONE: (
        RowKind.FIFO,
        lambda b, r: b.lc.tool_completed(ToolCompleted("s1", "t2", "terminal")),
    ),
    Input.TURN_ENDED: (RowKind.FIFO, lambda b, r: b.lc.turn_ended("s1", "over")),
    Input.INTERRUPTED: (
        RowKind.SERVER_REQUEST,
        lambda b, r: b.lc.turn_ended("s1", "over", interrupted=True),
    ),
    Input.HEAD_IN_DOUBT: (RowKind.FIFO, lambda b, r: b.lc.doubt_head("s1", 0)),
    Input.LISTED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.listed("s1", [r.key], r.seq)),
    Input.NOT_LISTED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.listed("s1", [], r.seq)),
    Input.PENDING: (RowKind.BY_ID, lambda b, r: b.lc.pending_listed("s1", ["p-1"], r.seq)),
    Input.NOT_PENDING: (
        RowKind.SERVER_REQUEST,
        lambda b, r: b.lc.pending_listed("s1", [], r.seq),
    ),
    Input.DECIDED: (RowKind.FIFO, lambda b, r: b.lc.decided(r, Choice.ONCE, 99)),
    Input.FRAME_WRITTEN: (
        RowKind.SERVER_REQUEST,
        lambda b, r: b.lc.frame_written(r, _frame(r)),
    ),
    Input.ANSWERED: (RowKind.FIFO, lambda b, r: b.lc.answered(r, outcomes.decided(Choice.ONCE))),
    Input.FRAME_UNSENT: (RowKind.FIFO, _failed()),
    Input.UNSENT_STALE: (RowKind.FIFO, _failed(stale="stale before it was answered")),
    Input.UNSENT_ENDED: (RowKind.FIFO, _failed(ended=outcomes.expired())),
    Input.FRAME_MAYBE_SENT: (
        RowKind.FIFO,
        lambda b, r: b.lc.frame_failed(r, _frame(r), maybe_sent=True, same_link=True),
    ),
    Input.CONNECTION_LOST: (RowKind.FIFO, lambda b, r: b.lc.connection_lost(set())),
    Input.PROTOCOL_CHANGED: (
        RowKind.FIFO,
        lambda b, r: b.lc.connection_opened(Dialect.B, frozenset({RowKind.SERVER_REQUEST}), 2),
    ),
    Input.TICK: (RowKind.FIFO, _tick),
}


def test_every_input_is_driven() -> None:
    assert set(INPUTS) | {Input.ASKED_IN_DOUBT} == set(Input)  # that one makes a row: below


@pytest.mark.parametrize("cell", [None, approvals.STAY], ids=["as listed", "planted: stays"])
def test_a_row_asked_while_the_head_is_in_doubt_starts_as_the_table_says(
    cell: approvals.Cell | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if cell is not None:
        key = (Input.ASKED_IN_DOUBT, RowKind.FIFO, ApprovalPhase.WAITING)
        monkeypatch.setitem(TABLE, key, cell)
    bench = Bench(RowKind.FIFO)
    bench.lc.doubt_head("s1", 0)
    row = bench.lc.asked(dataclasses.replace(bench.asked, command="ls"), 1)
    expected = (ApprovalPhase.STALE, HEAD_UNSURE) if cell is None else (ApprovalPhase.WAITING, "")
    assert (row.phase, row.stale_reason) == expected


def _spied(bench: Bench) -> list[tuple[Input, ApprovalPhase]]:
    """The inputs the machine applies to the bench's row, with the phase each found."""
    issued: list[tuple[Input, ApprovalPhase]] = []
    real = bench.lc._move

    def spy(row: Row, event: Input, given: approvals.Given = None) -> None:
        if row is bench.row:
            issued.append((event, row.phase))
        real(row, event, given)

    bench.lc._move = spy  # type: ignore[method-assign]
    return issued


@pytest.mark.parametrize("phase", ALL_PHASES, ids=lambda p: p.name)
@pytest.mark.parametrize("event", list(INPUTS), ids=lambda i: i.value)
def test_every_input_moves_its_row_as_the_table_says(event: Input, phase: ApprovalPhase) -> None:
    kind, apply = INPUTS[event]
    bench = Bench(kind)
    row = bench.into(phase)
    before = row.outcome
    issued = _spied(bench)
    try:
        apply(bench, row)
    except UnlistedError:
        assert (issued[-1][0], kind, issued[-1][1]) not in TABLE
        return
    expected = phase
    for input_, found in issued:  # where the cells of the issued inputs lead, in order
        assert found is expected
        step = TABLE[(input_, kind, found)]
        expected = expected if step.target is None or step.ends else step.target
    assert row.phase is expected
    cell = TABLE.get((event, kind, phase))
    if cell is not None and cell.target is not None and not cell.ends:
        assert event in [input_ for input_, _ in issued]  # the method issues the table's input
    if phase is ApprovalPhase.RESOLVED:
        assert row.outcome is before  # one outcome, never a second
    elif expected is ApprovalPhase.RESOLVED:
        assert row.outcome is not None


def _row(kind: RowKind, phase: ApprovalPhase) -> tuple[Bench, Row]:
    bench = Bench(kind)
    return bench, bench.into(phase)


CELLS = sorted(TABLE, key=lambda k: (k[0].value, k[1].value, k[2].value))


@pytest.mark.parametrize("key", CELLS, ids=lambda k: f"{k[0].value}-{k[1].value}-{k[2].name}")
def test_every_cell_moves_the_row_and_gives_its_reason(
    key: tuple[Input, RowKind, ApprovalPhase],
) -> None:
    event, kind, phase = key
    bench, row = _row(kind, phase)
    cell = TABLE[key]
    given = outcomes.withdrawn("the input's own words") if cell.target is not None else None
    if cell.target is ApprovalPhase.STALE:
        given_reason: approvals.Given = "the input's own reason"
    else:
        given_reason = given
    if phase is ApprovalPhase.SENDING:
        row.stale_reason = "stale before it was answered"  # what ``kept`` keeps
    bench.lc._move(row, event, given_reason)
    if cell.ends:
        assert row.phase is phase
        assert row.ended == cell.why(row, given_reason)
    elif cell.target is None:
        assert row.phase is phase
    else:
        assert row.phase is cell.target
        why = cell.why(row, given_reason)
        if cell.target is ApprovalPhase.RESOLVED:
            assert row.outcome == why  # what the table says, verbatim
            assert not row.answerable
        elif cell.target is ApprovalPhase.STALE:
            assert row.stale_reason == why
            assert row.stale_reason
        elif cell.target is ApprovalPhase.WAITING:
            assert row.stale_reason == ""


UNLISTED = [
    (event, kind, phase)
    for event in Input
    for kind in RowKind
    for phase in ALL_PHASES
    if (event, kind, phase) not in TABLE
]


def test_an_unlisted_cell_raises_under_test_and_is_a_logged_no_op_otherwise(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    event, kind, phase = next(k for k in UNLISTED if k[2] is ApprovalPhase.WAITING)
    bench, row = _row(kind, phase)
    with pytest.raises(UnlistedError, match=event.value):
        bench.lc._move(row, event)
    monkeypatch.setattr(approvals, "STRICT", False)
    with caplog.at_level(logging.WARNING, logger=approvals.__name__):
        bench.lc._move(row, event)
    assert row.phase is phase
    assert "nothing changes" in caplog.text


def test_a_row_announced_once_then_only_when_it_changed() -> None:
    bench = Bench(RowKind.SERVER_REQUEST)
    bench.lc.asked(bench.asked, 1)  # a re-delivery of exactly what is shown
    kinds = [type(e).__name__ for e in bench.events]
    assert kinds == ["ApprovalRequested"]


STATE = {"phase", "outcome", "stale_reason", "answerable", "blocked_reason", "ended"}
WRITERS = {"_move", "_write", "_judged"}


def test_only_the_machines_writers_assign_a_rows_state() -> None:
    """A phase, outcome, stale reason or answerability set anywhere else bypasses the table."""
    tree = ast.parse(Path(approvals.__file__).read_text(encoding="utf-8"))
    writers: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            built = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Row"
            if built and any(k.arg in STATE for k in node.keywords):  # type: ignore[attr-defined]
                writers.append(function.name)
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if any(isinstance(n, ast.Attribute) and n.attr in STATE for n in names):
                    writers.append(function.name)
    assert set(writers) == WRITERS
