"""Usage in every shape, plans in every shape (protocol.md §4, §6.8-6.9)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.model import TodoItem, TodoList, TodoStatus, Usage
from desktop.core.reports import (
    fold_usage,
    fold_usage_payload,
    parse_todos,
    supersedes,
    todos_of_tool,
)

NESTED_019 = {
    "model": "fake-model",
    "input": 3307,
    "output": 21,
    "reasoning": 0,
    "prompt": 3307,
    "completion": 21,
    "total": 3328,
    "calls": 2,
    "context_used": 1697,
    "context_max": 131072,
    "context_percent": 1,
    "compressions": 0,
}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        # session.usage RPC result / message.complete.usage / session.info.usage (0.19.0, B)
        (
            NESTED_019,
            Usage(3307, 21, 3328, 2, 0, 1697, 131072, 1.0, None, "fake-model"),
        ),
        # B session.usage event: {usage: {...}}
        ({"usage": {"input": 10, "output": 5, "total": 15, "calls": 1}}, Usage(10, 5, 15, 1)),
        # newest canonical: flat counters next to a nested view; api_calls is an int → flat wins
        (
            {
                "api_calls": 4,
                "input_tokens": 100,
                "output_tokens": 7,
                "total_tokens": 107,
                "estimated_cost_usd": 0.25,
                "usage": {"input": 1, "output": 1, "total": 2, "calls": 1, "context_percent": 9},
            },
            Usage(100, 7, 107, 4, 0, None, None, 9.0, 0.25),
        ),
        # nested wins when api_calls is not an int
        (
            {"api_calls": "4", "usage": {"input": 1, "output": 2, "total": 3, "calls": 1}},
            Usage(1, 2, 3, 1),
        ),
        # before the agent exists (0.19.0 RPC): only four counters
        ({"calls": 0, "input": 0, "output": 0, "total": 0}, Usage()),
        # missing total is the sum of what is known
        ({"input": 4, "output": 6}, Usage(4, 6, 10)),
        # nonsense is ignored, not trusted
        ({"input": -5, "output": True, "total": "9", "context_percent": float("nan")}, Usage()),
    ],
)
def test_usage_is_read_from_every_shape(payload: dict[str, Any], expected: Usage) -> None:
    assert fold_usage_payload(Usage(), payload) == expected


def test_usage_missing_keys_keep_what_was_known() -> None:
    known = fold_usage(Usage(), NESTED_019)
    later = fold_usage(known, {"calls": 3})
    assert later.calls == 3
    assert (later.input, later.total, later.context_max) == (known.input, known.total, 131072)


ITEMS = [
    {"id": "1", "content": "Remove t1", "status": "in_progress"},
    {"id": 2, "content": "Remove t2", "status": "pending"},
]


@pytest.mark.parametrize(
    ("todos", "revision", "expected"),
    [
        (
            ITEMS,
            1,
            TodoList(
                (
                    TodoItem("1", "Remove t1", TodoStatus.IN_PROGRESS),
                    TodoItem("2", "Remove t2", TodoStatus.PENDING),
                ),
                1,
            ),
        ),
        ([], 3, TodoList((), 3)),
        (
            [{"content": "x", "status": "blocked"}],
            None,
            TodoList((TodoItem("", "x", TodoStatus.PENDING),), None),
        ),
        ([{"id": "1"}, "junk", {"content": ""}], True, TodoList((), None)),
        ("not a list", 1, None),
    ],
)
def test_plans_are_parsed_leniently(
    todos: object, revision: object, expected: TodoList | None
) -> None:
    assert parse_todos(todos, revision) == expected


@pytest.mark.parametrize(
    ("payload", "expected_items"),
    [
        ({"name": "todo", "todos": ITEMS}, 2),  # 0.19.0: payload.todos
        ({"name": "todo", "result": {"todos": ITEMS[:1]}}, 1),  # only result.todos
        ({"name": "todo_list", "todos": ITEMS, "revision": 2}, 2),  # B's tool name
        ({"name": "terminal", "todos": ITEMS}, None),  # not the todo tool
        ({"name": "todo", "result": "text"}, None),
    ],
)
def test_todo_tool_results_carry_the_plan(
    payload: dict[str, Any], expected_items: int | None
) -> None:
    found = todos_of_tool(payload)
    assert (None if found is None else len(found.items)) == expected_items


@pytest.mark.parametrize(
    ("current", "incoming", "wins"),
    [(None, 1, True), (1, None, True), (2, 2, True), (3, 2, False), (2, 3, True)],
)
def test_the_highest_revision_wins(current: int | None, incoming: int | None, wins: bool) -> None:
    assert supersedes(TodoList((), current), TodoList((), incoming)) is wins
