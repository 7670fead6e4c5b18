"""How soon the tray sees a row another client answered, on each real gateway (prints figures).

The tray is the real ``GatewayClient`` (real core, real socket); the other client is a plain
WebSocket client (the Hermes window) that denies the one waiting command:

* 0.19.0 (A): nothing but the tray's own sessions is followed, so the tray starts the task and
  the window answers blindly (``approval.respond {session_id, choice}``, the oldest); the tray
  owns the session and sees the blocked ``tool.complete``.
* axisrow 0.20.1.2: the window's session is observed through ``approval.pending``; the window
  answers by ``request_id``.
* iot 0.22.2.post1 (B): the tray follows the window's session and joins its fan-out; the
  window answers by a response frame, which cancels nothing at other viewers. A lone command's
  blocked ``tool.complete`` usually ends the row before the next ``approval.pending`` poll
  (rows of a batch still waiting behind another: ``tests/e2e/test_answered_elsewhere.py``).

Every case checks on disk that the denied command never ran and that the tray refuses to
answer the ended row. The figure printed is the time from the window's answer to the row's end
in the tray; the README's table carries them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from desktop.core.model import Approval, ApprovalPhase, Choice, OutcomeKind
from desktop.gateway.client import ConnectionSettings, ConnectionState, GatewayClient
from tests.core.frames import wire_of
from tests.gateway.fake_harness import client_on
from tests.gateway.recorder import Recorder
from tests.peers.fake_model import FakeModel, commands_script
from tests.peers.fixtures import StartHermes
from tests.peers.hermes_server import HermesServer
from tests.peers.wsclient import RawGateway, is_server_request, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(240)]
TURN_S = 60.0


@contextlib.asynccontextmanager
async def tray(server: HermesServer) -> AsyncIterator[tuple[GatewayClient, Recorder]]:
    """The real client, with the default connection settings a tray uses."""
    async with client_on(server.url, settings=ConnectionSettings()) as (client, rec):
        await rec.wait_for(lambda: client.core.dialect is not None, 30.0)
        yield client, rec


def open_rows(client: GatewayClient) -> list[Approval]:
    return [a for a in client.core.approvals() if a.phase is not ApprovalPhase.RESOLVED]


async def window_session(window: RawGateway, dialect: str, cwd: Path, prompt: str) -> str:
    await window.handshake(dialect)
    params = {"source": "desktop", "cwd": str(cwd), "close_on_disconnect": False}
    session_id = str((await window.call("session.create", params))["session_id"])
    await window.call("prompt.submit", {"session_id": session_id, "text": prompt})
    return session_id


async def deny_as_window(version: str, window: RawGateway, row: Approval, request_id: str) -> float:
    """The window's deny, the way that build's window answers; when it was sent."""
    loop = asyncio.get_running_loop()
    if version == "iot":
        _, asked = await window.wait_for(
            lambda f: is_server_request(f) and f["method"] == "approval", TURN_S
        )
        sent = loop.time()
        await window.reply(asked["id"], {"choice": "deny"})
        return sent
    params = {"session_id": row.session_id, "choice": "deny"}
    if version == "axisrow":
        params["request_id"] = request_id
    sent = loop.time()
    assert await window.call("approval.respond", params) == {"resolved": 1}
    return sent


@pytest.mark.parametrize("version", ["0.19.0", "axisrow", "iot"])
def test_a_row_the_window_denied_is_seen_ended_and_refused(
    version: str, start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    server = start_hermes(version)
    target = scratch_dir / "victim"
    target.write_text("keep me\n")
    name = f"pace-{version}"
    fake_model.add_script(name, commands_script([f"rm -rf {target}"], final="done"))
    prompt = fake_model.prompt(name, "please go ahead")

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        async with tray(server) as (client, rec), RawGateway.connect(server.url) as window:
            await rec.wait_for(lambda: client.status.state is ConnectionState.CONNECTED, 30.0)
            if version == "0.19.0":
                await window.handshake("A")
                await client.create_session(str(scratch_dir), prompt)
            else:
                await window_session(window, server.dialect, scratch_dir, prompt)
            await rec.wait_for(lambda: open_rows(client), TURN_S)
            [row] = open_rows(client)
            request_id = wire_of(client.core, row.key).request_id
            denied_at = await deny_as_window(version, window, row, request_id)
            await rec.wait_for(lambda: not open_rows(client), 10.0)
            seen = loop.time() - denied_at
            ended = {a.key: a for a in client.core.approvals()}.get(row.key)
            assert ended is not None
            assert ended.outcome is not None
            assert ended.outcome.kind is not OutcomeKind.APPROVED
            assert not client.decide(row.key, Choice.ONCE).sent
            return seen

    seen = run_async(scenario(), 200)
    print(f"\n{version}: answered elsewhere seen {seen * 1000:.0f} ms after the window's deny")
    assert target.read_text() == "keep me\n", "the denied command ran"
