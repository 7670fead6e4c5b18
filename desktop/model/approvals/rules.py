"""Qt-free rules: which row may be answered now, and what a batch action answers.

These are the safety rules of the dialog, and they hold however the buttons are wired: never offer
a second decision while one is on its way, never answer a row the core says cannot be answered,
answer a batch in the server's arrival order (0.19.0 answers strictly FIFO). Whether a row may be
answered is the core's one rule (``decisions.refusal``, over ``Approval.action``); the dialog only
adds what it knows itself (a decision it emitted is on its way, the person re-confirmed a stale
row). The core still has the last word when the decision arrives.

Batch coverage: "Approve all" covers only rows on screen at least ``seen.BATCH_DWELL_S`` and never
a high-risk one (``risk_gate``), "Deny all" every waiting row; :meth:`BatchIntent.for_batch` is
that rule. On 0.19.0 only the head of a session's queue is answerable, so "Approve all" can
answer just one row at first: the intent remembers the rows covered when the person clicked and
answers each of them as the core makes it answerable. Rows that arrive later are never covered,
and the intent is dropped as soon as anything unexpected happens (a row needs re-confirming, is
withdrawn or expires, or the core refuses).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop.core.decisions import ALREADY_SENDING, Refusal, RefusalKind, refusal
from desktop.core.model import Action, Approval, Choice, OutcomeKind
from desktop.model.approvals import seen
from desktop.model.approvals.layout import BatchGroup, RowEntry, in_arrival_order
from desktop.model.approvals.risk_gate import Assess, is_high


def selectable_by_itself(row: RowEntry, assess: Assess | None) -> bool:
    """The selection may move onto this row by itself (after an answer, or when its row ends).

    Never onto a request that re-used an open row's id (it took that row's place under the
    person's eyes) nor onto a high-risk one: a key pressed for the row that just left must not
    land there. The person can still move onto them with the arrows or a click.
    """
    a = row.approval
    return not a.replaces and not is_high(assess, a.command, a.context.cwd)


def key_dwell(row: RowEntry, dwell: float) -> float:
    """How long a key must wait on ``row``: a request under a re-used id waits as long as a batch.

    A click or key is decided before it lands (``seen``); a replacement is a new command in an
    old row's place, so it needs the longer look ``seen.BATCH_DWELL_S`` asks of a batch.
    """
    return max(dwell, seen.BATCH_DWELL_S) if row.approval.replaces else dwell


def counts_down(row: RowEntry) -> bool:
    """The row shows a live countdown (it is open and has an expiry)."""
    return row.is_open and row.approval.expires_at is not None


def row_refusal(row: RowEntry, choice: Choice) -> Refusal | None:
    """Why the person may not send ``choice`` for this row now; None when they may.

    The core's :func:`~desktop.core.decisions.refusal`, after what only the dialog knows: its
    own decision for the row is on its way, or the person re-confirmed the stale row.
    """
    if row.awaiting_core:
        return Refusal(RefusalKind.ON_ITS_WAY, ALREADY_SENDING)
    return refusal(row.approval, choice, confirmed=row.reconfirming)


def can_decide(row: RowEntry, choice: Choice) -> bool:
    """The person may send ``choice`` for this row right now."""
    return row_refusal(row, choice) is None


def needs_reconfirm(row: RowEntry) -> bool:
    """A stale row whose person has not yet chosen to answer it anyway."""
    return row.approval.action is Action.RECONFIRM and not row.reconfirming


def absorb_core_state(row: RowEntry, new: Approval) -> bool:
    """The core published ``new`` for ``row``: drop the dialog's own expectations.

    A decision on its way (``awaiting_core``) is settled by whatever the core now says (SENDING,
    or answerable again after a refusal); a re-confirmation only lasts while the row still needs
    one; a refusal notice only until the row's action moves on from the one it was given in.
    Returns whether any of that changed.
    """
    before = (row.awaiting_core, row.reconfirming, row.notice)
    action = new.action
    if row.notice and action is not row.notice_action:
        row.notice, row.notice_action = "", None
    row.awaiting_core = False
    row.reconfirming = row.reconfirming and action is Action.RECONFIRM
    return before != (row.awaiting_core, row.reconfirming, row.notice)


def refuse(row: RowEntry, reason: str) -> None:
    """The core did not send the row's decision: its buttons come back, with why."""
    row.awaiting_core = False
    row.notice = reason or "the gateway core refused it"
    row.notice_action = row.approval.action


