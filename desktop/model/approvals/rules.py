"""Qt-free rules: which row may be answered now, and what a batch action answers.

Beyond the core's refusal: no second decision while one is on its way, batches in arrival order
(0.19.0 answers strictly FIFO), and only what was seen. A click is decided a few hundred ms
before it lands (measured: rows appended 0-300 ms before "Approve all" were approved too; a
double tap on A answered the row the selection had moved to), so a batch covers rows on screen
:data:`BATCH_DWELL_S` and a key needs its row shown and selected :data:`KEY_DWELL_S`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.core.decisions import ALREADY_SENDING, Refusal, RefusalKind, refusal
from desktop.core.model import Action, Approval, Choice, OutcomeKind
from desktop.model.approvals.layout import BatchGroup, RowEntry, in_arrival_order

BATCH_DWELL_S = 0.8
KEY_DWELL_S = 0.5
HEAD_PX = 70  # a card's head: its number, its state and the first lines of the command
Assess = Callable[[str, str], Any]  # (command, cwd) -> desktop.risk's RiskAssessment


def head_on_screen(y: int, height: int, view_height: int) -> bool:
    """A card at ``y`` counts as on screen when its head is (its command is readable there)."""
    return y >= 0 and y + min(height, HEAD_PX) <= view_height


def key_ready(
    on_screen_since: float | None, selected_since: float | None, now: float, dwell: float
) -> bool:
    """A key may answer the selected row: on screen and selected, both for ``dwell`` seconds."""
    if on_screen_since is None or selected_since is None:
        return False
    return now - max(on_screen_since, selected_since) >= dwell


def is_high(assess: Assess | None, command: str, cwd: str) -> bool:
    """The command, run in ``cwd``, is judged high risk (a judge that fails says high)."""
    if assess is None:
        return False
    try:
        level = getattr(assess(command, cwd), "level", None)
    except Exception:  # a judge that breaks must not open the gate
        return True
    return getattr(level, "name", "") == "HIGH"


def selectable_by_itself(row: RowEntry, assess: Assess | None) -> bool:
    """The selection may move here by itself: not a re-used row id, not high risk.

    A key pressed for the row that just left must not land there; arrows and clicks still do.
    """
    a = row.approval
    return not a.replaces and not is_high(assess, a.command, a.context.cwd)


def key_dwell(row: RowEntry, dwell: float) -> float:
    """How long a key must wait on ``row``: a new command under a re-used id, as for a batch."""
    return max(dwell, BATCH_DWELL_S) if row.approval.replaces else dwell


def counts_down(row: RowEntry) -> bool:
    return row.is_open and row.approval.expires_at is not None


def row_refusal(row: RowEntry, choice: Choice) -> Refusal | None:
    """Why ``choice`` may not be sent for this row now (None: it may): on its way, or the core's."""
    if row.awaiting_core:
        return Refusal(RefusalKind.ON_ITS_WAY, ALREADY_SENDING)
    return refusal(row.approval, choice, confirmed=row.reconfirming)


def can_decide(row: RowEntry, choice: Choice) -> bool:
    return row_refusal(row, choice) is None


def needs_reconfirm(row: RowEntry) -> bool:
    """A stale row whose person has not yet chosen to answer it anyway."""
    return row.approval.action is Action.RECONFIRM and not row.reconfirming


def absorb_core_state(row: RowEntry, new: Approval) -> bool:
    """The core published ``new`` for ``row``: drop what it settles; returns whether any changed.

    A re-confirmation lasts while the row needs one, a refusal notice until its action moves on.
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
    """Rows a batch action answers now, FIFO; rows to re-confirm need their own "Re-confirm"."""
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
        dwell: float = BATCH_DWELL_S,
    ) -> BatchIntent:
        """Deny: every waiting row; approve: rows shown ``dwell`` s (``shown_since``), not high."""
        covered: list[str] = []
        unseen, high = 0, []
        for r in in_arrival_order(batch.rows):
            a = r.approval
            if a.action not in _IN_LINE or choice not in a.choices or r.awaiting_core:
                continue
            if choice is not Choice.DENY:
                since = shown_since(r)
                if since is None or now - since < dwell:
                    unseen += 1
                    continue
                if is_high(assess, a.command, a.context.cwd):
                    high.append(r)
                    continue
            covered.append(r.key)
        return cls(choice, frozenset(covered), unseen=unseen, high=tuple(high))

    def due(self, batch: BatchGroup) -> list[RowEntry]:
        """Covered rows now answerable (0.19.0: only a queue's head is), not yet answered, FIFO."""
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
