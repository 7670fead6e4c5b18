"""Scripts for the fake model and the files its commands act on, in the test's scratch dir.

Why victims: "the command ran" must be a fact on disk, not a frame. Each victim is a folder with
a file in it; the dangerous commands remove it (``rm -rf`` and ``find -delete`` are both flagged
by every Hermes build), so its presence afterwards says exactly which commands ran.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.peers.fake_model import FakeModel, Todo, Turn, commands_script, terminal

PRECIOUS = "keep me unless a person approved\n"
_numbers = itertools.count(1)
BOTH = ("0.19.0", "iot")


@dataclass(frozen=True)
class Script:
    """A registered script: its name (to count the model calls) and the prompt that selects it."""

    name: str
    prompt: str


def script(model: FakeModel, turns: Sequence[Turn], text: str = "please go ahead") -> Script:
    """Register ``turns`` under a fresh name (one model serves the whole run)."""
    name = f"e2e-{next(_numbers)}"
    model.add_script(name, turns)
    return Script(name, model.prompt(name, text))


def commands(
    model: FakeModel, cmds: Sequence[str], *, todos: Todo | None = None, final: str = "All done."
) -> Script:
    """One assistant message with ``cmds`` (a batch on the newer gateway), then the end."""
    return script(model, commands_script(cmds, todos=todos, final=final))


def one_by_one(model: FakeModel, cmds: Sequence[str], final: str = "All done.") -> Script:
    """Each command in its own assistant message (never a batch)."""
    turns = [Turn(text=f"Step {i + 1}.", calls=(terminal(c),)) for i, c in enumerate(cmds)]
    return script(model, [*turns, Turn(text=final)])


def chat(model: FakeModel, text: str = "Ready when you are.") -> Script:
    """A turn with no tool call at all (to open a session the menu can show)."""
    return script(model, [Turn(text=text)])


def victim(scratch: Path, name: str) -> Path:
    """A folder with one file, for a dangerous command to remove."""
    path = scratch / name
    path.mkdir()
    (path / "precious.txt").write_text(PRECIOUS)
    return path


def rm_task(
    model: FakeModel, scratch: Path, *, todos: Todo | None = None, final: str = "All done."
) -> tuple[Path, Script]:
    """The most common scenario: a victim, and a task whose one command removes it."""
    target = victim(scratch, "victim")
    return target, commands(model, [rm(target)], todos=todos, final=final)


def intact(path: Path) -> bool:
    """The victim is exactly as created: the command aimed at it never ran."""
    file = path / "precious.txt"
    return file.is_file() and file.read_text() == PRECIOUS


def rm(path: Path) -> str:
    return f"rm -rf {path}"


def find_delete(path: Path) -> str:
    return f"find {path} -delete"
