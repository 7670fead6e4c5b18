"""Event-loop hygiene shared by the ``aloop`` (conftest) and ``qloop`` (qt_fixtures) fixtures.

Why a test must fail on a dirty loop: a task that outlives its test keeps running in the next
one (or is silently cancelled), and an exception that only reached the loop's handler ("Task
exception was never retrieved") is a real bug that would otherwise scroll past in the log.
Qt-free, so the plain asyncio fixtures can use it in every environment.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest


class LoopHygiene:
    """Collects what a test left behind on its event loop, to fail the test at teardown.

    Installed as the loop's exception handler, so "Task exception was never retrieved" and
    errors in callbacks fail the test instead of scrolling past in the log.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.errors: list[str] = []
        loop.set_exception_handler(self._on_exception)

    def _on_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exception = context.get("exception")
        detail = f": {exception!r}" if exception is not None else ""
        self.errors.append(f"{context.get('message', 'unhandled error')}{detail}")

    def finish(self) -> list[str]:
        """Cancel leftover tasks, close the loop; return one problem line per leftover."""
        loop = self.loop
        problems: list[str] = []
        if not loop.is_closed():
            pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
            for task in pending:
                problems.append(f"task left pending: {task.get_name()} {task.get_coro()!r}")
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        gc.collect()  # "never retrieved" is reported when a failed task is collected
        problems.extend(f"loop error: {error}" for error in self.errors)
        return problems


def close_loop_or_fail(hygiene: LoopHygiene) -> None:
    """Close the loop behind ``hygiene``, then fail the test if anything was left over."""
    problems = hygiene.finish()
    asyncio.set_event_loop(None)
    if problems:
        pytest.fail("the test left its event loop dirty:\n  " + "\n  ".join(problems))
