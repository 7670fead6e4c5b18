"""A session whose resume answer passes the tray's frame limit, against the fake on loopback.

0.19.0 (A) ignores ``omit_messages`` and sends the whole history: the tray closes the connection
(1009), finds the session, lets it go with a notice, and serves the other session; it does not
reconnect forever. B honours ``omit_messages``: the same history closes nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import NoticeReceived
from desktop.core.model import ApprovalPhase, Choice
from desktop.core.settings import CoreSettings
from desktop.gateway.client import ConnectionState
from tests.gateway.fake_harness import Harness, running

SCRATCH = "/tmp/hermes-scratch"
LIMIT = 64 * 1024
HISTORY = [{"role": "user", "text": "x" * 1000} for _ in range(2 * LIMIT // 1000)]


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hbr", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def two_sessions_one_too_big(h: Harness) -> tuple[str, str]:
    await h.rec.wait_state(ConnectionState.CONNECTED)
    big = await h.client.create_session(SCRATCH, "")
    small = await h.client.create_session(SCRATCH, "")
    session = h.fake.world.find_session(big)
    assert session is not None
    session.messages.extend(HISTORY)  # its snapshot is now about twice the limit
    return big, small


async def approval_flows(h: Harness, session_id: str) -> None:
    """The session's next command is shown, answered once, and runs."""
    await h.rec.wait_for(lambda: h.client.status.state is ConnectionState.CONNECTED)
    before = len(h.requested())
    await h.client.call("prompt.submit", {"session_id": session_id, "text": "[[scenario:single]]"})
    [*_, row] = await h.wait_requested(before + 1)
    assert row.session_id == session_id
    await h.wait_approval(row.key, lambda a: a.phase is ApprovalPhase.WAITING and a.answerable)
    assert h.client.decide(row.key, Choice.ONCE).sent
    executed = await h.fake.wait_for(lambda: h.fake.executed)
    assert [e.approved_by for e in executed] == ["human"]


def test_a_too_big_history_is_let_go_with_a_notice_and_the_other_session_is_served(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        limits = CoreSettings(max_frame_bytes=LIMIT)
        async with running("A", home, core_settings=limits) as h:
            big, small = await two_sessions_one_too_big(h)
            h.fake.drop()
            await h.rec.wait_for(lambda: h.rec.of_type(NoticeReceived), timeout=10)
            [notice] = h.rec.of_type(NoticeReceived)
            assert isinstance(notice, NoticeReceived)
            assert notice.session_id == big
            assert "larger than this tray accepts (0.0625 MiB)" in notice.text
            await approval_flows(h, small)
            connections = len(h.fake.connections)
            assert 3 <= connections <= 5, "one drop, then at most one close per suspect"
            last = h.fake.connections[-1].requests("session.resume")
            assert [r["params"]["session_id"] for r in last] == [
                h.fake.world.sessions[small].stored_id
            ]
            closes = [c.close_code for c in h.fake.connections[1:-1]]
            assert set(closes) == {1009}, "each reconnect after the drop was a too-big close"
            assert h.client.status.state is ConnectionState.CONNECTED
            assert len(h.fake.connections) == connections, "no reconnect after the answer"

    arun(scenario(), timeout=30)


def test_b_omits_the_history_so_a_long_one_closes_nothing(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        limits = CoreSettings(max_frame_bytes=LIMIT)
        async with running("B", home, core_settings=limits) as h:
            big, _small = await two_sessions_one_too_big(h)
            h.fake.drop()
            await h.rec.wait_state(ConnectionState.CONNECTED, count=2)
            await approval_flows(h, big)
            assert len(h.fake.connections) == 2
            assert h.rec.of_type(NoticeReceived) == []

    arun(scenario(), timeout=30)
