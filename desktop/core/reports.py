"""Usage and plans, from every shape the gateways send (protocol.md §4, §6.8-6.9).

Usage is cumulative, so a missing key keeps the value known; of plans the highest revision
wins, so a late older frame cannot undo a newer plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from desktop.core import payloads
from desktop.core.model import TodoItem, TodoList, TodoStatus, Usage

_COUNTERS: dict[str, tuple[str, ...]] = {
    "input": ("input", "input_tokens", "prompt", "prompt_tokens"),
    "output": ("output", "output_tokens", "completion", "completion_tokens"),
    "total": ("total", "total_tokens"),
    "calls": ("calls", "api_calls"),
    "reasoning": ("reasoning", "reasoning_tokens"),
    "context_used": ("context_used",),
    "context_max": ("context_max",),
}
_AMOUNTS: dict[str, tuple[str, ...]] = {
    "context_percent": ("context_percent",),
    "cost_usd": ("cost_usd", "estimated_cost_usd"),
}
_READERS: tuple[tuple[dict[str, tuple[str, ...]], Callable[[Any, str], float | None]], ...] = (
    (_COUNTERS, payloads.integer),
    (_AMOUNTS, payloads.number),
)


def fold_usage(current: Usage, data: Mapping[str, Any]) -> Usage:
    found: dict[str, Any] = {}
    for names, read in _READERS:
        for field, aliases in names.items():
            for key in aliases:  # the first alias that holds a number counts
                value = read(data, key)
                if value is not None:
                    if value >= 0:
                        found[field] = value
                    break
    if "total" not in found and ("input" in found or "output" in found):
        found["total"] = found.get("input", current.input) + found.get("output", current.output)
    model = data.get("model")
    if isinstance(model, str) and model:
        found["model"] = model
    moved = {name: value for name, value in found.items() if getattr(current, name) != value}
    return replace(current, **moved) if moved else current


def fold_usage_payload(current: Usage, payload: Mapping[str, Any]) -> Usage:
    """Fold a ``session.usage`` event payload or RPC result, nested or flat."""
    nested = payloads.mapping(payload, "usage")
    if nested is None:
        return fold_usage(current, payload)
    folded = fold_usage(current, nested)
    if payloads.integer(payload, "api_calls") is not None:
        folded = fold_usage(folded, payload)  # the flat counters win
    return folded


TODO_TOOLS = frozenset({"todo", "todo_list"})
_STATUSES = {status.value: status for status in TodoStatus}


def parse_todos(todos: object, revision: object) -> TodoList | None:
    """A :class:`TodoList`, or None when ``todos`` is no list; unknown states read as pending."""
    if not isinstance(todos, list):
        return None
    items: list[TodoItem] = []
    for raw in todos:
        if not isinstance(raw, payloads.OBJECT):
            continue
        content = payloads.text(raw, "content")
        if not content:
            continue
        ident = payloads.wire_id(raw.get("id"))
        status = _STATUSES.get(payloads.text(raw, "status"), TodoStatus.PENDING)
        items.append(TodoItem("" if ident is None else str(ident), content, status))
    number = payloads.wire_id(revision)
    return TodoList(tuple(items), number if isinstance(number, int) else None)


def todos_in(payload: Mapping[str, Any]) -> TodoList | None:
    return parse_todos(payload.get("todos"), payload.get("revision"))


def todos_of_tool(payload: Mapping[str, Any]) -> TodoList | None:
    """The plan in a ``tool.complete`` payload of the todo tool, or None for other tools."""
    if payloads.text(payload, "name") not in TODO_TOOLS:
        return None
    found = todos_in(payload)
    if found is not None:
        return found
    result = payloads.mapping(payload, "result")
    return todos_in(result) if result is not None else None


def supersedes(current: TodoList, incoming: TodoList) -> bool:
    if incoming.revision is None or current.revision is None:
        return True
    return incoming.revision >= current.revision
