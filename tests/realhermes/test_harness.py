"""Fast checks of the peer harness itself (no Hermes process): the fake model, the network
guard, the venv patch and cache. If these break, the real-Hermes tests would fail obscurely."""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.peers.fake_model import AUX_TEXT, FakeModel, Turn, commands_script, todo
from tests.peers.fake_script import locate_turn, resolve_call
from tests.peers.hermes_server import HermesServer, HermesStartError
from tests.peers.hermes_venv import PEERS, HermesVenv, _patch_iot_pathlib, ensure_venv
from tests.peers.netguard import ProxyCanary, connected_endpoints, is_foreign, parse_table

pytestmark = pytest.mark.timeout(30)


def post(url: str, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    with opener.open(request, timeout=10) as response:
        return bytes(response.read())


def test_turn_is_counted_after_the_marked_user_message() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "[[script:s1]] go"}]},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "ok"},
    ]
    assert locate_turn(messages) == ("s1", 1)
    assert locate_turn([{"role": "user", "content": "no marker"}]) == (None, 0)


def test_todo_call_follows_the_tools_offered() -> None:
    plan = todo(("1", "x", "pending"))
    assert resolve_call(plan, ["terminal", "todo"]).name == "todo"
    wrapped = resolve_call(plan, ["terminal", "tool_call"])
    assert wrapped.name == "tool_call"
    assert wrapped.arguments["calls"][0]["name"] == "todo_list"


def test_streamed_tool_calls_reassemble_to_the_scripted_commands(fake_model: FakeModel) -> None:
    fake_model.add_script("two", commands_script(["rm -rf /x/a", "chmod 777 /x/b"]))
    tools = [{"type": "function", "function": {"name": "terminal"}}]
    body = {"model": "fake-model", "stream": True, "tools": tools,
            "messages": [{"role": "user", "content": fake_model.prompt("two")}]}  # fmt: skip
    raw = post(f"{fake_model.base_url}/chat/completions", body).decode()
    chunks = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: {")]
    assert raw.rstrip().endswith("data: [DONE]")
    args: dict[int, str] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for call in choice["delta"].get("tool_calls", []):
                args[call["index"]] = args.get(call["index"], "") + call["function"]["arguments"]
    assert [json.loads(a)["command"] for _, a in sorted(args.items())] == [
        "rm -rf /x/a",
        "chmod 777 /x/b",
    ]
    assert chunks[-1]["usage"]["total_tokens"] == 1050
    [recorded] = fake_model.chat_requests("two")
    assert recorded.turn == 0


def test_auxiliary_call_without_tools_gets_plain_text(fake_model: FakeModel) -> None:
    fake_model.add_script("t", [Turn(text="unused")])
    body = {"model": "m", "messages": [{"role": "user", "content": "[[script:t]] title?"}]}
    answer = json.loads(post(f"{fake_model.base_url}/chat/completions", body))
    assert answer["choices"][0]["message"]["content"] == AUX_TEXT
    assert fake_model.chat_requests() == []  # only tool-offering calls count as script turns


def test_delayed_turn_is_released_by_stop() -> None:
    model = FakeModel().start()
    model.add_script("slow", [Turn(text="late", delay_s=300)])
    tools = [{"type": "function", "function": {"name": "terminal"}}]
    body = {
        "model": "m",
        "tools": tools,
        "messages": [{"role": "user", "content": "[[script:slow]]"}],
    }
    sock = socket.create_connection(("127.0.0.1", model.port), timeout=10)
    data = json.dumps(body).encode()
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    model.wait_for(lambda reqs: len(reqs) == 1, timeout=10)
    started = time.monotonic()
    model.stop()
    assert time.monotonic() - started < 10
    assert sock.recv(100) == b""  # held answer dropped, connection closed
    sock.close()


def test_guard_parses_proc_tables_and_flags_only_foreign_remotes() -> None:
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"  # noqa: E501
    rows = [
        "0: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000 0 0 111 1",
        "1: 0100007F:1F91 0101A8C0:01BB 02 00000000:00000000 00:00000000 00000000 0 0 222 1",
        "2: 00000000:1F92 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 333 1",
    ]
    found = parse_table("tcp", header + "\n".join(rows), {111: 1, 222: 1, 333: 1})
    assert [e.remote for e in found] == ["127.0.0.1:50000", "192.168.1.1:443"]
    assert [is_foreign(e) for e in found] == [False, True]


def test_guard_sees_a_live_loopback_connection_of_this_process() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            seen = connected_endpoints({os.getpid()})
    assert any(e.remote == f"127.0.0.1:{port}" and not is_foreign(e) for e in seen)


def test_proxy_canary_records_what_a_client_tried_to_reach() -> None:
    canary = ProxyCanary()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": canary.url}))
    with pytest.raises(urllib.error.HTTPError):
        opener.open("http://updates.example.invalid/check", timeout=10)
    attempts = canary.close()
    assert attempts == ["GET http://updates.example.invalid/check HTTP/1.1"]


def test_iot_patch_adds_path_import_after_docstring_and_future(tmp_path: Path) -> None:
    target = tmp_path / "tui_gateway" / "methods_onboarding.py"
    target.parent.mkdir()
    target.write_text('"""Doc."""\nfrom __future__ import annotations\n\ndef f(p: Path): ...\n')
    assert _patch_iot_pathlib(tmp_path) is True
    lines = target.read_text().splitlines()
    assert lines[:3] == [
        '"""Doc."""',
        "from __future__ import annotations",
        "from pathlib import Path  # hermes-tray test patch",
    ]
    assert _patch_iot_pathlib(tmp_path) is False  # idempotent


@pytest.mark.realhermes
@pytest.mark.timeout(600)
def test_second_ensure_venv_is_cached() -> None:
    ensure_venv("0.19.0")
    started = time.monotonic()
    again = ensure_venv("0.19.0")
    assert again.cached
    assert again.hermes.exists()
    assert time.monotonic() - started < 1.0


def fake_venv(tmp_path: Path, script: str) -> HermesVenv:
    """A stand-in venv whose ``hermes`` is a shell script, to exercise start/stop bounds."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    hermes = bin_dir / "hermes"
    hermes.write_text("#!/bin/sh\n" + script)
    hermes.chmod(0o755)
    return HermesVenv(PEERS["0.19.0"], tmp_path / "venv", 0.0, cached=True)


def test_silent_gateway_fails_start_within_its_timeout(tmp_path: Path) -> None:
    server = HermesServer(
        fake_venv(tmp_path, "echo booting; exec sleep 600\n"), tmp_path / "gw", "x"
    )
    started = time.monotonic()
    with pytest.raises(HermesStartError, match="silent for 1s") as caught:
        server.start(timeout=1.0)
    assert time.monotonic() - started < 10
    assert "booting" in str(caught.value)  # the log tail explains what happened
    assert server.pid is None  # stopped and reaped


def test_gateway_ignoring_sigterm_is_killed(tmp_path: Path) -> None:
    script = "trap '' TERM\necho 'HERMES_BACKEND_READY port=1'\nexec sleep 600\n"
    server = HermesServer(fake_venv(tmp_path, script), tmp_path / "gw", "x").start(timeout=10)
    assert server.port == 1
    assert "?token=" in server.url
    assert server.token not in repr(server)
    pid = server.pid
    assert pid is not None
    started = time.monotonic()
    server.stop(timeout=0.5)
    assert time.monotonic() - started < 10
    assert not Path(f"/proc/{pid}").exists()
