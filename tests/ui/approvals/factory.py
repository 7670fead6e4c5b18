"""The approval dialog's test helpers that need the dialog: a decision recorder, a look."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from desktop.ui.approvals import DecisionRequest
from tests.model.approvals.factory import FakeClock

# Shown windows on the offscreen platform make Qt warn that it cannot propagate size hints or
# raise a window: limits of that platform, not of the dialog. Modules that show it say so.
OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints|raise)\(\)"
)


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
