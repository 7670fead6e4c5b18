"""Fixtures for the gateway tier: a fresh plain asyncio loop per test (no pytest-asyncio).

``arun(coro, timeout=...)`` runs a coroutine to completion on the root conftest's ``aloop``
(a plain loop that fails the test on a leaked task or an error reaching the loop's handler)
with a hard timeout, so a hung connection fails the test instead of the suite. The gateway
layer never needs Qt, so unlike the root ``arun`` this one never picks the qasync loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
Runner = Callable[..., Any]


@pytest.fixture
def arun(aloop: asyncio.AbstractEventLoop) -> Callable[..., Any]:
    """Always the plain loop (the root ``arun`` would pick qasync for tests without aloop)."""

    def run(coro: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
        return aloop.run_until_complete(asyncio.wait_for(coro, timeout))

    return run


# The real-Hermes fixtures (used only by tests marked ``realhermes``).
from tests.peers.fixtures import (  # noqa: E402, F401  (pytest finds fixtures by name)
    fake_model,
    hermes_019,
    hermes_axisrow,
    hermes_iot,
    scratch_dir,
    start_hermes,
)
