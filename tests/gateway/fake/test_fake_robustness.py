"""The fake survives whatever a client sends, and a long run keeps its memory bounded."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gateway.fake.support import RawClient, fake_and_client, open_b, ready, run
from tests.gatewaymodel import Command, FakeGateway, Turn

METHODS = [
    "ping", "session.create", "session.resume", "session.list", "session.active_list",
    "session.close", "session.interrupt", "session.usage", "session.events.since",
    "prompt.submit", "approval.respond", "approval.pending", "request.answer",
    "config.set", "config.get", "client.capabilities", "no.such.method",
]  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
JSONISH = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
PARAMS = st.dictionaries(
    st.sampled_from(["session_id", "key", "value", "scope", "choice", "all", "request_id",
                     "last_seen", "text", "id", "result", "server_requests", "source"]),
    JSONISH,
    max_size=4,
)  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dialect=st.sampled_from(["A", "B", "C"]),
    calls=st.lists(st.tuples(st.sampled_from(METHODS), PARAMS | JSONISH), min_size=1, max_size=8),
)
def test_every_request_gets_exactly_one_reply_and_the_gateway_stays_up(
    dialect: str, calls: list[tuple[str, Any]]
) -> None:
    async def body() -> None:
        async with fake_and_client(dialect) as (_fake, client):
            await ready(client)
            ids = []
            for number, (method, params) in enumerate(calls, start=1000):
                frame = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
                ids.append(number)
                await client.send(json.dumps(frame))
            for rpc_id in ids:
                reply = await client.reply(rpc_id)
                assert ("result" in reply) != ("error" in reply)
            assert await client.result("ping") == {"pong": True}
            replies = [f for f in client.frames if isinstance(f, dict) and f.get("id") in ids]
            assert len(replies) == len(ids)

    run(body)


def test_history_bounds_what_a_long_running_gateway_keeps():
    async def body() -> None:
        rm = Command("rm -rf /tmp/hermes-scratch/a", "delete in root path", duration=0)
        async with (
            FakeGateway("B", speed=0, history=3) as fake,
            RawClient.connect(fake.url) as client,
        ):
            sid = await open_b(client)
            for round_ in range(6):
                fake.queue_turn(Turn([rm]))
                await client.result("prompt.submit", {"session_id": sid, "text": str(round_)})
                (request,) = await fake.wait_for_requests(1)
                fake.world.reqs.answer(request, "once", via="test")
                await fake.wait_for_idle(sid)
            assert len(fake.requests) == 3
            assert len(fake.executed) == 3
            assert fake.world.connections[0].sent_count > 40  # far more went out …
            assert len(fake.connections[0].sent) < 15  # … than is kept (in-flight frames + 3)
            assert fake.open_requests() == []

    run(body)
