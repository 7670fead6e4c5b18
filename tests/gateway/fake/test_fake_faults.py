"""Scripted faults: refused handshakes, drops, stalls, garbage, restarts, late replies."""

from __future__ import annotations

import asyncio

import pytest
from websockets.exceptions import InvalidStatus

from tests.gateway.fake.support import RawClient, open_b, ready, run, submit_turn
from tests.gatewaymodel import (
    CloseOnOpen,
    Command,
    DelayResponses,
    DropAfter,
    FakeGateway,
    Garbage,
    ManualClock,
    Refuse,
    StallAfter,
    Turn,
)

RM = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path")


def test_planned_refusals_then_a_normal_connection():
    async def body() -> None:
        faults = [Refuse(503), CloseOnOpen(4401, "ticket expired"), None]
        async with FakeGateway("B", speed=0, attempt_faults=faults) as fake:
            with pytest.raises(InvalidStatus) as refused:
                async with RawClient.connect(fake.url):
                    pass
            assert refused.value.response.status_code == 503
            async with RawClient.connect(fake.url) as client:
                closed = await client.wait_closed()
            assert closed.rcvd is not None
            assert (closed.rcvd.code, closed.rcvd.reason) == (4401, "ticket expired")
            async with RawClient.connect(fake.url) as client:
                assert "replay_epoch" in await ready(client)
            assert [c.attempt for c in fake.connections] == [1, 2]
            assert fake.handshake_attempts == 3

    run(body)


def test_drop_after_aborts_without_a_close_frame():
    async def body() -> None:
        async with FakeGateway("B", speed=0, attempt_faults=[DropAfter(1), DropAfter(0)]) as fake:
            async with RawClient.connect(fake.url) as client:
                closed = await client.wait_closed()
            assert closed.rcvd is None  # no close frame: an abnormal closure (1006)
            assert [f["params"]["type"] for f in client.frames] == ["gateway.ready"]
            async with RawClient.connect(fake.url) as client:
                closed = await client.wait_closed()
            assert closed.rcvd is None
            assert client.frames == []

    run(body)


def test_stall_holds_replies_and_pongs_until_released():
    async def body() -> None:
        async with (
            FakeGateway("B", speed=0, attempt_faults=[StallAfter(1)]) as fake,
            RawClient.connect(fake.url) as client,
        ):
            await ready(client)
            await fake.wait_for(lambda: fake.world.connections[0].stalled)
            rpc_id = await client.request("ping")
            pong = await client.ws.ping()
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pong), 0.2)
            assert fake.connections[0].received == []  # not even read
            fake.unstall()
            assert (await client.reply(rpc_id))["result"] == {"pong": True}
            await asyncio.wait_for(pong, 5)

    run(body)


def test_runtime_stall_and_drop_keep_the_session_alive():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                fake.stall()
                rpc_id = await client.request("session.usage", {"session_id": sid})
                fake.queue_turn(Turn([RM]))
                fake.submit(sid, "go")  # another surface prompts meanwhile
                await fake.wait_for_requests(1)
                assert client.server_requests() == []  # held while stalled
                fake.unstall()
                await client.reply(rpc_id)
                (request,) = await client.requests(1)
                fake.drop()
                closed = await client.wait_closed()
            assert closed.rcvd is None
            assert fake.open_requests()[0].srq_id == request["id"]
            assert sid in fake.sessions

    run(body)


def test_close_on_disconnect_sessions_end_with_their_connection():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                await ready(client)
                kept = await client.result("session.create", {"close_on_disconnect": False})
                gone = await client.result("session.create", {"close_on_disconnect": True})
            await fake.wait_for(lambda: gone["session_id"] not in fake.sessions)
            assert kept["session_id"] in fake.sessions

    run(body)


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("not_json", lambda f: f == "{this is not json"),
        ("not_object", lambda f: f == [1, 2, 3]),
        ("bad_params", lambda f: f["params"] == "session.info"),
        ("bad_payload", lambda f: f["params"]["payload"]["yolo"] == "maybe"),
        ("bad_id", lambda f: f["id"] == {"nested": True}),
        ("binary", lambda f: isinstance(f, bytes)),
    ],
)
def test_garbage_arrives_and_the_connection_keeps_serving(kind, check):
    async def body() -> None:
        async with (
            FakeGateway("B", speed=0, attempt_faults=[Garbage(kind)]) as fake,
            RawClient.connect(fake.url) as client,
        ):
            await ready(client)
            await client.wait(lambda: len(client.frames) >= 2)
            assert check(client.frames[1])
            assert await client.result("ping") == {"pong": True}
            fake.send_garbage(kind)
            await client.wait(lambda: len(client.frames) >= 4)
            assert check(client.frames[3])

    run(body)


