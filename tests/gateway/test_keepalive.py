"""A hung gateway is noticed fast while rows are open, and a burst never starves the socket.

The fake gateway's ``stall()`` stops reading, answering and ponging on the connection (what a
SIGSTOPped Hermes looks like from the tray). Paces are shrunk so the tests take a second; the
idle pace is left long, so a test that passed on it would time out.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import ApprovalRequested
from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.gateway.client import ConnectionSettings, ConnectionState
from desktop.gateway.pump import KeepalivePace
from tests.gateway.fake_harness import Harness, running
from tests.gatewaymodel.script import Command

SCRATCH = "/tmp/hermes-scratch"
IDLE = 30.0  # far beyond every wait below: passing on the idle pace is impossible
SETTINGS = ConnectionSettings(
    open_timeout=2.0,
    handshake_timeout=1.0,
    ping_interval=IDLE,
    ping_timeout=IDLE,
    busy_ping_interval=0.2,
    busy_ping_timeout=0.4,
    close_timeout=0.2,
)


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hgk", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def one_row(h: Harness) -> str:
    await h.rec.wait_state(ConnectionState.CONNECTED)
    await h.client.create_session(SCRATCH, "[[scenario:single]] go")
    [approval, *_] = await h.wait_requested(1)
    return approval.key


def test_default_paces_notice_a_hang_within_ten_seconds() -> None:
    settings = ConnectionSettings()
    busy = KeepalivePace(settings.busy_ping_interval, settings.busy_ping_timeout)
    assert busy.interval + busy.timeout <= 10.0
    assert settings.ping_interval == 30.0  # idle: one wake-up per ping, under a proxy's 60 s


@pytest.mark.parametrize("dialect", ["A", "C"])
def test_hung_gateway_with_a_row_open_is_dropped_at_the_busy_pace(
    dialect: str, home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> float:
        async with running(dialect, home, settings=SETTINGS) as h:
            await one_row(h)
            h.fake.stall()
            started = time.monotonic()
            backoff = await h.rec.wait_state(ConnectionState.BACKOFF, timeout=10.0)
            took = time.monotonic() - started
            assert "stopped answering" in backoff.error
            return took

    took = arun(scenario())
    # About busy interval + timeout (0.6 s); the idle pace would take 30 s or more.
    assert took < 10.0


@pytest.mark.parametrize("dialect", ["A", "C"])
def test_decision_written_into_a_hung_socket_is_fate_unknown(
    dialect: str, home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running(dialect, home, settings=SETTINGS) as h:
            key = await one_row(h)
            h.fake.stall()
            assert h.client.decide(key, Choice.ONCE).sent
            final = await h.wait_approval(
                key, lambda a: a.phase is ApprovalPhase.RESOLVED, timeout=10.0
            )
            assert final.outcome is not None
            assert final.outcome.kind is OutcomeKind.UNKNOWN
            assert h.fake.executed == []

    arun(scenario())


def test_pace_follows_the_open_rows(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> tuple[KeepalivePace, KeepalivePace]:
        async with running("A", home, settings=SETTINGS) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            idle = h.client._keepalive_pace()
            await one_row(h)
            return idle, h.client._keepalive_pace()

    idle, busy = arun(scenario())
    assert idle == KeepalivePace(IDLE, IDLE)
    assert busy == KeepalivePace(0.2, 0.4)


BURST = 150
UI_COST_S = 0.03  # what the tray's UI spent per new row at 10,000 rows (issue 17)
# Big frames: the pong is read only after megabytes of them. Kept so that all of them fit the
# tray's 8 MiB frame limit together: the gateway answers a pending list with every command.
PAD = "x" * 40_000


class SlowListener:
    """Forwards to the recorder after spending ``UI_COST_S`` of CPU per new row, as a busy UI."""

    def __init__(self, rec: Any) -> None:
        self.rec = rec

    def on_core_event(self, gateway_id: str, event: Any) -> None:
        if isinstance(event, ApprovalRequested):
            until = time.perf_counter() + UI_COST_S
            while time.perf_counter() < until:
                pass
        self.rec.on_core_event(gateway_id, event)

    def on_status_changed(self, gateway_id: str, old: Any, new: Any) -> None:
        self.rec.on_status_changed(gateway_id, old, new)


class LoopGaps:
    """The longest time the event loop went without giving this task a turn."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def run(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0)
            now = time.monotonic()
            self.longest = max(self.longest, now - last)
            last = now


