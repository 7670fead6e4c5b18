"""The app's loop: a cancelled asyncio timer must not wake the process later.

qasync leaves the Qt timer of a cancelled handle running; every ``wait_for`` that ended early
then woke an idle tray once more. ``pending_timers`` counts the loop's Qt timers that will
still fire, so each test can say exactly which ones are left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.gateway.client import ConnectionSettings, ConnectionState
from desktop.ui.event_loop import QuietEventLoop
from tests.gateway.fake_harness import running
from tests.waiting import poll_until


def pending_timers(loop: QuietEventLoop) -> int:
    return len(loop._quiet_timers._handles)


def test_a_cancelled_call_later_leaves_no_timer(qloop: QuietEventLoop) -> None:
    before = pending_timers(qloop)
    handle = qloop.call_later(60.0, lambda: None)
    assert pending_timers(qloop) == before + 1
    handle.cancel()
    assert pending_timers(qloop) == before


def test_a_wait_that_ends_early_leaves_no_timer(
    qloop: QuietEventLoop, arun: Callable[..., Any]
) -> None:
    async def scenario() -> tuple[int, int]:
        before = pending_timers(qloop)
        done = asyncio.get_running_loop().create_future()
        qloop.call_soon(done.set_result, "early")
        async with asyncio.timeout(60.0):
            assert await asyncio.wait_for(done, 60.0) == "early"
            during = pending_timers(qloop)  # this block's own timeout only
        return before, during

    before, during = arun(scenario())
    assert during == before + 1


def test_timers_run_once_in_order_and_are_gone(
    qloop: QuietEventLoop, arun: Callable[..., Any]
) -> None:
    ran: list[str] = []

    async def scenario() -> int:
        before = pending_timers(qloop)
        finished = asyncio.get_running_loop().create_future()
        qloop.call_later(0.02, ran.append, "second")
        qloop.call_soon(ran.append, "first")
        qloop.call_later(0.04, finished.set_result, None)
        await finished
        return pending_timers(qloop) - before

    assert arun(scenario()) == 0
    assert ran == ["first", "second"]


def test_closing_the_loop_stops_its_timers(qapp: Any) -> None:
    loop = QuietEventLoop(qapp)
    loop.call_later(60.0, lambda: None)
    loop.close()
    assert pending_timers(loop) == 0


def test_an_idle_connection_arms_only_the_keepalive(
    qloop: QuietEventLoop, arun: Callable[..., Any], tmp_path: Path
) -> None:
    """Connected, nothing waiting: one timer is armed (the next ping). None is left from the
    handshake's or the calls' answered timeouts, nothing polls, and pings keep it so."""
    fast_pings = ConnectionSettings(
        open_timeout=2.0,
        handshake_timeout=1.0,
        ping_interval=0.05,
        ping_timeout=30.0,
        close_timeout=0.2,
    )

    def armed() -> str:
        return "\n".join(map(repr, qloop._quiet_timers._handles.values()))

    async def scenario() -> tuple[int, int]:
        baseline = pending_timers(qloop)  # arun's own timeout
        async with running("B", tmp_path, settings=fast_pings) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            # poll_until's own sleeps have fired whenever it looks.
            await poll_until(lambda: pending_timers(qloop) == baseline + 1, 2.0, explain=armed)
            settled = pending_timers(qloop) - baseline
            await asyncio.sleep(0.3)  # several pings at the 0.05 s pace
            # Between pings one timer again (while a pong is awaited, its timeout is a second).
            await poll_until(lambda: pending_timers(qloop) == baseline + 1, 2.0, explain=armed)
            return settled, pending_timers(qloop) - baseline

    assert arun(scenario()) == (1, 1)
