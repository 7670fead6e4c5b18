"""Link each decision a person makes to the outcome the gateway reports, then journal it. Qt-free.

"I pressed Approve" is not what happened (the request may have expired a moment before, or the
answer got lost), so a decision is written once its approval resolves; what became of the
command is appended later. One never sent is written at once, as "not sent".
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from datetime import datetime

from desktop.core.model import (
    Approval,
    ApprovalPhase,
    Outcome,
    OutcomeKind,
    RunKind,
    RunResult,
)
from desktop.core.outcomes import SETTLED_ELSEWHERE
from desktop.core.text_safety import bound_text
from desktop.journal import Journal, JournalEntry, Surface, bound_middle, local_now
from desktop.model.bridge_events import CommandReport, DecisionMade
from desktop.model.session_names import SEPARATOR, SessionName, fit

log = logging.getLogger(__name__)

RECENT_LIMIT = 10
MAX_PENDING = 500
MAX_AWAITING_RESULT = 500  # written decisions whose command may still report how it ended
LINE_LIMIT = 120  # a Recent decisions line, at most (its parts are cut first)
_MARKS = {"approved": "✓", "denied": "✗"}
# What became of a command that did not run: the journal's words, the dialog's line.
RUN_WORDS = {
    RunKind.BLOCKED: ("blocked", "Blocked — Hermes did not run it"),
    RunKind.TIMED_OUT: (
        "timed out",
        "Timed out — nobody answered in time, so Hermes did not run it",
    ),
    RunKind.WITHDRAWN: ("withdrawn", "Withdrawn — Hermes no longer asks about it"),
    RunKind.NOT_USED: (
        "not used — asked again",
        "Not used — Hermes asked again (see the row below)",
    ),
}
ANSWERED_ELSEWHERE = "answered elsewhere"
# (outcome's first word, result) pairs where the result repeats the outcome: the menu says one
_IMPLIED = {
    (OutcomeKind.DENIED.value, RUN_WORDS[RunKind.BLOCKED][0]),
    (OutcomeKind.EXPIRED.value, RUN_WORDS[RunKind.TIMED_OUT][0]),
    (OutcomeKind.WITHDRAWN.value, RUN_WORDS[RunKind.WITHDRAWN][0]),
    (OutcomeKind.WITHDRAWN.value, ANSWERED_ELSEWHERE),
}


def outcome_text(outcome: Outcome) -> str:
    """The gateway-reported outcome in words: ``approved (once)``, ``withdrawn: …``."""
    text = outcome.kind.value
    if outcome.kind is OutcomeKind.APPROVED and outcome.choice is not None:
        text += f" ({outcome.choice.value})"
    if outcome.reason and outcome.kind is not OutcomeKind.APPROVED:
        text += f": {outcome.reason}"
    return text


def run_text(result: RunResult) -> str:
    """What became of a command in words: ``ran, exit 2``, ``not used — asked again``."""
    if result.kind is RunKind.RAN:
        return "ran" if result.exit_code is None else f"ran, exit {result.exit_code}"
    return RUN_WORDS[result.kind][0]


def result_text(approval: Approval) -> str:
    """What became of a row's command, "" while nobody said (``answered elsewhere`` too)."""
    if approval.result is None:
        return ""
    reason = approval.outcome.reason if approval.outcome else ""
    if approval.result.kind is RunKind.WITHDRAWN and reason == SETTLED_ELSEWHERE:
        return ANSWERED_ELSEWHERE
    return run_text(approval.result)


def worth_journaling(command: str) -> bool:
    """A command run unasked is journaled when the risk lens would have asked (imported late)."""
    from desktop.risk import RiskLevel, assess

    try:
        return assess(command).level >= RiskLevel.MEDIUM
    except Exception:  # a broken judge must not hide a command from the record
        log.exception("risk lens failed on a command Hermes ran")
        return True