def test_a_burst_of_approvals_does_not_starve_the_keepalive(
    home: Path, arun: Callable[..., Any]
) -> None:
    """A burst sent at once to a slow listener: every row arrives, the connection survives.

    The gateway's pong sits behind the burst in the stream; before the pump read the socket
    apart from processing it, websockets stopped reading after 16 unconsumed messages, so the
    pong waited for 16 slow rows and the tray's own keepalive closed the connection (1011).
    """
    settings = ConnectionSettings(
        open_timeout=2.0,
        handshake_timeout=1.0,
        ping_interval=0.2,
        ping_timeout=0.2,
        busy_ping_interval=0.2,
        busy_ping_timeout=0.2,
        close_timeout=0.2,
    )

    async def scenario() -> None:
        async with running("B", home, settings=settings) as h:
            await one_row(h)
            h.client.listener = SlowListener(h.rec)
            [req] = h.fake.requests
            for i in range(BURST):  # queued now, written once this test yields
                h.fake.raise_approval(req.session.sid, Command(f"echo {i} " + PAD, "burst"))
            gaps = LoopGaps()
            ticker = asyncio.create_task(gaps.run())
            await h.rec.wait_for(
                lambda: (
                    len(h.rec.of_type(ApprovalRequested)) >= BURST + 1
                    or h.rec.count(ConnectionState.BACKOFF) > 0
                ),
                timeout=30.0,
            )
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
            assert len(h.rec.of_type(ApprovalRequested)) == BURST + 1
            # The loop gets a turn after every slow row; before, it got none for the whole
            # burst (4.8 s measured). One second leaves room for a busy shared machine.
            assert gaps.longest < 1.0, gaps.longest
            # Still the same connection, and it still answers (a failed keepalive shows here).
            await h.client.call("session.active_list", {}, timeout=5.0)
            await h.fake.wait_for(lambda: h.received(0, "session.active_list"))
            assert h.rec.count(ConnectionState.BACKOFF) == 0, h.rec.statuses[-1].error
            assert h.rec.count(ConnectionState.CONNECTED) == 1

    arun(scenario(), timeout=40.0)


class TurnListener:
    """Forwards to the recorder; notes each new row, and the loop's next turn after it, in order.

    On the row ``echo hold`` it has the gateway write ``burst`` at once: the frames then wait
    together in the pump's inbox, as a flood does behind a slow turn.
    """

    def __init__(self, rec: Any, burst: Callable[[], None]) -> None:
        self.rec = rec
        self.burst = burst
        self.order: list[str] = []

    def on_core_event(self, gateway_id: str, event: Any) -> None:
        if isinstance(event, ApprovalRequested):
            self.order.append(event.approval.command)
            asyncio.get_running_loop().call_soon(self.order.append, "turn")
            if event.approval.command == "echo hold":
                self.burst()
        self.rec.on_core_event(gateway_id, event)

    def on_status_changed(self, gateway_id: str, old: Any, new: Any) -> None:
        self.rec.on_status_changed(gateway_id, old, new)


def test_a_new_row_gets_a_loop_turn_before_the_flood_behind_it(
    home: Path, arun: Callable[..., Any]
) -> None:
    """A new row gets a loop turn (its paint) before the frames behind it are taken in."""

    async def scenario() -> list[str]:
        async with running("B", home) as h:
            await one_row(h)
            [req] = h.fake.requests
            sid = req.session.sid

            def burst() -> None:  # a row, tokens streaming, a second row
                h.fake.raise_approval(sid, Command("echo first", "flood"))
                for _ in range(5):
                    h.fake.world.pub.emit(h.fake.session(sid), "message.delta", {"text": "a"})
                h.fake.raise_approval(sid, Command("echo second", "flood"))

            listener = TurnListener(h.rec, burst)
            h.client.listener = listener
            h.fake.raise_approval(sid, Command("echo hold", "flood"))
            await h.rec.wait_for(lambda: len(h.rec.of_type(ApprovalRequested)) >= 4)
            await asyncio.sleep(0)  # the turn after the last row
            return listener.order

    assert arun(scenario()) == ["echo hold", "turn", "echo first", "turn", "echo second", "turn"]
