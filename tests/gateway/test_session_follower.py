"""The session follower: other clients' sessions are followed where that takes nothing away.

Against the fake gateway (a real websockets server) with the real core: on B a session another
surface starts is listed after ``sessions.changed`` and resumed (joining its fan-out), so its
approval reaches the tray and the tray's answer runs the command; on C the live list is read at
connect and after session events; on A nothing but the tray's own sessions is ever resumed.
Listing is driven by frames only: an idle gateway gets no list calls.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import PromptAsked
from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect
from desktop.gateway import doctor
from desktop.gateway.client import ConnectionState
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.session_follower import (
    MAX_FOLLOWED,
    follows_others,
    is_list_changed,
    live_sessions,
)
from desktop.settings.model import GatewayKind
from tests.gateway.fake.support import RawClient, open_b
from tests.gateway.fake_harness import Harness, adopted, running
from tests.gatewaymodel import Command, FakeGateway, PendingRequest
from tests.gatewaymodel.approval_rules import Ending

SCRATCH = "/tmp/hermes-scratch"
READTERM = "[[scenario:readterm]] go"


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="hsf", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def list_calls(h: Harness, method: str) -> int:
    return sum(len(c.requests(method)) for c in h.fake.connections)


def resumed_ids(h: Harness) -> list[str]:
    return [
        str(r["params"].get("session_id"))
        for c in h.fake.connections
        for r in c.requests("session.resume")
    ]


def waiting(h: Harness, session_id: str) -> list[Approval]:
    return [
        a
        for a in h.client.core.approvals()
        if a.session_id == session_id and a.phase is not ApprovalPhase.RESOLVED
    ]


# -- pure parts ------------------------------------------------------------------------------


def test_scope_per_dialect_and_setting() -> None:
    assert follows_others(Dialect.B, True)
    assert follows_others(Dialect.C, True)
    assert follows_others(Dialect.HERMES020, True)
    assert follows_others(None, True)  # until the dialect is known
    assert not follows_others(Dialect.A, True)  # 0.19.0: a session has one viewer
    for dialect in (Dialect.B, Dialect.C, Dialect.HERMES020, None):
        assert not follows_others(dialect, False)


def test_list_changed_is_recognised_exactly() -> None:
    frame = (
        '{"jsonrpc":"2.0","method":"event","params":{"type":"sessions.changed","session_id":""}}'
    )
    assert is_list_changed(frame)
    assert is_list_changed(frame.encode())
    delta = (
        '{"jsonrpc":"2.0","method":"event","params":{"type":"message.delta",'
        '"session_id":"s1","payload":{"text":"sessions.changed"}}}'
    )
    assert not is_list_changed(delta)
    assert not is_list_changed('{"sessions.changed": ')  # broken JSON
    assert not is_list_changed("[" + '"sessions.changed",' * 1000 + "1]")  # too big
    assert not is_list_changed('["sessions.changed"]')
    deep = "[" * 2000 + '"sessions.changed"' + "]" * 2000  # fits the size bound, too deep to parse
    assert not is_list_changed(deep)  # before: RecursionError, and the connection dropped


def test_live_sessions_skips_hostile_rows() -> None:
    rows: list[Any] = [
        {"id": "r1", "session_key": "k1"},
        {"id": "r2"},  # no stored id: a tui_gateway resume needs it
        {"id": 7, "session_key": "k3"},
        "not a row",
        {"id": "x" * 500, "session_key": "k4"},
    ]
    assert live_sessions(Dialect.B, {"sessions": rows}) == {"r1": "k1"}
    assert live_sessions(Dialect.B, {"sessions": "nope"}) == {}
    many = [{"session_id": f"s{i}"} for i in range(MAX_FOLLOWED + 50)]
    assert len(live_sessions(Dialect.C, {"sessions": many})) == MAX_FOLLOWED


# -- against the fake gateway ---------------------------------------------------------------


def test_b_another_surfaces_session_is_followed_and_answered(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.fake.wait_for(lambda: list_calls(h, "session.active_list") >= 1)
            other = h.fake.create_session(cwd=SCRATCH, title="From the Hermes window")
            await h.fake.wait_for(lambda: other.stored_id in resumed_ids(h), what="resumed")
            assert other.sid in adopted(h.client)
            h.fake.submit(other.sid, "[[scenario:single]] go")
            await h.rec.wait_for(lambda: waiting(h, other.sid))
            [row] = waiting(h, other.sid)
            assert h.client.decide(row.key, Choice.ONCE).sent
            await h.fake.wait_for(lambda: h.fake.executed, what="the command ran")
            assert [e.session_id for e in h.fake.executed] == [other.sid]

    arun(scenario())


def test_b_sessions_live_before_connect_are_followed_and_idle_lists_nothing(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home) as h:
            sessions = [h.fake.create_session(title=f"s{i}") for i in range(3)]
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.fake.wait_for(
                lambda: {s.stored_id for s in sessions} <= set(resumed_ids(h)), what="all"
            )
            lists = list_calls(h, "session.active_list")
            await asyncio.sleep(0.3)  # idle: nothing may list on a timer
            assert list_calls(h, "session.active_list") == lists
            assert adopted(h.client) == {s.sid for s in sessions}

    arun(scenario())


def test_b_ended_sessions_leave_and_reconnect_re_adopts_live_ones(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home) as h:
            keep = h.fake.create_session(title="keep")
            gone = h.fake.create_session(title="gone")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: adopted(h.client) == {keep.sid, gone.sid})
            h.fake.reclaim(gone.sid)
            await h.rec.wait_for(lambda: adopted(h.client) == {keep.sid})
            before = resumed_ids(h).count(keep.stored_id)
            h.fake.drop()
            await h.rec.wait_state(ConnectionState.CONNECTED, count=2)
            await h.fake.wait_for(
                lambda: resumed_ids(h).count(keep.stored_id) > before, what="re-adopted"
            )
            second = [r["params"]["session_id"] for r in h.received(-1, "session.resume")]
            assert second == [keep.stored_id]
            assert adopted(h.client) == {keep.sid}

    arun(scenario())


def test_b_only_mine_follows_nothing_else(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with running("B", home, follow_all=False) as h:
            h.fake.create_session(title="not mine")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            own = await h.client.create_session(SCRATCH, "")
            await h.client.call(
                "session.usage", {"session_id": own}
            )  # a round trip after sessions.changed arrived
            assert list_calls(h, "session.active_list") == 0
            assert resumed_ids(h) == []
            assert adopted(h.client) == set()
            assert h.client.core.session(own) is not None

    arun(scenario())


def test_c_lists_at_connect_and_after_session_events(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with running("C", home) as h:
            first = h.fake.create_session(title="first")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.fake.wait_for(lambda: first.sid in resumed_ids(h), what="first resumed")
            later = h.fake.create_session(title="later")
            h.fake.submit(first.sid, "[[scenario:single]] go")  # events on a followed session
            await h.rec.wait_for(lambda: waiting(h, first.sid), timeout=10.0)
            await h.fake.wait_for(
                lambda: later.sid in resumed_ids(h), timeout=10.0, what="later resumed"
            )
            assert adopted(h.client) == {first.sid, later.sid}

    arun(scenario(), timeout=30.0)


def test_a_never_resumes_another_clients_session(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with running("A", home) as h:
            other = h.fake.create_session(title="theirs")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            own = await h.client.create_session(SCRATCH, "")
            h.fake.submit(other.sid, "")
            await h.client.call(
                "session.usage", {"session_id": own}
            )  # a round trip after the handshake's effects
            assert resumed_ids(h) == []
            assert list_calls(h, "session.active_list") == 0
            assert not h.client.follower.follows_others
            assert h.client.core.session(own) is not None

    arun(scenario())


def test_doctor_reports_another_clients_waiting_approval_without_joining(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> doctor.GatewayReport:
        async with FakeGateway("B", speed=0.002) as fake:
            other = fake.create_session(title="From the Hermes window")
            request = fake.raise_approval(other.sid, Command("rm -rf /tmp/x", "recursive delete"))
            endpoint = GatewayEndpoint("fake-b", "Fake B", GatewayKind.URL, url=fake.url)
            report = await doctor.check_endpoint(endpoint, timeout=10.0)
            assert request.is_open, "the doctor answered something"
            assert all(not c.requests("session.resume") for c in fake.connections)
            assert all(not c.requests("approval.respond") for c in fake.connections)
            return report

    report = arun(scenario())
    assert report.state == "connected"
    assert report.pending_approvals == [
        {"session_id": report.sessions[0]["id"], "command": "rm -rf /tmp/x", "phase": "waiting"}
    ]


async def adopted_asks(h: Any, scenario: str, kind: Callable[[Any], bool]) -> list[Any]:
    """Another client's session, adopted by the tray, runs ``scenario``; its ``kind`` requests."""
    other = h.fake.create_session(title="From the Hermes window")
    await h.rec.wait_state(ConnectionState.CONNECTED)
    await h.rec.wait_for(lambda: other.sid in adopted(h.client))
    h.fake.submit(other.sid, f"[[scenario:{scenario}]] go")
    return await h.fake.wait_for(
        lambda: [r for r in h.fake.requests if kind(r)], what=f"{scenario} request"
    )


