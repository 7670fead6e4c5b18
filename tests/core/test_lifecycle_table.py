"""The lifecycle's transition table and its code agree, pair by pair.

``TABLE`` is read from the table's text; every (input, phase) pair is
driven through a real :class:`ApprovalLifecycle`: a row is brought into the phase, the input is
applied, and the phase it ends in must be the table's (or unchanged where the table says ``·``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from desktop.core import lifecycle, outcomes
from desktop.core.events import CoreEvent
from desktop.core.lifecycle import TABLE, ApprovalLifecycle, Input, Row
from desktop.core.model import ApprovalPhase, Choice, Dialect
from desktop.core.outbox import Outbox
from desktop.core.settings import CoreSettings
from desktop.core.wire import ApprovalAsked, RowKind, ToolCompleted

PHASES = (ApprovalPhase.WAITING, ApprovalPhase.STALE, ApprovalPhase.SENDING)
ANSWERS = {
    RowKind.FIFO: (Dialect.A, frozenset({RowKind.FIFO})),
    RowKind.SERVER_REQUEST: (Dialect.B, frozenset({RowKind.SERVER_REQUEST})),
    RowKind.PROMPT: (Dialect.C, frozenset({RowKind.PROMPT})),
}


def test_the_table_names_every_input_once_and_moves_no_resolved_row() -> None:
    names = [line.split("|")[0].strip() for line in lifecycle.TRANSITIONS.strip().splitlines()]
    assert names[2:] == [i.value for i in Input]
    assert {name for name, _ in TABLE} <= set(Input)
    assert all(phase is not ApprovalPhase.RESOLVED for _, phase in TABLE)


class Bench:
    def __init__(self, kind: RowKind) -> None:
        self.now = 100.0
        self.events: list[CoreEvent] = []
        self.outbox = Outbox()
        self.kind = kind
        self.lc = ApprovalLifecycle(CoreSettings(), self.events, self.outbox, lambda: self.now)
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
            lc.connection_lost([], [])
            lc.transport_opened()
            lc.connection_opened(*ANSWERS[self.kind], epoch=1)
        elif phase is ApprovalPhase.SENDING:
            if self.kind is RowKind.SERVER_REQUEST:
                frame = self.outbox.reply("{}", 1, approval_key=row.key)
            else:
                frame = self.outbox.decision_request(self.outbox.next_rpc_id(), "{}", 1, row.key)
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


INPUTS: dict[Input, tuple[RowKind, Callable[[Bench, Row], None]]] = {
    Input.ASKED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.asked(b.asked, 1) and None),
    Input.ASKED_UNDER_ID: (
        RowKind.SERVER_REQUEST,
        lambda b, r: b.lc.asked(dataclasses.replace(b.asked, command="ls"), 1) and None,
    ),
    Input.WITHDRAWN: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.withdrawn(r, outcomes.unknown())),
    Input.SETTLED_ELSEWHERE: (RowKind.PROMPT, lambda b, r: b.lc.settled_elsewhere(r, False)),
    Input.TOOL_STARTED: (RowKind.FIFO, lambda b, r: b.lc.tool_started("s1", "t2")),
    Input.TOOL_COMPLETED: (
        RowKind.FIFO,
        lambda b, r: b.lc.tool_completed(ToolCompleted("s1", "t1", "terminal")),
    ),
    Input.OTHER_TOOL_DONE: (
        RowKind.FIFO,
        lambda b, r: b.lc.tool_completed(ToolCompleted("s1", "t2", "terminal")),
    ),
    Input.TURN_ENDED: (RowKind.FIFO, lambda b, r: b.lc.turn_ended("s1", "over")),
    Input.HEAD_IN_DOUBT: (RowKind.FIFO, lambda b, r: b.lc.doubt_head("s1", 0)),
    Input.LISTED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.listed("s1", [r.key], r.seq)),
    Input.NOT_LISTED: (RowKind.SERVER_REQUEST, lambda b, r: b.lc.listed("s1", [], r.seq)),
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
    Input.FRAME_UNSENT: (
        RowKind.FIFO,
        lambda b, r: b.lc.frame_failed(r, _frame(r), maybe_sent=False, same_link=True),
    ),
    Input.FRAME_MAYBE_SENT: (
        RowKind.FIFO,
        lambda b, r: b.lc.frame_failed(r, _frame(r), maybe_sent=True, same_link=True),
    ),
    Input.CONNECTION_LOST: (RowKind.FIFO, lambda b, r: b.lc.connection_lost([r.key], [])),
    Input.CONNECTION_OPENED: (
        RowKind.FIFO,
        lambda b, r: b.lc.connection_opened(Dialect.A, frozenset({RowKind.FIFO}), 1),
    ),
    Input.PROTOCOL_CHANGED: (
        RowKind.FIFO,
        lambda b, r: b.lc.connection_opened(Dialect.B, frozenset({RowKind.SERVER_REQUEST}), 2),
    ),
    Input.TICK: (RowKind.FIFO, _tick),
}


def test_every_input_is_driven() -> None:
    assert set(INPUTS) == set(Input)


@pytest.mark.parametrize("phase", [*PHASES, ApprovalPhase.RESOLVED], ids=lambda p: p.name)
@pytest.mark.parametrize("event", list(Input), ids=lambda i: i.value)
def test_every_pair_moves_as_the_table_says(event: Input, phase: ApprovalPhase) -> None:
    kind, apply = INPUTS[event]
    bench = Bench(kind)
    row = bench.into(phase)
    before = row.outcome
    apply(bench, row)
    expected = TABLE.get((event, phase), (phase, ""))[0]
    assert row.phase is expected
    if phase is ApprovalPhase.RESOLVED:
        assert row.outcome is before  # one outcome, never a second
    elif expected is ApprovalPhase.RESOLVED:
        assert row.outcome is not None


def test_a_row_announced_once_then_only_when_it_changed() -> None:
    bench = Bench(RowKind.SERVER_REQUEST)
    bench.lc.asked(bench.asked, 1)  # a re-delivery of exactly what is shown
    kinds = [type(e).__name__ for e in bench.events]
    assert kinds == ["ApprovalRequested"]
