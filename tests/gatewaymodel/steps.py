"""Bookkeeping steps of a scripted turn: the todo plan and token usage.

Kept apart from the turn runner because they never wait: each applies a change to the session
and publishes it in the dialect's shape (measured in the B transcript ``todo_usage.jsonl`` and the
0.19.0 transcript ``three.jsonl``).
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel.dialect import TODO_TOOL, Dialect
from tests.gatewaymodel.model import Session
from tests.gatewaymodel.script import Todo, UsageTick, todo_summary
from tests.gatewaymodel.world import World


def apply_todo(world: World, session: Session, step: Todo, tool_id: str) -> None:
    """Replace or merge the plan, then report it as the dialect does.

    A: only a ``todo`` tool call whose ``tool.complete`` carries the full list. B/C: the tool
    call carries ``revision`` too, and a ``todo.updated {todos, revision}`` event follows.
    """
    dialect = world.dialect
    items = [dict(item) for item in step.todos]
    if step.merge:
        by_id = {item["id"]: item for item in items}
        session.todos = [by_id.pop(t["id"], t) for t in session.todos] + list(by_id.values())
    else:
        session.todos = items
    session.todo_revision += 1
    todos = [dict(t) for t in session.todos]
    name = TODO_TOOL[dialect]
    args: dict[str, Any] = {"todos": items, **({"merge": True} if step.merge else {})}
    start: dict[str, Any] = {
        "tool_id": tool_id,
        "name": name,
        "context": f"Updating tasks planning {len(items)} task(s)",
    }
    if dialect is not Dialect.A:
        start.update(context="display.preview.todo_tasks", args=args)
    world.pub.emit(session, "tool.start", start)
    result: dict[str, Any] = {"todos": todos, "summary": todo_summary(todos)}
    complete: dict[str, Any] = {
        "tool_id": tool_id,
        "name": name,
        "args": args,
        "duration_s": 0.001,
        "result": result,
        "todos": todos,
    }
    if dialect is not Dialect.A:
        result["revision"] = complete["revision"] = session.todo_revision
    world.pub.emit(session, "tool.complete", complete)
    if dialect is not Dialect.A:
        world.pub.emit(
            session,
            "todo.updated",
            {"todos": [dict(t) for t in todos], "revision": session.todo_revision},
        )


def apply_usage(world: World, session: Session, step: UsageTick) -> None:
    """Add a usage tick; B sends ``session.usage {usage}``, C adds flat counters beside it.

    A has no usage event: usage shows in ``message.complete``, ``session.info`` and the RPC.
    """
    usage = session.usage
    usage["input"] += step.input
    usage["output"] += step.output
    usage["prompt"], usage["completion"] = usage["input"], usage["output"]
    usage["total"] = usage["input"] + usage["output"]
    usage["calls"] += step.calls
    used = (
        step.context_used
        if step.context_used is not None
        else (usage["context_used"] + step.input // 2)
    )
    usage["context_used"] = min(used, usage["context_max"])
    usage["context_percent"] = round(100 * usage["context_used"] / usage["context_max"])
    if step.cost_usd is not None:
        usage["cost_usd"] = round(usage.get("cost_usd", 0.0) + step.cost_usd, 6)
    if world.dialect is Dialect.B:
        world.pub.emit(session, "session.usage", {"usage": dict(usage)})
    elif world.dialect is Dialect.C:
        # Flat counters next to the nested view (the newest canonical shape); only the
        # name ``api_calls`` is known, the other flat names mirror the nested keys.
        flat = {k: usage[k] for k in ("input", "output", "total", "context_percent")}
        world.pub.emit(
            session,
            "session.usage",
            {"api_calls": usage["calls"], **flat, "usage": dict(usage)},
        )
