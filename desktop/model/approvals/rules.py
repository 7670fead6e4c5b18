"""Qt-free rules: which row may be answered now, and what a batch action answers.

These are the safety rules of the dialog, and they hold however the buttons are wired: never offer
a second decision while one is on its way, never answer a row the core says cannot be answered,
answer a batch in the server's arrival order (0.19.0 answers strictly FIFO). The core still has the
last word (``GatewayCore.decide`` refuses what it must); these rules only keep the dialog from
asking for something it should not.

Batch follow-through: on 0.19.0 only the head of a session's queue is answerable, so "Approve
all" can answer just one row at first. The dialog remembers the *rows the person saw* when they
clicked (:class:`BatchIntent`) and answers each of them as the core makes it answerable. Rows
that arrive later are never covered, and the intent is dropped as soon as anything unexpected
happens (a row goes stale, is withdrawn or expires, or the core refuses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.model import Approval, ApprovalPhase, Choice, OutcomeKind
from desktop.model.approvals.layout import BatchGroup, RowEntry, in_arrival_order


def counts_down(row: RowEntry) -> bool:
    """The row shows a live countdown (it is open and has an expiry)."""
    return row.is_open and row.approval.expires_at is not None


def can_decide(row: RowEntry, choice: Choice) -> bool:
    """The person may send ``choice`` for this row right now."""
    a = row.approval
    if row.awaiting_core or choice not in a.choices:
        return False
    if a.phase is ApprovalPhase.WAITING:
        return a.answerable
    return a.phase is ApprovalPhase.STALE and row.reconfirming


def needs_reconfirm(row: RowEntry) -> bool:
    """A STALE row whose person has not yet chosen to answer it anyway."""
    return row.approval.phase is ApprovalPhase.STALE and not row.reconfirming


def absorb_core_state(row: RowEntry, new: Approval) -> bool:
    """The core published ``new`` for ``row``: drop the dialog's own expectations.

    A decision on its way (``awaiting_core``) is settled by whatever the core now says (SENDING,
    or WAITING again after a refusal); a re-confirmation only lasts while the row stays STALE;
    a refusal notice only until the phase moves on from the one it was given in. Returns
    whether any of that changed.
    """
    before = (row.awaiting_core, row.reconfirming, row.notice)
    if row.notice and new.phase is not row.notice_phase:
        row.notice, row.notice_phase = "", None
    row.awaiting_core = False
    row.reconfirming = row.reconfirming and new.phase is ApprovalPhase.STALE
    return before != (row.awaiting_core, row.reconfirming, row.notice)


def refuse(row: RowEntry, reason: str) -> None:
    """The core did not send the row's decision: its buttons come back, with why."""
    row.awaiting_core = False
    row.notice = reason or "the gateway core refused it"
    row.notice_phase = row.approval.phase


def batch_targets(batch: BatchGroup, choice: Choice) -> list[RowEntry]:
    """Rows a batch action answers now: waiting, answerable, offering ``choice``; FIFO order.

    STALE rows are left out on purpose: each needs its own "Re-confirm".
    """
    return [
        r
        for r in in_arrival_order(batch.rows)
        if r.approval.phase is ApprovalPhase.WAITING and can_decide(r, choice)
    ]


def answers_in_order(batch: BatchGroup) -> bool:
    """Show the "in order" badge: a waiting row is blocked while an earlier one is still open."""
    earlier_open = False
    for r in in_arrival_order(batch.rows):
        blocked = r.approval.phase is ApprovalPhase.WAITING and not r.approval.answerable
        if blocked and earlier_open:
            return True
        earlier_open = earlier_open or r.is_open or r.approval.phase is ApprovalPhase.SENDING
    return False


_EXPECTED = {Choice.ONCE: OutcomeKind.APPROVED, Choice.DENY: OutcomeKind.DENIED}


@dataclass
class BatchIntent:
    """A click on "Approve all" / "Deny all": the choice and the rows visible at that moment."""

    choice: Choice
    keys: frozenset[str]
    sent: set[str] = field(default_factory=set)

    @classmethod
    def for_batch(cls, batch: BatchGroup, choice: Choice) -> BatchIntent:
        """Cover every row of ``batch`` that is waiting now (answerable yet or not)."""
        keys = frozenset(
            r.key
            for r in batch.rows
            if r.approval.phase is ApprovalPhase.WAITING and choice in r.approval.choices
        )
        return cls(choice, keys)

    def due(self, batch: BatchGroup) -> list[RowEntry]:
        """Covered rows that became answerable and were not answered yet, in FIFO order."""
        return [
            r
            for r in batch_targets(batch, self.choice)
            if r.key in self.keys and r.key not in self.sent
        ]

    def still_valid(self, batch: BatchGroup) -> bool:
        """False once a covered row went stale, ended otherwise than asked, or all are done."""
        covered = [r for r in batch.rows if r.key in self.keys]
        for r in covered:
            a = r.approval
            if a.phase is ApprovalPhase.STALE:
                return False
            if a.outcome is not None and a.outcome.kind is not _EXPECTED.get(self.choice):
                return False
        return any(r.approval.phase is not ApprovalPhase.RESOLVED for r in covered)