def batch_targets(batch: BatchGroup, choice: Choice) -> list[RowEntry]:
    """Rows a batch action answers now: answerable, offering ``choice``; FIFO order.

    Rows to re-confirm are left out on purpose: each needs its own "Re-confirm".
    """
    return [
        r
        for r in in_arrival_order(batch.rows)
        if r.approval.action is Action.ANSWER and can_decide(r, choice)
    ]


def answers_in_order(batch: BatchGroup) -> bool:
    """Show the "in order" badge: a row must wait while an earlier one is still open."""
    earlier_open = False
    for r in in_arrival_order(batch.rows):
        action = r.approval.action
        if action is Action.WAIT and earlier_open:
            return True
        earlier_open = earlier_open or action is not Action.DONE
    return False


_EXPECTED = {Choice.ONCE: OutcomeKind.APPROVED, Choice.DENY: OutcomeKind.DENIED}
_IN_LINE = (Action.ANSWER, Action.WAIT)  # a batch action may cover it (now or in its turn)


@dataclass
class BatchIntent:
    """A click on "Approve all" / "Deny all": the choice, the rows it covers, what it left out."""

    choice: Choice
    keys: frozenset[str]  # the rows covered when the person clicked
    sent: set[str] = field(default_factory=set)
    unseen: int = 0  # rows left out: not on screen long enough to have been read
    high: tuple[RowEntry, ...] = ()  # rows left out: high risk, each answered on its own

    @classmethod
    def for_batch(
        cls,
        batch: BatchGroup,
        choice: Choice,
        *,
        shown_since: Callable[[RowEntry], float | None],
        now: float,
        assess: Assess | None,
        dwell: float = seen.BATCH_DWELL_S,
    ) -> BatchIntent:
        """Cover the batch's rows the person could have read, never a high-risk approval.

        A deny covers every waiting row (a deny is always safe, and "Deny all" must be final);
        an approval covers only rows on screen (``shown_since``: when a row last came on
        screen, None if it is not) for ``dwell`` seconds and not judged high risk. Rows whose
        decision is already on its way are not covered again.
        """
        covered: list[str] = []
        unseen, high = 0, []
        for r in in_arrival_order(batch.rows):
            a = r.approval
            if a.action not in _IN_LINE or choice not in a.choices or r.awaiting_core:
                continue
            if choice is not Choice.DENY:
                if not seen.seen_long_enough(shown_since(r), now, dwell):
                    unseen += 1
                    continue
                if is_high(assess, a.command, a.context.cwd):
                    high.append(r)
                    continue
            covered.append(r.key)
        return cls(choice, frozenset(covered), unseen=unseen, high=tuple(high))

    def due(self, batch: BatchGroup) -> list[RowEntry]:
        """Covered rows that became answerable and were not answered yet, in FIFO order."""
        return [
            r
            for r in batch_targets(batch, self.choice)
            if r.key in self.keys and r.key not in self.sent
        ]

    def still_valid(self, batch: BatchGroup) -> bool:
        """False once a covered row needs re-confirming, ended not as asked, or all are done."""
        covered = [r.approval for r in batch.rows if r.key in self.keys]
        for a in covered:
            if a.action is Action.RECONFIRM:
                return False
            if a.outcome is not None and a.outcome.kind is not _EXPECTED.get(self.choice):
                return False
        return any(a.action is not Action.DONE for a in covered)