def tray_answers(h: Harness, srq_id: str) -> list[dict[str, Any]]:
    """What the tray (the fake's first connection) sent for server request ``srq_id``."""
    received = h.fake.connections[0].received
    return [f for f in received if isinstance(f, dict) and f.get("id") == srq_id]


def test_b_the_window_still_answers_a_window_request_the_tray_declined(
    home: Path, arun: Callable[..., Any]
) -> None:
    """Fan-out: the tray's 4404 is counted as a decline, so the window's answer wins."""

    async def scenario() -> None:
        async with running("B", home, speed=0.05) as h:  # the request would wait 1.5 s
            await h.rec.wait_state(ConnectionState.CONNECTED)
            async with RawClient.connect(h.fake.url) as window:
                sid = await open_b(window)
                await h.rec.wait_for(lambda: sid in adopted(h.client))
                await window.result("prompt.submit", {"session_id": sid, "text": READTERM})
                (asked,) = await window.requests(1, "terminal.read")
                [read] = [r for r in h.fake.requests if r.srq_id == asked["id"]]
                await h.fake.wait_for(lambda: read.declined, what="the tray's decline")
                assert read.is_open
                await window.answer(asked["id"], {"value": "$ ls"})
                done = await window.event(
                    "tool.complete", lambda p: p["payload"]["name"] == "read_terminal"
                )
                assert done["payload"]["result"] == {"value": "$ ls"}
                [answer] = tray_answers(h, asked["id"])
                assert (answer["error"]["code"], "result" in answer) == (4404, False)

    arun(scenario())


