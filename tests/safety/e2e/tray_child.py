"""A stand-in for the tray process: connect, wait for approvals, maybe decide one, then idle.

The parent test kills this process (SIGKILL or SIGTERM) and checks, on the fake gateway, that
nothing was answered on the person's behalf: no decision but the one this child was told to
make. The credential comes in the environment (never argv, which ``ps`` shows):
``HERMES_SAFETY_URL`` for A/B, ``HERMES_SAFETY_HOME`` (a control-socket home) for C.
"""

from __future__ import annotations

import asyncio
import os
import sys

from desktop.core.model import ApprovalPhase, Choice, Dialect
from desktop.gateway.client import GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.settings.model import GatewayKind
from tests.safety.e2e.rig import FAST, QUICK, Wakeup


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def attach(client: GatewayClient, session_id: str) -> None:
    """Resume ``session_id`` (stored id) and follow it, as the tray does for its own sessions."""
    params: dict[str, object] = {"session_id": session_id}
    if client.core.dialect is not Dialect.C:
        params.update(source="desktop", close_on_disconnect=False)
    result = await client.call("session.resume", params)
    runtime_id = str(result.get("session_id") or session_id)
    stored = str(result.get("stored_session_id") or result.get("session_key") or session_id)
    client.core.watch_session(runtime_id, stored_session_id=stored)


async def main(mode: str, want: int) -> None:
    home = os.environ.get("HERMES_SAFETY_HOME", "")
    if home:
        endpoint = GatewayEndpoint("child", "Child", GatewayKind.CANONICAL, hermes_home=home)
    else:
        endpoint = GatewayEndpoint(
            "child", "Child", GatewayKind.URL, url=os.environ["HERMES_SAFETY_URL"]
        )
    wake = Wakeup()
    client = GatewayClient(endpoint, listener=wake, backoff=FAST, connection_settings=QUICK)
    runner = asyncio.create_task(client.run())
    await wake.connected()
    await attach(client, os.environ["HERMES_SAFETY_SESSION"])
    say("ATTACHED")
    async with asyncio.timeout(20):
        while True:
            rows = [
                a
                for a in client.core.approvals()
                if a.phase is ApprovalPhase.WAITING and a.answerable
            ]
            if len(rows) >= want:
                break
            await wake.wait(0.1)
    say(f"READY {len(rows)}")
    if mode == "decide":
        result = client.decide(rows[0].key, Choice.ONCE)
        say(f"DECIDED {rows[0].command} {result.sent}")
    await asyncio.wait_for(asyncio.Event().wait(), 60)  # until killed (bounded)
    await runner


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
