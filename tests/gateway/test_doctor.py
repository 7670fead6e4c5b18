from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.gateway import client as client_module
from desktop.gateway import doctor
from tests.gateway.mini_server import MiniGateway
from tests.gateway.stub_core import StubCore

TOKEN = "doctor-secret-token"
SESSIONS = {
    "sessions": [
        {"id": "a1b2c3d4", "title": "Fix tests", "status": "waiting"},
        {"id": "e5f6a7b8", "title": "Docs", "status": "idle"},
    ]
}


@dataclass(frozen=True)
class Options:
    gateway: str | None = None
    json: bool = False


@pytest.fixture(autouse=True)
def stub_core(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(client_module, "GatewayCore", StubCore)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `hermes` to own
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes-home"))
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("HERMES_TUI_GATEWAY_URL", raising=False)


def test_reports_dialect_sessions_and_never_the_token(arun: Callable[..., Any]) -> None:
    async def scenario() -> tuple[int, str]:
        async with MiniGateway(
            token=TOKEN, results={"session.active_list": SESSIONS}, version="0.19.0"
        ) as gw:
            out = io.StringIO()
            code = await doctor.check(Options(gateway=gw.url), out)
            return code, out.getvalue()

    code, text = arun(scenario())
    assert code == doctor.EXIT_OK
    assert "State:   connected" in text
    assert "Dialect: hermes-0.19" in text
    assert "Version: 0.19.0" in text
    assert "Live sessions: 2" in text
    assert "a1b2c3d4  waiting  Fix tests" in text
    assert "wait on a person" in text
    assert TOKEN not in text
    assert "token=***" in text


def test_json_report(arun: Callable[..., Any]) -> None:
    async def scenario() -> str:
        async with MiniGateway(results={"session.active_list": SESSIONS}) as gw:
            out = io.StringIO()
            assert await doctor.check(Options(gateway=gw.url, json=True), out) == 0
            return out.getvalue()

    data = json.loads(arun(scenario()))
    (gateway,) = data["gateways"]
    assert gateway["state"] == "connected"
    assert gateway["dialect"] == "hermes-0.19"
    assert [s["id"] for s in gateway["sessions"]] == ["a1b2c3d4", "e5f6a7b8"]


def test_unreachable_gateway_exits_1_with_what_to_do(arun: Callable[..., Any]) -> None:
    async def scenario() -> tuple[int, str]:
        server = await MiniGateway().start()
        url = f"ws://127.0.0.1:{server.port}/api/ws?token={TOKEN}"
        await server.stop()
        out = io.StringIO()
        return await doctor.check(Options(gateway=url), out), out.getvalue()

    code, text = arun(scenario())
    assert code == doctor.EXIT_FAILED
    assert "State:   failed" in text
    assert "Nothing is listening" in text
    assert "Is the Hermes gateway running?" in text
    assert "Retrying" not in text
    assert TOKEN not in text


def test_refused_token_exits_1(arun: Callable[..., Any]) -> None:
    async def scenario() -> tuple[int, str]:
        async with MiniGateway(token="another") as gw:
            out = io.StringIO()
            url = f"ws://127.0.0.1:{gw.port}/api/ws?token={TOKEN}"
            return await doctor.check(Options(gateway=url), out), out.getvalue()

    code, text = arun(scenario())
    assert code == doctor.EXIT_FAILED
    assert "refused the token (HTTP 403)" in text
    assert TOKEN not in text


def test_nothing_found_exits_2_and_lists_what_was_tried() -> None:
    out = io.StringIO()
    assert doctor.run(Options(), out) == doctor.EXIT_NOTHING
    text = out.getvalue()
    assert "No Hermes gateway found" in text
    assert "HERMES_TUI_GATEWAY_URL: not set" in text
    assert "is not on PATH" in text
