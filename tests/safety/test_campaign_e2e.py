"""Decision safety end to end: the real GatewayClient against the fake gateway, over sockets.

A smaller seeded campaign than the core one, but with everything real between the click and
the gateway: the client's pump and reconnect loop, websockets, the fake's scripted agent with
batches, re-gates after failures, timeouts, drops, restarts with new epochs, another viewer
answering first, and the person's interrupts. See ``tests/safety/e2e/scenario.py`` for what is
checked against the fake's own records and simulated executions.

0.19.0 (A) runs without the "another viewer answers" interference: two people answering the
same 0.19.0 session within one round trip is a race no client can win (no ids on the wire); the
core-level campaign models it with that assumption stated (``ServerConfig.think_time``).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.safety.e2e.rig import rig
from tests.safety.e2e.scenario import Result, person, plan, turn_of
from tests.safety.e2e.taps import HeadSpy
from tests.safety.e2e.verdicts import check
from tests.safety.tally import TALLY, scaled

SCENARIOS = 20  # per dialect
SPEED = 0.002  # one script second is 2 ms
SCRATCH = "/tmp/hermes-scratch"


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hts", dir="/tmp"))  # short: a Unix socket lives here
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def one(dialect: str, seed: int, home: Path, heads: HeadSpy | None) -> Result:
    p = plan(dialect, seed)
    result = Result()
    timeout = 400.0 if seed % 3 == 0 else None  # 0.8 s real: some approvals time out
    if heads is not None:
        heads.seen.clear()
    async with rig(dialect, home, speed=SPEED, approval_timeout=timeout, margin=0.3) as r:
        await r.wake.connected()
        r.fake.queue_turn(turn_of(p))
        sid = await r.client.create_session(SCRATCH, "go")
        finished = await person(r, p, sid, result, budget=4.0, steps=400)
        check(r, p, heads, result, finished=finished)
    return result


@pytest.mark.parametrize("dialect", ["A", "B", "C"])
def test_end_to_end_decisions_reach_exactly_the_clicked_request(
    dialect: str,
    home: Path,
    aloop: asyncio.AbstractEventLoop,
    arun: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heads = HeadSpy(monkeypatch) if dialect == "A" else None
    count = scaled(SCENARIOS)
    base = {"A": 10_000, "B": 20_000, "C": 30_000}[dialect]
    stats: Counter[str] = Counter()
    failures: list[str] = []
    started = time.perf_counter()
    for seed in range(base, base + count):
        result = arun(one(dialect, seed, home, heads), timeout=15.0)
        stats.update(result.stats)
        failures += [f"seed {seed}: {v}" for v in result.violations]
    TALLY.add(
        f"e2e/{dialect}",
        runs=count,
        steps=stats["clicks_sent"] + stats["clicks_refused"],
        violations=len(failures),
        seconds=time.perf_counter() - started,
    )
    assert not failures, "\n".join(failures[:20])
    assert stats["clicks_sent"] >= count, f"too few decisions were exercised: {dict(stats)}"
    assert stats["decisions_arrived"] >= count // 2, dict(stats)
    assert stats["drops"] + stats["restarts"] >= count // 4, dict(stats)
    assert stats["ran_human"] >= count // 2, dict(stats)
    assert stats["approved_and_ran"] >= count // 4, dict(stats)
