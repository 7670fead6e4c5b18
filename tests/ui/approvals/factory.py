"""Builders for the approval dialog tests: core values, a hand-driven clock, a decision recorder.

Why our own builder instead of tests/ui/builders.py's ``approval``: the dialog tests need every
field of :class:`Approval` (expiry, outcome, blocked reason, pattern keys, re-asks).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome, OutcomeKind
from desktop.ui.approvals import DecisionRequest

# Shown windows on the offscreen platform make Qt warn that it cannot propagate size hints or
# raise a window: limits of that platform, not of the dialog. Modules that show it say so.
OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints|raise)\(\)"
)
ALL_CHOICES = (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)
HOSTILE = "<b>x</b> <img src=x> <a href='https://evil.example'>go</a> \u202eexe.txt \u200bzw"


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


@dataclass
class Recorder:
    """Collects every DecisionRequest the dialog emits."""

    requests: list[DecisionRequest] = field(default_factory=list)

    def __call__(self, request: DecisionRequest) -> None:
        self.requests.append(request)

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.requests]


def look(dialog: Any, clock: FakeClock, seconds: float = 1.0) -> None:
    """The person looks at what is on screen: lay the list out now, then let ``seconds`` pass.

    Batch approvals and keys answer only rows on screen long enough to be read (``seen``).
    """
    dialog.list_view.settle()
    clock.advance(seconds)
