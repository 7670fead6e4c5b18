"""Waiting inside the test's one coroutine: bounded, and loud about what did not happen.

Why not ``qtbot.waitUntil``: it spins a nested Qt event loop, and the gateway sockets live on
the qasync loop that is already running the test's coroutine; re-entering it from inside a task
is exactly what stack.md §5 warns against. So waits yield to the running loop instead, and a
timeout fails with a description of the state that was expected.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
POLL_S = 0.02


async def until(
    predicate: Callable[[], T],
    timeout: float,
    what: str,
    explain: Callable[[], str] | None = None,
) -> T:
    """Yield to the loop until ``predicate()`` is truthy; return it. Fails after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (result := predicate()):
        if loop.time() > deadline:
            detail = f"\n{explain()}" if explain is not None else ""
            raise AssertionError(f"timed out after {timeout:g}s waiting for: {what}{detail}")
        await asyncio.sleep(POLL_S)
    return result


async def drain(timeout: float = 5.0) -> None:
    """Run the loop until every other task has ended (the test's wrapper excepted).

    After the coroutine returns, pytest-qt processes Qt events outside the asyncio loop; a task
    still scheduled then would step with no running loop.
    """
    me = asyncio.current_task()

    def others_done() -> bool:
        return all(t is me or t.done() or _is_wait_for(t) for t in asyncio.all_tasks())

    await until(others_done, timeout, "every background task to end", _pending_tasks)
    await asyncio.sleep(POLL_S)  # callbacks the last tasks scheduled run too


def _is_wait_for(task: asyncio.Task[Any]) -> bool:
    return getattr(task.get_coro(), "__name__", "") == "wait_for"


def _pending_tasks() -> str:
    return "\n".join(repr(t) for t in asyncio.all_tasks() if not t.done())
