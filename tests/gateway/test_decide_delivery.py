"""``GatewayClient.decide`` returns before any listener sees what the decision changed.

The core's events from a decision (the row going SENDING, or RESOLVED when a written B answer
is final) reach the listener on the next loop turn, so a listener that reacts to them is never
running inside the caller's ``decide`` (the dialog and the decision log rely on this order).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import ApprovalChanged
from desktop.core.model import ApprovalPhase, Choice
from desktop.gateway.client import ConnectionState
from tests.gateway.fake_harness import running


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hgd", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("dialect", ["A", "B", "C"])
def test_listeners_run_after_decide_returned(
    dialect: str, home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running(dialect, home) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.client.create_session("/tmp/hermes-scratch", "[[scenario:single]] go")
            [approval, *_] = await h.wait_requested(1)
            seen = len(h.rec.of_type(ApprovalChanged))
            assert h.client.decide(approval.key, Choice.ONCE).sent
            assert len(h.rec.of_type(ApprovalChanged)) == seen  # nothing delivered inside
            await asyncio.sleep(0)  # the next loop turn
            sending = await h.wait_approval(
                approval.key, lambda a: a.phase is not ApprovalPhase.WAITING
            )
            assert sending.phase in (ApprovalPhase.SENDING, ApprovalPhase.RESOLVED)

    arun(scenario())
