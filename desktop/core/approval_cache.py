"""What the approval book may skip when nothing its answer depends on has moved.

Why: the core ends every input (most are stream deltas) with ``expire_due`` and ``refresh``, and
the client asks ``next_deadline`` after every input. Each walked every row, so a frame cost more
the more approvals waited. What they compute depends only on:

* the rows: which are open, and each open row's kind, phase, expiry and stale reason. All of it
  changes only in ``ApprovalBook._change`` (which bumps :attr:`BookCache.changes`, and
  :attr:`BookCache.moves` when a phase moved) or with a new row. The version is therefore
  ``(changes or moves, last_seq, number of rows)``: ``ask`` numbers a row (``last_seq``) before
  it stores it, so only the row count tells a walk made in between from one made after; pruning
  drops resolved rows only, after a ``_change``. Code that adds, drops or edits rows any other
  way must bump ``changes``/``moves`` itself (``tests/core/test_fast_paths.py`` would notice);
* for ``refresh``, the answer context apart from the time: dialect, answer kinds, connected and
  margin;
* the time, and only by comparison with thresholds the rows fix: ``expires_at`` for expiry,
  ``expires_at - margin`` for answerability and ``next_deadline``.

So a result computed at one version of the rows, in one context, at time ``t0`` still holds at
``t`` while version and context are unchanged and no threshold lies between ``t0`` and ``t``
(in either direction: an injected clock may go back). Each cache below keys on exactly that.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.wire import RowKind

if TYPE_CHECKING:
    from desktop.core.approval_rows import Row

Version = tuple[int, int, int]  # (changes or moves, last_seq, number of rows)


@dataclass(frozen=True, slots=True)
class Span:
    """Times ``[low, high)``: every threshold lies at or below ``low`` or at or above ``high``."""

    low: float = -math.inf
    high: float = math.inf


def span_around(now: float, thresholds: Iterable[float]) -> Span:
    """The widest span holding ``now`` in which ``t >= threshold`` is the same for every ``t``."""
    low, high = -math.inf, math.inf
    for threshold in thresholds:
        if threshold <= now:
            low = max(low, threshold)
        else:
            high = min(high, threshold)
    return Span(low, high)


def thresholds(rows: Iterable[Row], margin: float) -> list[float]:
    """``expires_at - margin`` of every FIFO row among ``rows`` (the only time-bound kind)."""
    return [
        row.approval.expires_at - margin
        for row in rows
        if row.kind is RowKind.FIFO and row.approval.expires_at is not None
    ]


class BookCache:
    """The last results of the book's walks, each beside the version it was computed at.

    The book reads these attributes directly on its per-input paths (a method call per check
    would cost about what the check saves); the results are stored through the methods.
    """

    __slots__ = (
        "changes",
        "deadline",
        "deadline_span",
        "deadline_version",
        "earliest_expiry",
        "expiry_version",
        "moves",
        "open_rows",
        "open_version",
        "refresh_key",
        "refresh_span",
        "waiting",
    )

    def __init__(self) -> None:
        self.changes = 0  # every ApprovalBook._change call, whether or not the value moved
        self.moves = 0  # every phase that moved
        self.open_version: Version | None = None
        self.open_rows: list[Row] = []  # oldest first
        self.waiting: frozenset[str] = frozenset()  # sessions with a WAITING or STALE row
        self.refresh_key: tuple[Version, Hashable] | None = None  # and the rules
        self.refresh_span = Span()
        self.expiry_version: Version | None = None
        self.earliest_expiry = -math.inf  # no waiting FIFO row expires before this
        self.deadline_version: Version | None = None
        self.deadline_span = Span()
        self.deadline: float | None = None

    def keep_open_rows(self, version: Version, rows: list[Row], waiting: frozenset[str]) -> None:
        self.open_version, self.open_rows, self.waiting = version, rows, waiting

    def refreshed(
        self, version: Version, rules: Hashable, now: float, margin: float, rows: list[Row]
    ) -> None:
        """A full refresh at ``now`` has just left ``rows`` (all open rows) up to date."""
        self.refresh_key = (version, rules)
        self.refresh_span = span_around(now, thresholds(rows, margin))

    def expiry_checked(self, version: Version, earliest: float) -> None:
        """No waiting FIFO row expires before ``earliest`` (``inf``: none counts down)."""
        self.expiry_version, self.earliest_expiry = version, earliest

    def deadline_found(self, version: Version, span: Span, deadline: float | None) -> None:
        """``next_deadline`` is ``deadline`` at every time in ``span``."""
        self.deadline_version, self.deadline_span, self.deadline = version, span, deadline