def test_a_huge_frame_trips_the_clients_size_limit():
    async def body() -> None:
        async with (
            FakeGateway("B", speed=0) as fake,
            RawClient.connect(fake.url, max_size=8 * 1024 * 1024) as client,
        ):
            await ready(client)
            fake.send_garbage("huge")
            closed = await client.wait_closed()
            assert closed.sent is not None
            assert closed.sent.code == 1009  # message too big

    run(body)


def test_the_gateway_answers_client_garbage_and_stays_up():
    async def body() -> None:
        async with FakeGateway("A", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            await client.send("[1, 2")
            await client.send("   ")  # blank messages are ignored
            await client.send({"jsonrpc": "2.0", "method": "ping"})  # a notification: no reply
            errors = await client.wait(
                lambda: [f for f in client.frames if isinstance(f, dict) and "error" in f] or None
            )
            assert errors[0] == {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "parse error"},
            }
            assert await client.result("ping") == {"pong": True}
            assert fake.connections[0].received[:2] == ["[1, 2", "   "]
            replies = [f for f in client.frames if isinstance(f, dict) and "result" in f]
            assert len(replies) == 1

    run(body)


def test_restart_keeping_sessions_changes_the_epoch_and_keeps_open_requests():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                sid = await open_b(client)
                old_epoch = (await ready(client))["replay_epoch"]
                await submit_turn(fake, client, sid, Turn([RM]))
                (request,) = await client.requests(1)
                await fake.restart(keep_sessions=True, how="close")
                closed = await client.wait_closed()
            assert closed.rcvd is not None
            assert closed.rcvd.code == 1012
            async with RawClient.connect(fake.url) as again:
                assert (await ready(again))["replay_epoch"] != old_epoch
                await again.result("client.capabilities", {"server_requests": True})
                stored = fake.session(sid).stored_id
                snap = await again.result("session.resume", {"session_id": stored})
                assert [r["id"] for r in snap["open_requests"]] == [request["id"]]
                since = await again.result(
                    "session.events.since", {"session_id": sid, "last_seen": 0}
                )
                assert since["truncated"] is True  # the old epoch's log is gone
                await again.answer(request["id"], {"choice": "once"})
                await fake.wait_for(lambda: len(fake.executed) == 1)

    run(body)


def test_restart_losing_sessions_forgets_them_and_kills_old_tickets():
    async def body() -> None:
        async with FakeGateway("C", speed=0) as fake:
            async with RawClient.connect(fake.url, subprotocols=fake.subprotocols()) as client:
                await ready(client)
                snap = await client.result("session.create", {"source": "gui"})
                spare = fake.subprotocols()  # minted before the restart
                await fake.restart(keep_sessions=False)
                closed = await client.wait_closed()
            assert closed.rcvd is None
            assert fake.world.authority_epoch == snap["authority_epoch"] + 1
            with pytest.raises(InvalidStatus):
                async with RawClient.connect(fake.url, subprotocols=spare):
                    pass
            async with RawClient.connect(fake.url, subprotocols=fake.subprotocols()) as again:
                assert (await ready(again))["authority_epoch"] == snap["authority_epoch"] + 1
                lost = await again.call("session.resume", {"session_id": snap["session_id"]})
                assert lost["error"]["data"] == {"reason": "not_found"}

    run(body)


def test_delayed_replies_arrive_out_of_order():
    async def body() -> None:
        clock = ManualClock()
        faults = [DelayResponses(2.0, ("session.list",))]
        async with (
            FakeGateway("B", clock=clock, attempt_faults=faults) as fake,
            RawClient.connect(fake.url) as client,
        ):
            await ready(client)
            slow = await client.request("session.list")
            fast = await client.request("ping")
            await client.reply(fast)
            assert all(f.get("id") != slow for f in client.frames if isinstance(f, dict))
            await clock.advance(2.0)
            assert (await client.reply(slow))["result"] == {"sessions": []}
            fake.set_response_delay("ping", 1.0)
            late = await client.request("ping")
            await fake.wait_for(lambda: clock.sleepers == 1)
            await clock.advance(1.0)
            assert (await client.reply(late))["result"] == {"pong": True}

    run(body)


def test_close_connections_with_a_code():
    async def body() -> None:
        async with FakeGateway("A", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            fake.close_connections(4403, "forbidden")
            closed = await client.wait_closed()
            assert closed.rcvd is not None
            assert (closed.rcvd.code, closed.rcvd.reason) == (4403, "forbidden")

    run(body)
