"""Fixtures for the gateway tier: a fresh plain asyncio loop per test (no pytest-asyncio).

``arun(coro, timeout=...)`` runs a coroutine to completion on that loop with a hard timeout,
so a hung connection fails the test instead of the suite. At teardown every task still alive
is cancelled and awaited, so nothing leaks into the next test (filterwarnings=error would
turn a leaked "coroutine was never awaited" into a failure).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
Runner = Callable[..., Any]


@pytest.fixture
def aloop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def arun(aloop: asyncio.AbstractEventLoop) -> Callable[..., Any]:
    def run(coro: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
        return aloop.run_until_complete(asyncio.wait_for(coro, timeout))

    return run


# The real-Hermes fixtures (used only by tests marked ``realhermes``).
from tests.peers.fixtures import (  # noqa: E402, F401  (pytest finds fixtures by name)
    fake_model,
    hermes_019,
    hermes_iot,
    scratch_dir,
    start_hermes,
)
