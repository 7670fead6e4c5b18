"""A new row is judged with its own session's rows only; a change of context judges them all.

The approval machine asks ``followed(session_id)`` once per session it judges, so counting those
calls shows which sessions a judgement covered. Before judging was scoped, every new approval judged
every open row (10,000 waiting rows made the next one cost 10,000 rule checks).
"""

from __future__ import annotations

import random
from collections import Counter

from desktop.core import outcomes
from desktop.core.approvals import ApprovalMachine
from desktop.core.events import CoreEvent
from desktop.core.model import OPEN_PHASES, ApprovalPhase, Dialect
from desktop.core.outbox import Outbox
from desktop.core.settings import CoreSettings
from desktop.core.wire import ApprovalAsked, RowKind

SESSIONS = 40


class Judged:
    def __init__(self, kind: RowKind, dialect: Dialect) -> None:
        self.now = 100.0
        self.kind = kind
        self.calls: Counter[str] = Counter()
        self.unfollowed: set[str] = set()
        self.events: list[CoreEvent] = []
        self.lc = ApprovalMachine(
            CoreSettings(), self.events, Outbox(), lambda: self.now, followed=self._followed
        )
        self.lc.transport_opened()
        self.lc.connection_opened(dialect, frozenset({kind}), epoch=1)
        self.n = 0

    def _followed(self, session_id: str) -> bool:
        self.calls[session_id] += 1
        return session_id not in self.unfollowed

    def ask(self, session_id: str) -> None:
        self.n += 1
        server_request = self.kind is RowKind.SERVER_REQUEST
        self.lc.asked(
            ApprovalAsked(
                session_id=session_id,
                kind=self.kind,
                command=f"rm -rf /tmp/x{self.n}",
                reply_id=f"srq-{self.n}" if server_request else None,
                request_id="" if self.kind is RowKind.FIFO else f"p-{self.n}",
            ),
            epoch=1,
        )


def test_a_new_row_judges_only_its_own_session() -> None:
    for kind, dialect in ((RowKind.SERVER_REQUEST, Dialect.B), (RowKind.FIFO, Dialect.A)):
        j = Judged(kind, dialect)
        for n in range(SESSIONS * 3):
            j.ask(f"s{n % SESSIONS}")
        j.calls.clear()
        j.ask("s7")
        assert set(j.calls) == {"s7"}, kind
        assert len(j.lc.open_rows()) == SESSIONS * 3 + 1


def test_a_change_of_context_judges_every_session_again() -> None:
    j = Judged(RowKind.SERVER_REQUEST, Dialect.B)
    for n in range(SESSIONS):
        j.ask(f"s{n}")
    j.calls.clear()
    j.unfollowed.add("s3")
    j.lc.follow_changed()
    assert set(j.calls) == {f"s{n}" for n in range(SESSIONS)}
    blocked = [row for row in j.lc.open_rows() if not row.answerable]
    assert [row.session_id for row in blocked] == ["s3"]


def test_who_waits_follows_rows_ending_in_one_session_among_many() -> None:
    j = Judged(RowKind.SERVER_REQUEST, Dialect.B)
    for n in range(SESSIONS):
        j.ask(f"s{n}")
    assert j.lc.waiting == {f"s{n}" for n in range(SESSIONS)}
    rows = j.lc.open_rows("s5")
    j.lc.session_gone("s5", outcomes.withdrawn(outcomes.SESSION_GONE))
    assert rows
    assert all(row.phase is ApprovalPhase.RESOLVED for row in rows)
    assert "s5" not in j.lc.waiting
    assert len(j.lc.waiting) == SESSIONS - 1


def test_rows_that_time_out_in_every_session_end_when_the_clock_passes_them() -> None:
    j = Judged(RowKind.FIFO, Dialect.A)  # no frame says when 0.19.0 stops waiting
    for n in range(SESSIONS):
        j.ask(f"s{n}")
    first = j.lc.open_rows("s0")[0]
    assert first.expires_at is not None
    j.now = first.expires_at + 1.0  # every row is past its end: the clock crossed the span
    j.lc.tick()
    assert not j.lc.open_rows()
    assert j.lc.waiting == frozenset()


def _earliest_due(lc: ApprovalMachine, now: float, margin: float) -> float | None:
    """The next deadline worked out from every open row (FIFO rows stop at the margin first)."""
    dues = []
    for row in lc.open_rows():
        if row.kind is not RowKind.FIFO or row.phase not in OPEN_PHASES or row.expires_at is None:
            continue
        edge = row.expires_at - margin
        dues.append(edge if now < edge else row.expires_at)
    return min(dues, default=None)


def test_the_next_deadline_is_the_earliest_of_every_session_after_each_input() -> None:
    """The span and deadline are folded from the sessions an input judged; when a session that
    set them moves or empties they are worked out from all of them again."""
    margin = CoreSettings().staleness_margin
    for seed in range(20):
        rng = random.Random(seed)
        j = Judged(RowKind.FIFO, Dialect.A)
        for _ in range(120):
            roll = rng.random()
            open_rows = j.lc.open_rows()
            if roll < 0.45 or not open_rows:
                j.ask(f"s{rng.randrange(6)}")
            elif roll < 0.8:
                gone = outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
                j.lc.withdrawn(rng.choice(open_rows), gone)
            else:
                j.now += rng.uniform(0.0, 20.0)
                j.lc.tick()
            assert j.lc.next_deadline() == _earliest_due(j.lc, j.now, margin), seed
