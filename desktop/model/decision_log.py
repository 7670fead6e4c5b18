"""Link each decision a person makes to the outcome the gateway reports, then journal it. Qt-free.

Why wait for the outcome: "I pressed Approve" is not what happened. The gateway may have
approved, or the request may have been withdrawn or expired a moment before the answer
landed, or the connection dropped with the answer in flight. The journal promises the outcome
*as the gateway reported it*, so a decision is held here until its approval reaches
``RESOLVED`` and only then written, with the time the person decided.

Three edges:

* a decision that was never sent (the core refused it) is written at once as "not sent";
* an approval resolves only after :meth:`DecisionRecorder.decided` was called: the client
  delivers the core's events on the loop turn after ``decide`` returned;
* decisions still waiting when their gateway is removed or the app quits are written with an
  "unknown" outcome, so nothing a person decided silently disappears.

Everything is bounded: pending decisions and the recent list.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome, OutcomeKind
from desktop.journal import JournalEntry, Surface
from desktop.model.bridge_events import DecisionMade

log = logging.getLogger(__name__)

RECENT_LIMIT = 10
MAX_PENDING = 500
_SURFACES = {s.value for s in Surface}
_MARKS = {"approved": "✓", "denied": "✗"}


class JournalLike(Protocol):
    """The part of :class:`desktop.journal.Journal` the recorder uses."""

    def record(
        self,
        *,
        gateway_id: str,
        gateway_name: str,
        session_id: str,
        session_title: str,
        command: str,
        choice: str,
        surface: Surface | str,
        outcome: str,
        at: datetime | None = None,
    ) -> JournalEntry: ...

    def recent(self, n: int = 10) -> list[JournalEntry]: ...


@dataclass(frozen=True, slots=True)
class _Pending:
    made: DecisionMade
    at: datetime


def outcome_text(outcome: Outcome) -> str:
    """The gateway-reported outcome in words: ``approved (once)``, ``withdrawn: …``."""
    text = outcome.kind.value
    if outcome.kind is OutcomeKind.APPROVED and outcome.choice is not None:
        text += f" ({outcome.choice.value})"
    if outcome.reason and outcome.kind is not OutcomeKind.APPROVED:
        text += f": {outcome.reason}"
    return text


def _surface(value: str) -> Surface:
    if value in _SURFACES:
        return Surface(value)
    log.warning("decision from an unknown surface %r journalled as 'dialog'", value)
    return Surface.DIALOG


def _local_now() -> datetime:
    return datetime.now().astimezone()


class DecisionRecorder:
    """Feed it decisions and approval changes; it writes one journal line per decision."""

    def __init__(
        self,
        journal: JournalLike,
        *,
        clock: Callable[[], datetime] = _local_now,
        recent_limit: int = RECENT_LIMIT,
    ) -> None:
        self._journal = journal
        self._clock = clock
        self._pending: OrderedDict[tuple[str, str], _Pending] = OrderedDict()
        self._recent: deque[JournalEntry] = deque(journal.recent(recent_limit), recent_limit)

    @property
    def recent(self) -> tuple[JournalEntry, ...]:
        """The last decisions written, newest first (kept in memory: no file read per menu)."""
        return tuple(self._recent)

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    def decided(self, made: DecisionMade) -> JournalEntry | None:
        """A decision left the app (or was refused). Written now only if its outcome is known."""
        at = self._clock()
        ident = (made.gateway_id, made.key)
        if not made.sent:
            return self._write(made, at, f"not sent: {made.reason or 'refused'}")
        self._pending[ident] = _Pending(made, at)
        self._pending.move_to_end(ident)
        while len(self._pending) > MAX_PENDING:  # a gateway that never resolves anything
            _, oldest = self._pending.popitem(last=False)
            self._write(oldest.made, oldest.at, "unknown: no outcome reported in time")
        return None

    def approval_changed(
        self, gateway_id: str, approval: Approval, gateway_name: str = "", session_title: str = ""
    ) -> JournalEntry | None:
        """An approval changed; a RESOLVED one completes its decision's journal line.

        A row that expired with no decision from here is journaled too (choice "none", surface
        "nobody"): Hermes denied it because nobody answered in time, and the person should
        find that in the journal.
        """
        if approval.phase is not ApprovalPhase.RESOLVED or approval.outcome is None:
            return None
        ident = (gateway_id, approval.key)
        pending = self._pending.pop(ident, None)
        if pending is None and approval.outcome.kind is OutcomeKind.EXPIRED:
            made = DecisionMade(
                gateway_id,
                gateway_name,
                approval.key,
                Choice.DENY,
                Surface.NOBODY.value,
                True,
                "",
                approval.session_id,
                session_title,
                approval.command,
            )
            return self._write(made, self._clock(), outcome_text(approval.outcome), choice="none")
        if pending is None:  # not decided here
            return None
        return self._write(pending.made, pending.at, outcome_text(approval.outcome))

    def gateway_removed(self, gateway_id: str, reason: str) -> list[JournalEntry]:
        """Close the decisions of a gateway that is gone."""
        return self._flush(lambda ident: ident[0] == gateway_id, reason)

    def close(self, reason: str = "Hermes Tray quit before the gateway reported it") -> None:
        """Write every decision still waiting for its outcome (at quit)."""
        self._flush(lambda ident: True, reason)

    def _flush(self, which: Callable[[tuple[str, str]], bool], reason: str) -> list[JournalEntry]:
        written = []
        for ident in [i for i in self._pending if which(i)]:
            pending = self._pending.pop(ident)
            written.append(self._write(pending.made, pending.at, f"unknown: {reason}"))
        return written

    def _write(
        self, made: DecisionMade, at: datetime, outcome: str, choice: str = ""
    ) -> JournalEntry:
        entry = self._journal.record(
            gateway_id=made.gateway_id,
            gateway_name=made.gateway_name,
            session_id=made.session_id,
            session_title=made.session_title,
            command=made.command,
            choice=choice or made.choice.value,
            surface=_surface(made.surface),
            outcome=outcome,
            at=at,
        )
        self._recent.appendleft(entry)
        return entry


def entry_line(entry: JournalEntry, today: datetime) -> str:
    """One menu line: ``14:02 ✓ rm -rf build — approved (once)``; older days show the date."""
    try:
        when = datetime.fromisoformat(entry.time)
    except ValueError:
        stamp = entry.time[:16]
    else:
        stamp = when.strftime("%H:%M") if when.date() == today.date() else when.strftime("%d %b")
    head = entry.outcome.split(" ", 1)[0].rstrip(":")
    mark = _MARKS.get(head, "○")
    command = entry.command if len(entry.command) <= 48 else entry.command[:47] + "…"
    return f"{stamp} {mark} {command} — {entry.outcome}"


def entry_details(entry: JournalEntry) -> str:
    """A tooltip's worth: where, how and when (plain text)."""
    return (
        f"{entry.time} · {entry.session_title or entry.session_id} on {entry.gateway_name}\n"
        f"Chose {entry.choice} ({entry.surface}); the gateway reported: {entry.outcome}"
    )
