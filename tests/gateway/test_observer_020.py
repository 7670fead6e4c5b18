"""0.20: the follower observes other clients' sessions through the core, never attaching.

Against a small real websockets server on 127.0.0.1 that speaks exactly the 0.20 subset
measured on axisrow 0.20.1.2 (``tests/realhermes/test_axisrow_facts.py``): ``gateway.ready``
with ``change_events``, ``client.capabilities`` refused (-32601), ``session.active_list``,
``approval.pending``, ``approval.respond`` by ``request_id`` and the ``sessions.changed``
broadcast. The fake gateway does not speak 0.20; the real one runs in tests/e2e.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect
from desktop.gateway.client import GatewayClient
from tests.gateway.fake_harness import client_on
from tests.gateway.recorder import Recorder

RID = "805c63813b5e4e569ed85ada53dff513"


@dataclass
class Gateway020:
    """Sessions (id → status), pending entries per session, and every request received."""

    sessions: dict[str, str] = field(default_factory=dict)
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)
    peers: set[ServerConnection] = field(default_factory=set)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, predicate: Callable[[], object], timeout: float = 5.0) -> None:
        """Until ``predicate()`` holds, re-checked on every request received."""
        async with asyncio.timeout(timeout):
            while not predicate():
                self.arrived.clear()
                await self.arrived.wait()

    def calls(self, method: str) -> list[dict[str, Any]]:
        return [r for r in self.received if r.get("method") == method]

    async def changed(self) -> None:
        frame = {"jsonrpc": "2.0", "method": "event", "params": {"type": "sessions.changed"}}
        for peer in list(self.peers):
            await peer.send(json.dumps({**frame, "params": {**frame["params"], "payload": {}}}))

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "session.active_list":
            rows = [
                {"id": sid, "session_key": f"key-{sid}", "status": status, "title": f"T {sid}"}
                for sid, status in self.sessions.items()
            ]
            return {"result": {"sessions": rows}}
        if method == "approval.pending":
            if params.get("session_id") not in self.sessions:
                return {"error": {"code": 4001, "message": "session not found"}}
            return {"result": {"approvals": self.pending.get(params["session_id"], [])}}
        if method == "approval.respond":
            waiting = self.pending.get(str(params.get("session_id")), [])
            hit = [e for e in waiting if e["request_id"] == params.get("request_id")]
            for entry in hit:
                waiting.remove(entry)
            return {"result": {"resolved": len(hit)}}
        return {"error": {"code": -32601, "message": f"unknown method: {method}"}}

    async def handler(self, ws: ServerConnection) -> None:
        self.peers.add(ws)
        ready = {"type": "gateway.ready", "payload": {"skin": {}, "change_events": True}}
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "event", "params": ready}))
        try:
            async for raw in ws:
                frame = json.loads(raw)
                self.received.append(frame)
                self.arrived.set()
                reply = self.answer(frame["method"], frame.get("params") or {})
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": frame["id"], **reply}))
        finally:
            self.peers.discard(ws)


@asynccontextmanager
async def running(
    gateway: Gateway020, *, follow_all: bool = True
) -> AsyncIterator[tuple[GatewayClient, Recorder]]:
    async with serve(gateway.handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}"
        async with client_on(url, follow_all=follow_all) as (client, rec):
            yield client, rec


def open_rows(client: GatewayClient) -> list[Approval]:
    return [a for a in client.core.approvals() if a.phase is not ApprovalPhase.RESOLVED]


def test_a_listed_working_session_shows_its_pending_entry_answered_by_id(arun: Any) -> None:
    gateway = Gateway020(
        sessions={"theirs01": "working"},
        pending={"theirs01": [{"command": "rm -rf /tmp/x", "request_id": RID}]},
    )

    async def scenario() -> None:
        async with running(gateway) as (client, rec):
            await rec.wait_for(lambda: open_rows(client))
            assert client.core.dialect is Dialect.HERMES020
            assert client.follower.follows_others
            [row] = open_rows(client)
            assert (row.session_id, row.command, row.answerable) == (
                "theirs01",
                "rm -rf /tmp/x",
                True,
            )
            assert client.decide(row.key, Choice.ONCE).sent
            await gateway.wait(lambda: gateway.calls("approval.respond"))
            [respond] = gateway.calls("approval.respond")
            assert respond["params"] == {
                "session_id": "theirs01",
                "choice": "once",
                "request_id": RID,
            }
            assert gateway.calls("session.resume") == [], "observing never attaches"

    arun(scenario(), timeout=20)


def test_sessions_changed_lists_again_and_an_idle_gateway_is_asked_nothing(arun: Any) -> None:
    gateway = Gateway020(sessions={f"s{n:07d}": "idle" for n in range(20)})

    async def scenario() -> None:
        async with running(gateway) as (client, rec):
            await rec.wait_for(lambda: len(client.core.observed_sessions) == 20)
            # Each is asked once when first listed; never seen working, none is asked again.
            await gateway.wait(lambda: len(gateway.calls("approval.pending")) == 20)
            await rec.wait_for(lambda: client.core.next_deadline() is None)
            lists = len(gateway.calls("session.active_list"))
            gateway.sessions["new00001"] = "working"
            await gateway.changed()
            await rec.wait_for(lambda: "new00001" in client.core.observed_sessions)
            assert len(gateway.calls("session.active_list")) == lists + 1
            del gateway.sessions["new00001"]
            await gateway.changed()
            await rec.wait_for(lambda: "new00001" not in client.core.observed_sessions)

    arun(scenario(), timeout=20)


def test_only_mine_observes_nothing(arun: Any) -> None:
    gateway = Gateway020(
        sessions={"theirs01": "working"},
        pending={"theirs01": [{"command": "rm -rf /tmp/x", "request_id": RID}]},
    )

    async def scenario() -> None:
        async with running(gateway, follow_all=False) as (client, rec):
            await rec.wait_for(lambda: client.core.dialect is Dialect.HERMES020)
            await gateway.wait(lambda: gateway.calls("config.get"))  # what the handshake asks
            assert gateway.calls("session.active_list") == []
            assert not client.follower.follows_others
            assert client.core.observed_sessions == frozenset()
            assert open_rows(client) == []

    arun(scenario(), timeout=20)
