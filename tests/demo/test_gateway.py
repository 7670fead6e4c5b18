"""The demo's small gateway on its own: a real websocket peer that bad frames cannot break.

The tray's path through it is tests/ui/test_demo_mode.py; here a raw client checks what the
tray never sends: a wrong token, garbage, unknown methods, odd params, a repeated answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from desktop.demo.gateway import Command, DemoGateway, Session
from tests.gateway.fake.support import run

RM = Command("rm -rf build/", "recursive delete")


async def frame(ws: ClientConnection) -> Any:
    return json.loads(await asyncio.wait_for(ws.recv(), 5))


async def call(ws: ClientConnection, rpc_id: int, method: str, params: Any = None) -> Any:
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}))
    while (reply := await frame(ws)).get("id") != rpc_id:
        pass
    return reply


async def follow(ws: ClientConnection, session: Session) -> None:
    """Take the session's server requests, as the tray does."""
    await call(ws, 1, "client.capabilities", {"server_requests": True})
    await call(ws, 2, "session.resume", {"session_id": session.stored_id})


def test_a_wrong_token_is_refused_and_bad_frames_get_errors_not_a_crash():
    async def body() -> None:
        gw = DemoGateway()
        await gw.start()
        try:
            with pytest.raises(InvalidStatus) as refused:
                await connect(f"{gw.base_url}?token=wrong", proxy=None)
            assert refused.value.response.status_code == 403
            async with connect(f"{gw.base_url}?token={gw.token}", proxy=None) as ws:
                ready = await frame(ws)
                assert ready["params"]["type"] == "gateway.ready"
                await ws.send("not json")
                assert (await frame(ws))["error"]["code"] == -32700
                await ws.send("[1, 2]")  # not an object: ignored
                await ws.send(json.dumps({"id": "srq-nobody", "result": {"choice": "once"}}))
                assert (await call(ws, 1, "no.such.method"))["error"]["code"] == -32601
                odd = {"session_id": ["x"], "key": "yolo"}
                assert (await call(ws, 2, "session.resume", odd))["error"]["code"] == 4001
                assert (await call(ws, 3, "config.set", odd))["error"]["code"] == 4001
                assert (await call(ws, 4, "session.active_list", 7))["result"] == {"sessions": []}
                caps = await call(ws, 5, "client.capabilities", {"server_requests": True})
                assert caps["result"]["server_requests"] == ["approval"]
            assert gw.late_answers == 1
        finally:
            await gw.stop()

    run(body)


def test_an_approval_is_answered_once_and_an_unanswered_one_is_withdrawn():
    async def body() -> None:
        gw = DemoGateway(speed=0.01, approval_timeout=20.0)  # 0.2 s real
        await gw.start()
        session = gw.create_session("t", "~")
        try:
            async with connect(f"{gw.base_url}?token={gw.token}", proxy=None) as ws:
                await follow(ws, session)
                first = asyncio.ensure_future(gw.run(session, [RM]))
                while (ask := await frame(ws)).get("method") != "approval":
                    pass
                assert ask["params"]["command"] == RM.command
                for choice in ("once", "deny"):  # the second answer comes too late
                    answer = {"jsonrpc": "2.0", "id": ask["id"], "result": {"choice": choice}}
                    await ws.send(json.dumps(answer))
                await call(ws, 3, "session.active_list")  # the server read both answers
                assert gw.late_answers == 1
                assert await first == {RM.command}
                assert await gw.run(session, [RM]) == set()  # nobody answers: timed out
                cancels = []
                while not cancels:
                    event = (await frame(ws)).get("params", {})
                    if event.get("type") == "request.cancel":
                        cancels.append(event["payload"])
            assert [e.command for e in gw.executed] == [RM.command]
            assert [a.outcome for a in gw.asked] == ["once", "timeout"]
            assert cancels[0]["id"] == gw.asked[1].srq_id
            assert cancels[0]["reason"] == "timeout"
        finally:
            await gw.stop()

    run(body)


def test_deny_and_stop_the_agent_interrupts_the_turn_and_withdraws_what_it_asks():
    """The tray's "Deny and stop the agent" ends with ``session.interrupt``; the demo once
    answered it "unknown method", and the tray said it could not stop the agent."""

    async def body() -> None:
        gw = DemoGateway(speed=0.01)
        await gw.start()
        session = gw.create_session("t", "~")
        try:
            async with connect(f"{gw.base_url}?token={gw.token}", proxy=None) as ws:
                await follow(ws, session)
                asked = asyncio.ensure_future(gw.run(session, [RM, RM]))
                asks = []
                while len(asks) < 2:
                    if (found := await frame(ws)).get("method") == "approval":
                        asks.append(found["id"])
                unknown = await call(ws, 3, "session.interrupt", {"session_id": "nobody"})
                assert unknown["error"]["code"] == 4001
                stop = await call(ws, 4, "session.interrupt", {"session_id": session.sid})
                assert stop["result"] == {"status": "interrupted"}
                assert await asked == set()  # nothing ran
                cancels: list[dict[str, Any]] = []
                while len(cancels) < 2:
                    event = (await frame(ws)).get("params", {})
                    if event.get("type") == "request.cancel":
                        cancels.append(event["payload"])
            assert [c["id"] for c in cancels] == asks
            assert {c["reason"] for c in cancels} == {"interrupted"}
            assert [a.outcome for a in gw.asked] == ["interrupted", "interrupted"]
            assert session.stopped
            assert not gw.executed
        finally:
            await gw.stop()

    run(body)
