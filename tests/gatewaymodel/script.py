"""The scripted agent's vocabulary: a turn is a list of steps, run in order.

Steps describe what the model "decided"; the fake then behaves as the real gateway does for that
decision in the chosen dialect (approval frames, batches, re-gating, timeouts, todo and usage
events). Commands are only *simulated*: the fake records them in ``FakeGateway.executed`` and never
runs anything on the machine.

Example::

    Turn(
        [
            Say("Cleaning the scratch dirs."),
            Batch(
                (
                    Command("rm -rf build/", "recursive delete"),
                    Command("make test", exit_code=2),
                )
            ),
            Todo(({"id": "1", "content": "Clean", "status": "completed"},)),
            UsageTick(input=1200, output=80),
        ],
        reply="Done.",
    )
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Say:
    """Stream ``text`` as ``message.delta`` events, one word per ``word_delay`` seconds."""

    text: str
    word_delay: float = 0.03


@dataclass(frozen=True)
class Command:
    """One ``terminal`` tool call.

    ``pattern_key`` is the guard's verdict: ``None`` means a clean command that never asks;
    a key (``"recursive delete"``) means the command needs approval unless YOLO, approvals.mode
    ``off`` or a ``session``/``always`` answer for that key already covers it. ``exit_code != 0``
    makes an approved command *fail* (it still counts as executed), which re-gates the rest of a
    batch. ``duration`` is the simulated run time in script seconds.
    """

    command: str
    pattern_key: str | None = None
    description: str | None = None
    exit_code: int = 0
    output: str = ""
    duration: float = 0.2
    allow_permanent: bool = True
    allow_session: bool = True

    @property
    def pattern_keys(self) -> tuple[str, ...]:
        """The keys approval answers are remembered under (one per command here)."""
        return () if self.pattern_key is None else (self.pattern_key,)


@dataclass(frozen=True)
class Batch:
    """Adjacent terminal calls in one assistant message.

    On B and C, in a desktop session (``source`` ``desktop``/``gui``), every command that needs a
    human is asked at once before any runs; execution stays in call order, each command waiting for
    its own answer; after a failure, denial or timeout every later command is asked again with a
    new id (the seed's re-gate). Elsewhere (A, or a ``tui`` session) the commands run one by one,
    each asking right after its ``tool.start``.
    """

    commands: tuple[Command, ...]


@dataclass(frozen=True)
class Todo:
    """Replace the plan with ``todos`` (``{id, content, status}`` items); ``merge``: by id."""

    todos: tuple[Mapping[str, str], ...]
    merge: bool = False


@dataclass(frozen=True)
class UsageTick:
    """Add token counts to the session usage; B/C also send a ``session.usage`` event."""

    input: int = 0
    output: int = 0
    calls: int = 1
    context_used: int | None = None
    cost_usd: float | None = None


@dataclass(frozen=True)
class SetYolo:
    """Flip the session's YOLO flag as another surface would (``None`` toggles)."""

    on: bool | None = None


@dataclass(frozen=True)
class Pause:
    """Think for ``seconds`` of script time (an interrupt ends it early)."""

    seconds: float


@dataclass(frozen=True)
class Title:
    """Rename the session (``session.title``)."""

    title: str


@dataclass(frozen=True)
class Status:
    """A ``status.update {kind, text}`` event (kinds: status, lifecycle, compacting, goal)."""

    text: str
    kind: str = "status"


@dataclass(frozen=True)
class WindowRequest:
    """B only: a desktop-window server request (``terminal.read`` …) the tray should decline.

    The tool completes as soon as a client answers, or every viewer declined with 4404 ("not
    displayed"), or any other error ends it, or after ``timeout`` script seconds. A and C skip
    this step with a failed tool result.
    """

    method: str = "terminal.read"
    tool_name: str = "read_terminal"
    timeout: float = 30.0


@dataclass(frozen=True)
class Clarify:
    """The ``clarify`` tool asks the person one question (B only, as iot 0.22.2.post1 does).

    B sends a ``clarify`` server request ``{questions: [{qid, question, choices,
    multi_select}]}`` and takes ``{answers: {qid: answer}}``; the fake keeps what it got in
    ``FakeGateway.clarify_answers`` and the tool result carries it, as Hermes' does (the
    model's next request sees it). No answer within ``timeout`` script seconds ends it
    ``timed_out``. A and C skip this step with a failed tool result.
    """

    question: str
    choices: tuple[str, ...] = ()
    qid: str = "q0"
    timeout: float = 300.0


Step: TypeAlias = (
    Say
    | Command
    | Batch
    | Todo
    | UsageTick
    | SetYolo
    | Pause
    | Title
    | Status
    | WindowRequest
    | Clarify
)


@dataclass(frozen=True)
class Turn:
    """One scripted turn. ``reply`` is the final ``message.complete`` text (default: last Say)."""

    steps: tuple[Step, ...] | list[Step]
    reply: str | None = None


TurnSource: TypeAlias = Callable[[str], Turn]
"""Picks the turn for a ``prompt.submit`` text."""

_MARKER = re.compile(r"\[\[scenario:([A-Za-z0-9_.-]+)\]\]")


@dataclass
class ScenarioBook:
    """Chooses a turn by a ``[[scenario:name]]`` marker in the prompt text, like the peer harness.

    Unknown or missing markers get ``default``. The book is a plain mapping so tests can add or
    replace entries (``book.scenarios["mine"] = Turn(...)``).
    """

    scenarios: dict[str, Turn] = field(default_factory=dict)
    default: Turn = field(default_factory=lambda: Turn([Say("Nothing to do.")]))

    def __call__(self, text: str) -> Turn:
        """The turn for ``text``."""
        match = _MARKER.search(text or "")
        if match and match.group(1) in self.scenarios:
            return self.scenarios[match.group(1)]
        return self.default


def todo_summary(todos: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The todo tool's ``summary`` block: counts per status plus the total."""
    counts = {"total": len(todos), "pending": 0, "in_progress": 0, "completed": 0, "cancelled": 0}
    for item in todos:
        status = str(item.get("status", "pending"))
        if status in counts:
            counts[status] += 1
    return counts
