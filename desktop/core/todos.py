"""Read a session's plan (todo list) from the shapes the gateways send.

The plan arrives as ``todo.updated {todos, revision}`` (newer gateways), in
``tool.complete`` of the ``todo``/``todo_list`` tool (0.19.0 has no other source), and as the
resume snapshot's ``todo_state`` (protocol.md §4, §6.8). Items are ``{id, content, status}``.
Newer gateways number every plan; the highest revision wins so a late, older frame cannot undo
a newer plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.core import payloads
from desktop.core.model import TodoItem, TodoList, TodoStatus

TODO_TOOLS = frozenset({"todo", "todo_list"})
_STATUSES = {status.value: status for status in TodoStatus}


def parse_todos(todos: object, revision: object) -> TodoList | None:
    """A :class:`TodoList` from a raw list and revision, or None when ``todos`` is no list.

    Items without text are skipped; an unknown status reads as pending rather than dropping
    the item, so a newer gateway's extra states never hide a task.
    """
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
    """The plan carried by an event payload (``todos`` + ``revision``), or None."""
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
    """Whether ``incoming`` may replace ``current`` (keep the highest revision)."""
    if incoming.revision is None or current.revision is None:
        return True
    return incoming.revision >= current.revision
