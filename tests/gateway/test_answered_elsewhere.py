"""Rows another client answered by a response frame end "answered elsewhere" within 2 s (B).

Against the fake gateway (a real websockets server) with the real client: the tray follows a
session another surface runs; a second raw client (the Hermes window) joins its fan-out and
denies #2 and #3 of a batch of three by response frames, which cancel nothing at other
viewers. The tray's ``approval.pending`` polls end those rows, refuse an answer to them, and
the fake never runs their commands; #1 stays the person's to answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.core import outcomes
from desktop.core.model import Approval, ApprovalPhase, Choice
from desktop.gateway.client import ConnectionState
from tests.gateway.fake.support import BATCH_ABC, A, B, C, RawClient, ready
from tests.gateway.fake_harness import Harness, adopted, running

SCRATCH = "/tmp/hermes-scratch"


def open_rows(h: Harness, session_id: str) -> list[Approval]:
    return [
        a
        for a in h.client.core.approvals()
        if a.session_id == session_id and a.phase is not ApprovalPhase.RESOLVED
    ]


def test_b_rows_the_window_denied_by_frame_end_answered_elsewhere_within_two_seconds(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", tmp_path) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            other = h.fake.create_session(cwd=SCRATCH, title="From the Hermes window")
            await h.fake.wait_for(lambda: other.sid in adopted(h.client), what="followed")
            async with RawClient.connect(h.fake.url) as window:
                await ready(window)
                await window.result("client.capabilities", {"server_requests": True})
                await window.result("session.resume", {"session_id": other.stored_id})
                h.fake.submit(other.sid, turn=BATCH_ABC)
                asks = await window.requests(3)
                await h.rec.wait_for(lambda: len(open_rows(h, other.sid)) == 3)
                first, second, third = open_rows(h, other.sid)
                assert [r.command for r in (first, second, third)] == [
                    A.command,
                    B.command,
                    C.command,
                ]
                loop = asyncio.get_running_loop()
                for ask in asks[1:]:
                    await window.answer(ask["id"], {"choice": "deny"})
                denied_at = loop.time()
                await h.rec.wait_for(lambda: len(open_rows(h, other.sid)) == 1, timeout=2.0)
                seen_after = loop.time() - denied_at
                assert seen_after < 2.0
                for row in (second, third):
                    ended = h.latest(row.key)
                    assert ended.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
                    assert not ended.answerable
                    assert not h.client.decide(row.key, Choice.ONCE).sent
                assert h.latest(first.key).answerable
                assert h.client.decide(first.key, Choice.ONCE).sent
                await h.fake.wait_for(lambda: h.fake.executed, what="#1 ran")
                assert [e.command for e in h.fake.executed] == [A.command]

    arun(scenario())
