"""What the approval book may skip when nothing its answer depends on has moved.

Why: the core ends every input (most are stream deltas) with ``expire_due`` and ``refresh``, and
the client asks ``next_deadline`` after every input. Each walked every row, so a frame cost more
the more approvals waited. What they compute depends only on:

* the rows: which are open, and each open row's kind, phase, expiry and stale reason. All of it
  changes only in ``ApprovalBook._change`` (which bumps :attr:`BookCache.changes`, and
  :attr:`BookCache.moves` when a phase moved) or with a new row (a new ``last_seq``); pruning
  drops resolved rows only (the row count is part of the version all the same);
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
    from desktop.core.approvals import Row

Version = tuple[int, int, int]  # (changes or moves, last_seq, number of rows)


@dataclass(frozen=True, slots=True)
class Span:
    """Times ``[low, high)``: every threshold lies at or below ``low`` or at or above ``high``."""

    low: float = -math.inf
    high: float = math.inf

    def holds(self, now: float) -> bool:
        return self.low <= now < self.high


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
    """The last results of the book's walks over its rows, each with what it held for."""

    __slots__ = ("_deadline", "_expiry", "_open", "_refresh", "changes", "moves")

    def __init__(self) -> None:
        self.changes = 0  # every ApprovalBook._change call, whether or not the value moved
        self.moves = 0  # every phase that moved
        self._open: tuple[Version, list[Row], frozenset[str]] | None = None
        self._refresh: tuple[Version, Hashable, Span] | None = None
        self._expiry: tuple[Version, float] | None = None
        self._deadline: tuple[Version, Span, float | None] | None = None

    # -- open rows (depend on phases only) -----------------------------------------------------
    def open_rows(self, version: Version) -> tuple[list[Row], frozenset[str]] | None:
        """The open rows and the sessions with a WAITING/STALE row, if still current."""
        if self._open is not None and self._open[0] == version:
            return self._open[1], self._open[2]
        return None

    def keep_open_rows(self, version: Version, rows: list[Row], waiting: frozenset[str]) -> None:
        self._open = (version, rows, waiting)

    # -- refresh ----------------------------------------------------------------------------
    def refresh_holds(self, version: Version, context: Hashable, now: float) -> bool:
        """Whether a refresh now would find exactly what the last one left."""
        last = self._refresh
        return last is not None and last[0] == version and last[1] == context and last[2].holds(now)

    def refreshed(
        self, version: Version, context: Hashable, now: float, margin: float, rows: list[Row]
    ) -> None:
        """A full refresh at ``now`` has just left ``rows`` (all open rows) up to date."""
        self._refresh = (version, context, span_around(now, thresholds(rows, margin)))

    # -- expiry -----------------------------------------------------------------------------
    def nothing_expires(self, version: Version, now: float) -> bool:
        """Whether no FIFO row would expire at ``now`` (none is due before the earliest)."""
        return self._expiry is not None and self._expiry[0] == version and now < self._expiry[1]

    def expiry_checked(self, version: Version, earliest: float) -> None:
        """No waiting FIFO row expires before ``earliest`` (``inf``: none counts down)."""
        self._expiry = (version, earliest)

    # -- next deadline ----------------------------------------------------------------------
    def deadline(self, version: Version, now: float) -> tuple[bool, float | None]:
        """``(True, value)`` when the last ``next_deadline`` answer holds at ``now``."""
        last = self._deadline
        if last is not None and last[0] == version and last[1].holds(now):
            return True, last[2]
        return False, None

    def deadline_found(self, version: Version, span: Span, value: float | None) -> None:
        self._deadline = (version, span, value)
