"""A clarify question from the fake B gateway, over a real websocket, answered from the bridge.

The fake sends the ``clarify`` server request the way iot 0.22.2.post1 does
(``questions: [{qid, question, choices, multi_select}]``) and checks the answer's shape: its
tool result carries the answer only when it is ``{answers: {qid: text}}``. One coroutine per
test (see ``test_bridge_gateway``).
"""

from __future__ import annotations

import asyncio

from desktop.core import prompt_book
from desktop.core.model import PromptKind, SessionStatus
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.model.bridge_events import PromptUpdate
from desktop.model.snapshot import Link
from desktop.model.tray_status import tray_status
from desktop.settings.model import GatewayKind, Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import client_factory_for
from tests.gatewaymodel import FakeGateway
from tests.gatewaymodel.scenarios import default_book
from tests.gatewaymodel.script import Clarify, Turn
from tests.waiting import drain, holds, poll_until


def endpoint(fake: FakeGateway) -> GatewayEndpoint:
    return GatewayEndpoint(
        "demo",
        "Demo",
        GatewayKind.DEMO,
        url=fake.base_url,
        token=TokenSource(TokenKind.INLINE, value=fake.token),
    )


def clarify_frames(fake: FakeGateway) -> list[dict]:
    """Every response the gateway received to a ``clarify`` request."""
    ids = {r.srq_id for r in fake.world.requests if r.method == "clarify"}
    return [
        frame
        for record in fake.connections
        for frame in record.received
        if isinstance(frame, dict) and frame.get("id") in ids
    ]


async def started(
    fake: FakeGateway,
) -> tuple[GatewayBridge, list[PromptUpdate], list[PromptUpdate]]:
    bridge = GatewayBridge(client_factory_for(Settings))
    asked: list[PromptUpdate] = []
    ended: list[PromptUpdate] = []
    bridge.prompt_asked.connect(asked.append)
    bridge.prompt_ended.connect(ended.append)
    bridge.add_gateway(endpoint(fake))
    bridge.start(asyncio.get_running_loop())
    await holds(lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed)
    return bridge, asked, ended


async def stop(bridge: GatewayBridge, fake: FakeGateway) -> None:
    await bridge.aclose()
    await fake.stop()
    await drain()
    bridge.deleteLater()


def test_a_clarify_is_shown_then_answered_from_the_bridge_and_the_gateway_takes_it(qloop, arun):
    async def scenario():
        fake = await FakeGateway("B", speed=0.01).start()
        bridge, asked, ended = await started(fake)
        bridge.new_task("demo", "/tmp", "[[scenario:clarify]] deploy")
        await holds(lambda: asked, bridge.prompt_asked)
        update = asked[-1]
        prompt = update.prompt
        assert (prompt.kind, prompt.question) == (
            PromptKind.CLARIFY,
            "Which branch should I deploy?",
        )
        assert (prompt.choices, prompt.answerable) == (("main", "staging"), True)
        view = bridge.snapshot.gateway("demo")
        session = view.session(prompt.session_id)
        assert session is not None
        assert session.status is SessionStatus.WAITING
        status = tray_status(bridge.snapshot)
        assert (status.icon_name, status.count) == ("waiting", 1)
        assert "waiting for your answer: Which branch should I deploy?" in status.tooltip
        result = bridge.answer_prompt("demo", prompt.key, "staging")
        assert result.sent, result.reason
        await poll_until(lambda: bool(fake.clarify_answers))
        assert fake.clarify_answers == [{"answers": {"q0": "staging"}, "outcome": "submitted"}]
        assert clarify_frames(fake) == [
            {
                "jsonrpc": "2.0",
                "id": fake.world.requests[-1].srq_id,
                "result": {"answers": {"q0": "staging"}},
            }
        ]
        assert [u.ended for u in ended] == [prompt_book.ANSWERED]
        again = bridge.answer_prompt("demo", prompt.key, "main")
        assert not again.sent
        assert again.reason.startswith("expired")
        await fake.wait_for_idle(prompt.session_id)
        assert len(clarify_frames(fake)) == 1
        assert not any(g.prompts for g in bridge.snapshot.gateways)
        await stop(bridge, fake)

    arun(scenario(), timeout=30)


def test_a_clarify_hermes_stopped_waiting_for_says_expired_and_sends_nothing(qloop, arun):
    async def scenario():
        book = default_book()
        book.scenarios["quick"] = Turn([Clarify("Still there?", timeout=20.0)], reply="gave up")
        fake = await FakeGateway("B", speed=0.01, turns=book).start()
        bridge, asked, ended = await started(fake)
        bridge.new_task("demo", "/tmp", "[[scenario:quick]] ask")
        await holds(lambda: asked, bridge.prompt_asked)
        key = asked[-1].prompt.key
        await holds(lambda: ended, bridge.prompt_ended, timeout=10)
        assert [u.ended for u in ended] == [prompt_book.EXPIRED]
        result = bridge.answer_prompt("demo", key, "yes")
        assert not result.sent
        assert result.reason.startswith("expired")
        await poll_until(lambda: bool(fake.clarify_answers))
        assert fake.clarify_answers == [{"answers": {}, "outcome": "timed_out"}]
        assert clarify_frames(fake) == []
        await stop(bridge, fake)

    arun(scenario(), timeout=30)
