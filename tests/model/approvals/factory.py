"""Builders for the approval dialog's tests: core values, the store, a hand-driven clock. Qt-free.

Why our own builder instead of tests/model/builders.py's ``approval``: the dialog tests need every
field of :class:`Approval` (expiry, outcome, blocked reason, pattern keys, re-asks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from desktop.core.events import ApprovalChanged
from desktop.core.model import (
    Approval,
    ApprovalPhase,
    CallContext,
    Choice,
    Outcome,
    OutcomeKind,
)
from desktop.model.app_state import AppState
from desktop.model.approvals.layout import RowEntry

ALL_CHOICES = (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)
HOSTILE = "<b>x</b> <img src=x> <a href='https://evil.example'>go</a> \u202eexe.txt \u200bzw"


SHOP = "/home/ann/src/shop"  # the task's folder of the rows made here


def approval(
    key: str = "k1",
    *,
    session: str = "s1",
    batch: str = "b1",
    position: int = 0,
    command: str = "rm -rf build/",
    **overrides: Any,
) -> Approval:
    """An Approval with sensible defaults; any other field by keyword."""
    base = Approval(
        key=key,
        session_id=session,
        batch_id=batch,
        position=position,
        command=command,
        description="recursive delete",
        pattern_keys=("recursive_delete",),
        choices=ALL_CHOICES,
        context=CallContext(cwd=SHOP),  # build/ inside it: routine, below high risk
    )
    return replace(base, **overrides)


def resolved(
    a: Approval, kind: OutcomeKind, choice: Choice | None = None, reason: str = ""
) -> Approval:
    """``a`` with its one final outcome."""
    return replace(a, phase=ApprovalPhase.RESOLVED, outcome=Outcome(kind, choice, reason))


def sending(a: Approval) -> Approval:
    """``a`` with a decision in flight."""
    return replace(a, phase=ApprovalPhase.SENDING)


@dataclass
class FakeClock:
    """The core's monotonic clock, advanced by hand."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def hold(store: AppState, gateway_id: str, a: Approval, gateway_name: str = "") -> Approval:
    """What the app's store does with a core event before it announces the row: keep it."""
    store.add_gateway(gateway_id, gateway_name or gateway_id)  # a known one stays as it is
    store.apply(gateway_id, ApprovalChanged(a))
    return a


def update(row: RowEntry, a: Approval) -> None:
    """The core published a new value for ``row``: the store now holds it."""
    hold(row.store, row.batch.gateway_id, a)
