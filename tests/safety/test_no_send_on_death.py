"""If the tray stops — closed, its task cancelled, or its process killed — nothing is answered
on the person's behalf: the gateway sees no decision but the ones the person made, and every
other approval is still open on the gateway (no "deny all on exit", no replayed click).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import ApprovalPhase, Choice
from desktop.gateway import canonical
from tests.gatewaymodel import Batch, Command, FakeGateway, Turn
from tests.safety.e2e.control import ControlSocket
from tests.safety.e2e.rig import Rig, rig

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hts", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def batch(tag: str) -> Turn:
    commands = tuple(
        Command(f"rm -rf /tmp/hermes-scratch/{tag}-{i}", "delete in root path") for i in range(3)
    )
    return Turn([Batch(commands)], reply="done")


def decisions_received(fake: FakeGateway) -> list[dict[str, Any]]:
    """Every decision-shaped frame the fake received, on any connection."""
    found = []
    for conn in fake.connections:
        for frame in conn.received:
            if not isinstance(frame, dict):
                continue
            if frame.get("method") in ("approval.respond", "request.answer") or (
                "method" not in frame
                and "result" in frame
                and str(frame.get("id", "")).startswith("srq-")
            ):
                found.append(frame)
    return found


async def rows_shown(r: Rig, count: int) -> list[Any]:
    async with asyncio.timeout(5):
        while True:
            rows = [
                a
                for a in r.client.core.approvals()
                if a.phase is ApprovalPhase.WAITING and a.answerable
            ]
            if len(rows) >= count:
                return rows
            await r.wake.wait(0.1)


@pytest.mark.parametrize("dialect", ["A", "B", "C"])
@pytest.mark.parametrize("how", ["close", "cancel"])
@pytest.mark.parametrize("clicked", [False, True], ids=["no-click", "one-click"])
def test_stopping_the_client_answers_nothing_else(
    dialect: str,
    how: str,
    clicked: bool,
    home: Path,
    aloop: asyncio.AbstractEventLoop,
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        async with rig(dialect, home, speed=0.002, approval_timeout=None, margin=0.3) as r:
            await r.wake.connected()
            r.fake.queue_turn(batch(f"{dialect}-{how}"))
            await r.client.create_session("/tmp/hermes-scratch", "go")
            rows = await rows_shown(r, 1)
            if clicked:
                assert r.client.decide(rows[0].key, Choice.ONCE).sent
            if how == "close":
                await r.client.close()
            else:
                [runner] = [
                    t for t in asyncio.all_tasks() if "GatewayClient.run" in repr(t.get_coro())
                ]
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)
            for _ in range(10):  # let anything that was going to be sent arrive (bounded)
                await r.wake.wait(0.02)
            received = decisions_received(r.fake)
            assert len(received) <= int(clicked), received
            for frame in received:
                body = frame.get("params") if "method" in frame else frame.get("result")
                assert isinstance(body, dict)
                assert body["choice"] == "once"
            open_now = [q for q in r.fake.requests if q.is_open]
            closed = [q for q in r.fake.requests if not q.is_open]
            assert len(closed) == len(received), [q.outcome for q in closed]
            assert open_now, "the approvals the person did not answer must still wait"
            assert all(q.outcome is None for q in open_now)

    arun(scenario(), timeout=20)


KILLS = [
    *[(d, signal.SIGKILL, m) for d in ("A", "B", "C") for m in ("idle", "decide")],
    ("B", signal.SIGTERM, "decide"),
]


@pytest.mark.parametrize(
    ("dialect", "sig", "mode"), KILLS, ids=lambda v: getattr(v, "name", str(v))
)
def test_a_killed_tray_process_answers_nothing_on_its_behalf(
    dialect: str,
    sig: signal.Signals,
    mode: str,
    home: Path,
    aloop: asyncio.AbstractEventLoop,
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        async with (
            FakeGateway(dialect, speed=0.002) as fake,
            ControlSocket(
                str(home / canonical.SOCKET_NAME),
                home=str(home),
                api_origin=f"http://127.0.0.1:{fake.port}",
                mint=fake.issue_ticket,
            ),
        ):
            session = fake.create_session(source="gui" if dialect == "C" else "desktop")
            env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_SAFETY")}
            env["HERMES_SAFETY_SESSION"] = session.stored_id
            if dialect == "C":
                env["HERMES_SAFETY_HOME"] = str(home)
            else:
                env["HERMES_SAFETY_URL"] = fake.url
            want = 1 if dialect == "A" else 3
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.safety.e2e.tray_child",
                mode,
                str(want),
                cwd=REPO,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            try:
                assert child.stdout is not None
                line = await asyncio.wait_for(child.stdout.readline(), 15)
                assert line.startswith(b"ATTACHED"), line
                fake.submit(session.sid, turn=batch(f"{dialect}-{mode}"))
                line = await asyncio.wait_for(child.stdout.readline(), 15)
                assert line.startswith(b"READY"), line
                if mode == "decide":
                    line = await asyncio.wait_for(child.stdout.readline(), 15)
                    assert line.startswith(b"DECIDED"), line
                    assert line.strip().endswith(b"True"), line
                child.send_signal(sig)
                await asyncio.wait_for(child.wait(), 15)
            finally:
                if child.returncode is None:
                    child.kill()
                    await child.wait()
            await fake.wait_for(
                lambda: all(not c.open for c in fake.connections), what="socket gone"
            )
            received = decisions_received(fake)
            assert len(received) <= (1 if mode == "decide" else 0), received
            still_open = [q for q in fake.requests if q.is_open]
            assert still_open, "unanswered approvals must still wait after the tray died"
            assert len(fake.requests) - len(still_open) == len(received)

    arun(scenario(), timeout=40)


def test_cancelling_run_closes_the_socket_and_stops_offering_answers(
    home: Path, aloop: asyncio.AbstractEventLoop, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with rig("B", home, speed=0.002, approval_timeout=None, margin=0.3) as r:
            await r.wake.connected()
            r.fake.queue_turn(batch("cancel"))
            await r.client.create_session("/tmp/hermes-scratch", "go")
            [row, *_] = await rows_shown(r, 1)
            [runner] = [t for t in asyncio.all_tasks() if "GatewayClient.run" in repr(t.get_coro())]
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            result = r.client.decide(row.key, Choice.ONCE)
            for _ in range(10):
                await r.wake.wait(0.02)
            assert not decisions_received(r.fake)  # safe either way: nothing reached the gateway
            assert not result.sent, "decide() claimed a frame was sent by a stopped client"
            assert not r.fake.connections[0].open, "the cancelled client left its socket open"

    arun(scenario(), timeout=20)