class DecisionRecorder:
    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], datetime] = local_now,
        recent_limit: int = RECENT_LIMIT,
    ) -> None:
        self._journal = journal
        self._clock = clock
        self._pending: OrderedDict[tuple[str, str], tuple[DecisionMade, datetime]] = OrderedDict()
        self._written: OrderedDict[tuple[str, str], JournalEntry] = OrderedDict()
        self._recent: deque[JournalEntry] = deque(journal.recent(recent_limit), recent_limit)

    @property
    def recent(self) -> tuple[JournalEntry, ...]:
        """The last decisions written, newest first (no file read per menu)."""
        return tuple(self._recent)

    def decided(self, made: DecisionMade) -> JournalEntry | None:
        """A decision left the app (or was refused). Written now only if its outcome is known."""
        at = self._clock()
        ident = (made.gateway_id, made.key)
        if not made.sent:
            return self._write(made, at, f"not sent: {made.reason or 'refused'}")
        self._pending[ident] = (made, at)
        self._pending.move_to_end(ident)
        while len(self._pending) > MAX_PENDING:  # a gateway that never resolves anything
            _, (oldest, since) = self._pending.popitem(last=False)
            self._write(oldest, since, "unknown: no outcome reported in time")
        return None

    def approval_changed(
        self, gateway_id: str, approval: Approval, gateway_name: str = "", session_title: str = ""
    ) -> JournalEntry | None:
        """A RESOLVED approval completes its decision's line (an expired one: "nobody" decided)."""
        if approval.phase is not ApprovalPhase.RESOLVED or approval.outcome is None:
            return None
        ident = (gateway_id, approval.key)
        result = result_text(approval)
        written = self._written.get(ident)
        if written is not None:
            changed = result and result != written.result
            return self._append_result(ident, written, result) if changed else None
        pending = self._pending.pop(ident, None)
        outcome = outcome_text(approval.outcome)
        if pending is not None:
            return self._write(*pending, outcome, result, awaits=ident)
        if approval.outcome.kind is OutcomeKind.EXPIRED:  # nobody answered: Hermes denied it
            made = DecisionMade(
                gateway_id,
                gateway_name,
                approval.key,
                None,
                Surface.NOBODY,
                session_id=approval.session_id,
                session_title=session_title,
                command=approval.command,
            )
            return self._write(made, self._clock(), outcome, result, awaits=ident)
        return None  # not decided here

    def command_ran(self, report: CommandReport) -> JournalEntry | None:
        """Hermes ran a command with no row here: journaled when it is worth a decision's line."""
        ran = report.ran
        if not ran.approval_note and not worth_journaling(ran.command):
            return None
        made = DecisionMade(
            report.gateway_id,
            report.gateway_name,
            "",
            None,
            Surface.HERMES,
            session_id=ran.session_id,
            session_title=report.session_title,
            command=ran.command,
        )
        why = "not asked (YOLO on)" if report.yolo else "not asked"  # as far as Hermes said
        if ran.approval_note:
            why = f"asked elsewhere: {ran.approval_note}"
        return self._write(made, self._clock(), why, run_text(ran.result))

    def gateway_removed(self, gateway_id: str, reason: str) -> list[JournalEntry]:
        """Close the decisions of a gateway that is gone (a new one numbers its rows anew)."""
        for ident in [i for i in self._written if i[0] == gateway_id]:
            del self._written[ident]
        return self._flush(gateway_id, reason)

    def close(self) -> list[JournalEntry]:
        return self._flush(None, "Hermes Tray quit before the gateway reported it")

    def _flush(self, gateway_id: str | None, reason: str) -> list[JournalEntry]:
        gone = [ident for ident in self._pending if gateway_id in (None, ident[0])]
        return [self._write(*self._pending.pop(ident), f"unknown: {reason}") for ident in gone]

    def _write(
        self,
        made: DecisionMade,
        at: datetime,
        outcome: str,
        result: str = "",
        *,
        awaits: tuple[str, str] | None = None,
    ) -> JournalEntry:
        """Write one line; ``awaits``: the row whose command may still report how it ended."""
        entry = self._journal.record(made, outcome, result=result, at=at)
        self._recent.appendleft(entry)
        if awaits is not None:
            self._written[awaits] = entry
            while len(self._written) > MAX_AWAITING_RESULT:
                self._written.popitem(last=False)
        return entry

    def _append_result(
        self, ident: tuple[str, str], written: JournalEntry, result: str
    ) -> JournalEntry:
        entry = self._journal.record_result(written, result)
        self._written[ident] = entry
        self._recent = deque(
            (entry if e.id == written.id else e for e in self._recent), self._recent.maxlen
        )
        return entry


def ending(entry: JournalEntry, limit: int = 44) -> str:
    """The outcome, then what became of the command (always shown) unless that repeats it."""
    head = entry.outcome.split(" ", 1)[0].rstrip(":")
    if not entry.result or (head, entry.result) in _IMPLIED:
        return bound_text(entry.outcome, limit)[0]
    tail = f", {bound_text(entry.result, limit - 18)[0]}"
    return bound_text(entry.outcome, limit - len(tail))[0] + tail


def _session_part(name: str, limit: int) -> str:
    """A stored session name cut like the registry cuts it: the title's words go first."""
    title, _, folder = name.rpartition(SEPARATOR)
    return fit(SessionName(title or folder, folder if title else "", ""), limit)


def entry_line(entry: JournalEntry, today: datetime) -> str:
    """One menu line: ``14:02 ✓ rm -rf build — approved (once), ran, exit 2 · Fix the build``."""
    try:
        when = datetime.fromisoformat(entry.time)
    except ValueError:
        stamp = entry.time[:16]
    else:
        stamp = when.strftime("%H:%M") if when.date() == today.date() else when.strftime("%d %b")
    head = entry.outcome.split(" ", 1)[0].rstrip(":")
    mark = _MARKS.get(head, "○")
    where = entry.session_title or (f"session {entry.session_id[:8]}" if entry.session_id else "")
    line = f"{stamp} {mark} {bound_middle(entry.command, 32, short=True)} — {ending(entry)}"
    return f"{line}{SEPARATOR}{_session_part(where, 28)}" if where else line


def entry_details(entry: JournalEntry) -> str:
    details = (
        f"{entry.time} · {entry.session_title or entry.session_id} on {entry.gateway_name}\n"
        f"Chose {entry.choice} ({entry.surface}); the gateway reported: {entry.outcome}"
    )
    return f"{details}\nThe command: {entry.result}" if entry.result else details
