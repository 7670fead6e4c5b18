"""GatewayClient + the real core against the real Hermes gateways (0.19.0 = A, iot = B).

Per build: connect and handshake; create a desktop session whose scripted model asks to
delete a scratch directory; receive the real approval; answer it; see ``tool.complete`` on
the wire and the directory gone. Then: drop the connection while an approval waits, reconnect,
and check nothing was answered blindly before the person decides again. Finally an owned
backend (our supervisor running the real ``hermes serve``) is killed and must come back;
the reconnect times are printed for the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import ApprovalRequested
from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect, OutcomeKind
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import ConnectionSettings, ConnectionState, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.supervisor import OwnedBackend
from desktop.settings.model import GatewayKind
from tests.gateway.recorder import Recorder
from tests.peers.fake_model import FakeModel, commands_script
from tests.peers.fixtures import StartHermes
from tests.peers.hermes_server import HermesOptions, HermesServer, build_config, build_env
from tests.peers.hermes_venv import HermesVenv
from tests.peers.netguard import ProxyCanary

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(300)]
BOTH = [pytest.param("0.19.0", id="hermes-0.19.0"), pytest.param("iot", id="hermes-iot")]
TURN_S = 90.0
BACKOFF = BackoffPolicy(initial=0.05, factor=2.0, max_delay=0.5, jitter=0.0)
SETTINGS = ConnectionSettings(open_timeout=10.0, handshake_timeout=15.0, ping_interval=None)
WIRE = "desktop.gateway.wire"


def make_victim(scratch: Path) -> Path:
    victim = scratch / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me unless approved\n")
    return victim


def wire_frames(caplog: pytest.LogCaptureFixture, direction: str) -> list[dict[str, Any]]:
    """Frames the client logged at DEBUG (``<`` in, ``>`` out), parsed."""
    out = []
    for record in caplog.records:
        if record.name == WIRE and record.getMessage().startswith(direction + " "):
            try:
                out.append(json.loads(record.getMessage()[2:]))
            except ValueError:
                continue
    return out


def tool_completes(caplog: pytest.LogCaptureFixture, session_id: str) -> list[dict[str, Any]]:
    return [
        f["params"]["payload"]
        for f in wire_frames(caplog, "<")
        if f.get("method") == "event"
        and f["params"].get("type") == "tool.complete"
        and f["params"].get("session_id") == session_id
    ]


def decisions_sent(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """Outgoing frames that answer an approval (A: approval.respond; B: a response frame)."""
    return [
        f
        for f in wire_frames(caplog, ">")
        if f.get("method") == "approval.respond"
        or ("result" in f and "choice" in (f.get("result") or {}))
    ]


def requested(rec: Recorder) -> list[Approval]:
    return [e.approval for e in rec.of_type(ApprovalRequested)]  # type: ignore[attr-defined]


def url_client(url: str) -> tuple[GatewayClient, Recorder]:
    rec = Recorder()
    endpoint = GatewayEndpoint("real", "Real Hermes", GatewayKind.URL, url=url)
    return GatewayClient(endpoint, listener=rec, backoff=BACKOFF, connection_settings=SETTINGS), rec


@contextlib.asynccontextmanager
async def running(client: GatewayClient) -> AsyncIterator[GatewayClient]:
    """``client.run()`` as a task for the block; closed and awaited after, whatever happened."""
    runner = asyncio.create_task(client.run())
    try:
        yield client
    finally:
        await client.close()
        await runner


@dataclass(frozen=True)
class DeleteTask:
    """A real gateway whose scripted model asks to delete ``victim``: start it in ``directory``
    with ``prompt``."""

    version: str
    server: HermesServer
    victim: Path
    directory: str
    prompt: str

    @contextlib.asynccontextmanager
    async def waiting(self) -> AsyncIterator[tuple[GatewayClient, Recorder, str]]:
        """Where both approval tests begin: a client connected in the gateway's own dialect,
        the task started (its session id is yielded) and its approval arrived."""
        client, rec = url_client(self.server.url)
        async with running(client):
            status = await rec.wait_state(ConnectionState.CONNECTED, timeout=30)
            assert status.dialect is Dialect[self.server.dialect]
            sid = await client.create_session(self.directory, self.prompt)
            await rec.wait_for(lambda: requested(rec), TURN_S)
            yield client, rec, sid


@pytest.fixture(params=BOTH)
def delete_task(
    request: pytest.FixtureRequest,
    start_hermes: StartHermes,
    fake_model: FakeModel,
    scratch_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> DeleteTask:
    """The set-up of the approval tests, once per build (same ids as ``parametrize`` with
    ``BOTH``): the wire logged (the tests read the frames from it), a victim on disk, one
    ``rm -rf`` script for the model, a gateway that waits 120 s for an answer."""
    caplog.set_level(logging.DEBUG, logger=WIRE)
    victim = make_victim(scratch_dir)
    fake_model.add_script("single", commands_script([f"rm -rf {victim}"]))
    server = start_hermes(request.param, approvals_timeout=120)
    prompt = fake_model.prompt("single")
    return DeleteTask(request.param, server, victim, str(scratch_dir), prompt)


def test_real_approval_roundtrip(
    delete_task: DeleteTask, arun: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    victim = delete_task.victim

    async def scenario() -> None:
        async with delete_task.waiting() as (client, rec, sid):
            [approval] = requested(rec)
            assert str(victim) in approval.command
            assert victim.exists(), "the command ran before it was approved"
            assert client.decide(approval.key, Choice.ONCE).sent
            await rec.wait_for(lambda: tool_completes(caplog, sid), TURN_S)
            [done] = [a for a in client.core.approvals() if a.key == approval.key]
            assert done.phase is ApprovalPhase.RESOLVED
            assert done.outcome is not None
            assert done.outcome.kind is OutcomeKind.APPROVED

    arun(scenario(), timeout=240)
    assert not victim.exists(), "the approved command did not run"
    assert len(decisions_sent(caplog)) == 1


def test_real_reconnect_while_an_approval_waits(
    delete_task: DeleteTask, arun: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    server, victim = delete_task.server, delete_task.victim

    async def scenario() -> float:
        async with delete_task.waiting() as (client, rec, sid):
            started = time.monotonic()
            client.reconnect_now()  # drops the socket while the approval waits
            await rec.wait_state(ConnectionState.CONNECTED, count=2, timeout=30)
            took = time.monotonic() - started
            await rec.wait_for(
                lambda: any(f.get("method") == "session.resume" for f in wire_frames(caplog, ">")),
                30,
            )
            await asyncio.sleep(1.0)  # give a blind answer every chance to show up (none may)
            assert decisions_sent(caplog) == []
            assert victim.exists()
            rows = [a for a in client.core.approvals() if a.phase is not ApprovalPhase.RESOLVED]
            if server.dialect == "B":
                await rec.wait_for(
                    lambda: any(a.phase is ApprovalPhase.WAITING for a in client.core.approvals()),
                    30,
                )
                rows = [a for a in client.core.approvals() if a.phase is ApprovalPhase.WAITING]
                assert client.decide(rows[0].key, Choice.ONCE).sent
            else:
                [row] = rows
                assert not client.decide(row.key, Choice.ONCE).sent  # stale: not blindly
                assert client.decide(row.key, Choice.ONCE, confirm_stale=True).sent
            await rec.wait_for(lambda: tool_completes(caplog, sid), TURN_S)
            return took

    took = arun(scenario(), timeout=240)
    assert not victim.exists()
    assert len(decisions_sent(caplog)) == 1
    print(f"\nreconnect after drop ({delete_task.version}): {took * 1000:.0f} ms")


@pytest.mark.parametrize("version", BOTH)
def test_owned_real_backend_is_restarted_after_a_crash(
    version: str,
    request: pytest.FixtureRequest,
    fake_model: FakeModel,
    tmp_path: Path,
    arun: Callable[..., Any],
) -> None:
    venv: HermesVenv = request.getfixturevalue(
        "hermes_019" if version == "0.19.0" else "hermes_iot"
    )
    home, hermes_home = tmp_path / "home", tmp_path / "hermes-home"
    for path in (home / "tmp", hermes_home):
        path.mkdir(parents=True)
    options = HermesOptions()
    (hermes_home / "config.yaml").write_text(json.dumps(build_config(fake_model.base_url, options)))
    (hermes_home / ".update_check").write_text(
        json.dumps({"ts": time.time(), "behind": 0, "rev": None, "ver": venv.peer.version})
    )
    canary = ProxyCanary()
    env = build_env(venv, home, hermes_home, "replaced-by-the-supervisor", canary.url, options)
    env["HERMES_TRAY_LOG_DIR"] = str(tmp_path / "logs")
    endpoint = GatewayEndpoint(
        "own", "Owned", GatewayKind.OWNED, hermes_executable=str(venv.hermes)
    )

    async def scenario() -> float:
        rec = Recorder()
        client = GatewayClient(
            endpoint, listener=rec, backoff=BACKOFF, connection_settings=SETTINGS
        )
        backend = OwnedBackend(
            str(venv.hermes), name="own", hermes_home=str(hermes_home), environ=env
        )
        client.dialer.backend = backend  # the real environment above, not the test's own
        async with running(client):
            await rec.wait_state(ConnectionState.CONNECTED, timeout=90)
            killed = backend.pid
            assert killed is not None
            started = time.monotonic()
            os.kill(killed, signal.SIGKILL)
            await rec.wait_state(ConnectionState.CONNECTED, count=2, timeout=120)
            took = time.monotonic() - started
            assert backend.pid not in (None, killed)  # a new child
            assert await client.list_live_sessions() == []
            return took

    try:
        took = arun(scenario(), timeout=240)
    finally:
        attempts = canary.close()
    assert attempts == [], f"the backend tried to go out through a proxy: {attempts}"
    print(f"\nowned backend restart after SIGKILL ({version}): {took:.1f} s")
