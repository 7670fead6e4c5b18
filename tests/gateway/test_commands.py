"""Per-dialect method and params of the session requests (protocol.md §2-§5), as sent."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.gateway.client import ConnectionState, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import NotSentError, RpcCallError, UnsupportedError
from desktop.settings.model import GatewayKind
from tests.gateway.fake_harness import Harness, running


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hcm", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def sent(h: Harness, method: str) -> list[dict[str, Any]]:
    return [r["params"] for c in h.fake.connections for r in c.requests(method)]


@pytest.mark.parametrize("dialect", ["A", "B", "C"])
def test_each_dialect_gets_its_own_params(dialect: str, home: Path, arun: Any) -> None:
    async def scenario() -> None:
        async with running(dialect, home, follow_all=False) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            sid = await h.client.create_session("/w", "")
            await h.client.set_yolo(sid, True)
            with contextlib.suppress(RpcCallError):  # A/B have no config.get yolo (4002)
                await h.client.read_yolo(sid)
            await h.client.list_live_sessions()
            await h.client.interrupt(sid)
            tui = dialect != "C"
            if tui:  # sessions that outlive the socket; yolo scoped to the session
                create = {"source": "desktop", "cwd": "/w", "close_on_disconnect": False}
                yolo = {"session_id": sid, "key": "yolo", "value": "on", "scope": "session"}
                interrupt: dict[str, Any] = {"session_id": sid}
            else:  # a closed key set; the interrupt names the generation it ends
                create = {"source": "gui", "cwd": "/w"}
                yolo = {"session_id": sid, "key": "yolo", "value": "on"}
                generation = h.client.core.session(sid).execution_generation  # type: ignore[union-attr]
                interrupt = {"session_id": sid, "execution_generation": generation}
                assert generation is not None
            assert sent(h, "session.create") == [create]
            assert sent(h, "config.set") == [yolo]
            assert sent(h, "config.get")[-1] == {"session_id": sid, "key": "yolo"}
            assert sent(h, "session.interrupt") == [interrupt]
            listed = sent(h, "session.active_list" if tui else "session.list")
            assert listed == ([{}] if tui else [{"limit": 200}])
            if tui:
                await h.client.set_approval_mode("smart")
                assert sent(h, "config.set")[-1] == {"key": "approvals.mode", "value": "smart"}
                for mode in ("yolo", "auto"):  # a mode the core does not know is never sent
                    with pytest.raises(ValueError, match="approval mode must be one of"):
                        await h.client.set_approval_mode(mode)
            else:
                with pytest.raises(UnsupportedError, match=r"config\.yaml"):
                    await h.client.set_approval_mode("manual")
                h.client.core.watch_session("no-snapshot-yet")
                with pytest.raises(UnsupportedError, match="execution generation"):
                    await h.client.interrupt("no-snapshot-yet")
                assert len(sent(h, "session.interrupt")) == 1
            assert len(sent(h, "config.set")) == (2 if tui else 1)

    arun(scenario())


def test_session_requests_send_nothing_when_not_connected(arun: Any) -> None:
    endpoint = GatewayEndpoint("g1", "Local", GatewayKind.URL, url="ws://127.0.0.1:9/api/ws")
    client = GatewayClient(endpoint, listener=None)  # type: ignore[arg-type]  # never called
    for request in (
        client.set_yolo("s1", True),
        client.interrupt("s1"),
        client.create_session("/w", "go"),
        client.list_live_sessions(),
    ):
        with pytest.raises(NotSentError):
            arun(request)
    assert client.core.data_to_send() == []