def test_b_with_no_window_the_agent_hears_so_at_once_in_own_and_adopted_sessions(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home, speed=0.05) as h:
            other = h.fake.create_session(title="From the Hermes window")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: other.sid in adopted(h.client))
            h.fake.submit(other.sid, READTERM)
            own = await h.client.create_session(SCRATCH, READTERM)

            def ended() -> list[PendingRequest] | None:
                done = [r for r in h.fake.requests if r.method != "approval" and not r.is_open]
                return done if len(done) == 2 else None

            reads = await h.fake.wait_for(ended, what="both window requests ended")
            assert {r.session.sid for r in reads} == {own, other.sid}
            for read in reads:
                assert read.outcome is not None
                assert read.outcome.via == Ending.FRAME  # not the deadline
                assert read.outcome.detail["code"] == 4404
                assert [a["error"]["code"] for a in tray_answers(h, read.srq_id)] == [4404]

    arun(scenario())


def test_b_a_session_the_tray_starts_is_its_own_when_the_list_beats_the_create_reply(
    home: Path, arun: Callable[..., Any]
) -> None:
    """tui_gateway can broadcast sessions.changed, and answer a list, before the create reply."""

    async def scenario() -> None:
        async with running("B", home, speed=0.05) as h:
            await h.rec.wait_state(ConnectionState.CONNECTED)
            h.fake.set_response_delay("session.create", 20.0)  # 1 s
            creating = asyncio.ensure_future(h.client.create_session(SCRATCH, ""))
            [new] = await h.fake.wait_for(lambda: list(h.fake.sessions.values()) or None)
            h.fake.world.pub.broadcast("sessions.changed")  # ahead of the create reply
            await h.rec.wait_for(lambda: new.sid in adopted(h.client))
            assert not creating.done()  # the race happened: listed and adopted first
            assert await creating == new.sid
            assert h.client.core.started_here(new.sid)
            assert new.sid not in adopted(h.client)
            h.fake.set_response_delay("session.create", None)
            h.fake.drop()
            await h.rec.wait_state(ConnectionState.CONNECTED, count=2)
            await h.fake.wait_for(
                lambda: [new.stored_id] == resumed_ids_on(h, -1), what="resumed as its own"
            )
            assert adopted(h.client) == set()

    arun(scenario())


def resumed_ids_on(h: Harness, conn: int) -> list[str]:
    return [str(r["params"].get("session_id")) for r in h.received(conn, "session.resume")]


def test_c_re_follows_after_a_reconnect_with_a_fresh_subscription(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("C", home) as h:
            other = h.fake.create_session(title="theirs")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: other.sid in adopted(h.client))
            h.fake.drop()
            await h.rec.wait_state(ConnectionState.CONNECTED, count=2)
            await h.fake.wait_for(
                lambda: [r for r in h.received(-1, "session.resume")], what="resumed again"
            )
            [again] = h.received(-1, "session.resume")
            assert again["params"]["session_id"] == other.sid
            h.fake.submit(other.sid, "[[scenario:single]] go")
            await h.rec.wait_for(lambda: waiting(h, other.sid), timeout=10.0)

    arun(scenario(), timeout=30.0)


def test_b_a_clarify_of_an_adopted_session_is_shown_and_answered_only_by_the_person(
    home: Path, arun: Callable[..., Any]
) -> None:
    """Not screened like window requests: the core holds it (no refusal) until a person answers."""

    async def scenario() -> None:
        async with running("B", home) as h:
            [question] = await adopted_asks(h, "clarify", lambda r: r.method == "clarify")
            other = question.session
            await h.rec.wait_for(lambda: h.rec.of_type(PromptAsked))
            [prompt] = [e.prompt for e in h.rec.of_type(PromptAsked)]
            assert (prompt.session_id, prompt.answerable) == (other.sid, True)
            assert question.is_open  # nothing was sent for it on its own
            assert h.client.answer_prompt(prompt.key, "main").sent
            await h.fake.wait_for(lambda: h.fake.clarify_answers, what="the answer")
            assert h.fake.clarify_answers == [{"answers": {"q0": "main"}, "outcome": "submitted"}]

    arun(scenario())
