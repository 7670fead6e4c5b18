from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError, InvalidStatus

from desktop.gateway.dialer import Dialer
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import ConnectError
from desktop.gateway.supervisor import OwnedBackend
from desktop.platform.paths import log_dir
from desktop.settings.model import GatewayKind
from tests.gateway.fake_hermes import fake_env, write_fake_hermes


def _backend(tmp_path: Path, mode: str = "ok", **kwargs: Any) -> OwnedBackend:
    exe = write_fake_hermes(tmp_path)
    return OwnedBackend(str(exe), name="t1", environ=fake_env(tmp_path, mode), **kwargs)


def started(tmp_path: Path) -> list[list[str]]:
    """The argv of every child the fake hermes saw start."""
    return [json.loads(line) for line in (tmp_path / "argv.jsonl").read_text().splitlines()]


def token_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["token"][0]


def test_starts_reads_ready_and_serves_with_the_minted_token(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    backend = _backend(tmp_path)

    async def scenario() -> None:
        try:
            url = await backend.ensure_running()
            assert url.startswith("ws://127.0.0.1:")
            async with connect(url, proxy=None) as ws:
                ready = json.loads(await ws.recv())
                assert ready["params"]["type"] == "gateway.ready"
            wrong = url.replace(token_of(url), "not-the-token")
            with pytest.raises(InvalidStatus) as info:
                await connect(wrong, proxy=None)
            assert info.value.response.status_code == 403
            assert await backend.ensure_running() == url  # still running: not restarted
            assert len(started(tmp_path)) == 1
        finally:
            await backend.stop()
        assert not backend.running

    arun(scenario())
    assert started(tmp_path) == [["serve", "--host", "127.0.0.1", "--port", "0", "--isolated"]]
    log_text = backend.log_path.read_text()
    assert "HERMES_BACKEND_READY" in log_text
    assert token_of(backend.url()) not in log_text  # the child printed it; the log masks it
    assert backend.log_path.parent == tmp_path / "logs"


def test_a_crashed_backend_is_restarted_with_a_fresh_token(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    backend = _backend(tmp_path)

    async def scenario() -> None:
        try:
            first = await backend.ensure_running()
            first_pid = backend.pid
            async with connect(first, proxy=None) as ws:
                await ws.recv()
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "crash"}))
                with pytest.raises(ConnectionClosedError):
                    await ws.recv()
            assert backend._proc is not None
            assert await backend._proc.wait() == 3
            second = await backend.ensure_running()
            assert len(started(tmp_path)) == 2
            assert backend.pid != first_pid
            assert token_of(second) != token_of(first)
            async with connect(second, proxy=None) as ws:
                assert json.loads(await ws.recv())["params"]["type"] == "gateway.ready"
        finally:
            await backend.stop()

    arun(scenario())


def test_exit_before_ready_reports_the_log(tmp_path: Path, arun: Callable[..., Any]) -> None:
    backend = _backend(tmp_path, "exit")
    with pytest.raises(ConnectError, match="exited with code 2") as info:
        arun(backend.ensure_running())
    assert str(backend.log_path) in str(info.value)
    assert not backend.running


def test_no_ready_line_times_out_and_stops_the_child(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    backend = _backend(tmp_path, "silent", ready_timeout=1.0)
    with pytest.raises(ConnectError, match="no READY line"):
        arun(backend.ensure_running())
    assert backend.pid is None


def test_missing_executable_is_fatal(tmp_path: Path, arun: Callable[..., Any]) -> None:
    backend = OwnedBackend(str(tmp_path / "nope"), environ=fake_env(tmp_path))
    with pytest.raises(ConnectError, match="Could not start") as info:
        arun(backend.ensure_running())
    assert info.value.fatal


def test_an_owned_gateway_without_hermes_fails_saying_what_to_install(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    absent = str(tmp_path / "absent")
    dialer = Dialer(GatewayEndpoint("own", "Own", GatewayKind.OWNED, hermes_executable=absent))
    with pytest.raises(ConnectError, match="Cannot find the Hermes executable") as info:
        arun(dialer.plan())
    assert info.value.fatal


def test_log_dir(tmp_path: Path) -> None:
    assert log_dir({"HERMES_TRAY_LOG_DIR": str(tmp_path)}) == tmp_path
    assert log_dir({}).name in ("log", "hermes-tray", "Logs")
