"""The fake's clocks: scaled real time and test-driven manual time."""

from __future__ import annotations

import asyncio

import pytest

from tests.gateway.fake.support import run
from tests.gatewaymodel import ManualClock, ScaledClock


def test_manual_clock_wakes_sleepers_in_deadline_order_only_when_advanced():
    async def body() -> None:
        clock = ManualClock()
        woke: list[str] = []
        changes: list[int] = []
        clock.subscribe(lambda: changes.append(clock.sleepers))

        async def sleeper(name: str, seconds: float) -> None:
            await clock.sleep(seconds)
            woke.append(name)

        tasks = [asyncio.ensure_future(sleeper(n, s)) for n, s in (("late", 5), ("early", 2))]
        await asyncio.sleep(0)
        assert clock.sleepers == 2
        assert changes[:2] == [1, 2]
        await clock.advance(1.9)
        assert woke == []
        await clock.advance(0.1)
        assert woke == ["early"]
        assert clock.now == pytest.approx(2.0)
        await clock.advance(10)
        assert woke == ["early", "late"]
        assert clock.now == pytest.approx(12.0)
        await asyncio.gather(*tasks)

    run(body)


def test_manual_clock_skips_cancelled_sleepers():
    async def body() -> None:
        clock = ManualClock()
        task = asyncio.ensure_future(clock.sleep(1))
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert clock.sleepers == 0
        await clock.advance(5)
        assert task.cancelled()

    run(body)


def test_scaled_clock_scales_and_refuses_negative_speed():
    async def body() -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await ScaledClock(0.001).sleep(50)  # 50 script seconds = 50 ms
        assert loop.time() - start < 1.0
        await ScaledClock(0).sleep(1000)  # speed 0 only yields

    run(body)
    with pytest.raises(ValueError, match="speed"):
        ScaledClock(-1)
