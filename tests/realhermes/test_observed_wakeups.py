"""Idle wake-ups of the real app observing 20 sessions another client opened on real axisrow 0.20.

The bench's (e) probe (``bench.figures.wakeups``: the real entry point in a child process, the
Qt dispatcher's ``awake`` signals counted over a window, the bare tray measured alongside as
the reference), pointed at a real ``hermesx`` gateway on which a plain WebSocket client (the
Hermes window) holds 20 sessions open. The app observes them (it lists them and asks each
one's pending list once) and must then stay at most 1 wake-up a second while nothing happens.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.config import BenchConfig
from bench.figures import wakeups
from bench.report import Row
from tests.peers.fake_model import FakeModel
from tests.peers.fixtures import StartHermes
from tests.peers.wsclient import RawGateway, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(420)]
SESSIONS = 20
WINDOW = BenchConfig(idle_settle=8.0, idle_seconds=12.0)  # a 1/s bound: 12 s tells 0.9 from 1.1
MAX_PER_S = 1.0  # this test's bound; the bench's idle target (0.1/s) is a figure it reports


async def settled(window: RawGateway, limit: float = 120.0) -> None:
    """Until no session is ``starting``: each one's warm-up ends with a ``sessions.changed``.

    A new session stays ``starting`` until its agent is built (measured here: 28 to 34 s after
    20 ``session.create`` calls on 2 loaded cores), and each move to ``idle`` is broadcast, so
    the tray rightly lists the sessions again. Measuring before then counts the gateway's own
    warm-up, not the tray at rest.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while True:
        live = await window.call("session.active_list", {})
        if not any(row.get("status") == "starting" for row in live["sessions"]):
            return
        if loop.time() > deadline:
            raise TimeoutError(f"sessions still starting after {limit:g} s")
        await asyncio.sleep(1.0)  # nothing announces the end of warm-up to the window


@pytest.mark.parametrize("sessions", [0, SESSIONS])
def test_observed_idle_sessions_keep_the_app_under_one_wake_up_a_second(
    sessions: int,
    start_hermes: StartHermes,
    fake_model: FakeModel,
    scratch_dir: Path,
    tmp_path: Path,
) -> None:
    """With 0 sessions the same probe gives this gateway's own reference."""
    server = start_hermes("axisrow")
    bench_dir = tmp_path / "bench"
    bench_dir.mkdir()

    async def scenario() -> list[Row]:
        async with RawGateway.connect(server.url) as window:
            await window.handshake("A")
            for _ in range(sessions):
                cwd = str(scratch_dir)
                params = {"source": "desktop", "cwd": cwd, "close_on_disconnect": False}
                await window.call("session.create", params)
            live = await window.call("session.active_list", {})
            assert len(live["sessions"]) == sessions
            await settled(window)
            # In a thread: the window's connection keeps being read while the probe runs.
            return await asyncio.to_thread(wakeups.measure, WINDOW, bench_dir, server.url)

    rows = run_async(scenario(), 360)
    logs = "".join(p.read_text(errors="replace") for p in (bench_dir / "log").rglob("*.log"))
    assert (f"observing {sessions} session(s) other clients run" in logs) == (sessions > 0)
    idle = rows[0]
    bursts = idle.details["app_bursts"]
    print(f"\n{idle.figure}: app {idle.value:.2f}/s, bare tray {idle.reference:.2f}/s, {bursts}")
    print(idle.details["app"]["events"], idle.details["app"]["asyncio_callbacks"])
    assert idle.details["app"]["events"].get("SockAct -> QSocketNotifier", 0) <= 2, "asked idle"
    assert idle.value <= MAX_PER_S
