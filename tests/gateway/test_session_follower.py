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

from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect
from desktop.demo import Command
from desktop.gateway import doctor
from desktop.gateway.client import ConnectionState
from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint
from desktop.gateway.session_follower import (
    MAX_FOLLOWED,
    follow_scope,
    foreign_request_session,
    is_list_changed,
    live_sessions,
)
from tests.gateway.fake_harness import Harness, running
from tests.gatewaymodel import FakeGateway

SCRATCH = "/tmp/hermes-scratch"


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
    assert follow_scope(Dialect.B, True).others
    assert follow_scope(Dialect.C, True).others
    assert not follow_scope(Dialect.B, False).others
    a = follow_scope(Dialect.A, True)
    assert not a.others
    assert "take its events away" in a.reason
    assert "Settings" in follow_scope(Dialect.C, False).reason
    observed = follow_scope(Dialect.HERMES020, True)
    assert observed.others
    assert "answers it by id" in observed.reason
    assert not follow_scope(Dialect.HERMES020, False).others


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
            assert other.sid in h.client.follower.adopted
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
            assert h.client.follower.adopted == {s.sid for s in sessions}

    arun(scenario())


def test_b_ended_sessions_leave_and_reconnect_re_adopts_live_ones(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home) as h:
            keep = h.fake.create_session(title="keep")
            gone = h.fake.create_session(title="gone")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: h.client.follower.adopted == {keep.sid, gone.sid})
            h.fake.reclaim(gone.sid)
            await h.rec.wait_for(lambda: h.client.follower.adopted == {keep.sid})
            before = resumed_ids(h).count(keep.stored_id)
            h.fake.drop()
            await h.rec.wait_state(ConnectionState.CONNECTED, count=2)
            await h.fake.wait_for(
                lambda: resumed_ids(h).count(keep.stored_id) > before, what="re-adopted"
            )
            second = [r["params"]["session_id"] for r in h.received(-1, "session.resume")]
            assert second == [keep.stored_id]
            assert h.client.follower.adopted == {keep.sid}

    arun(scenario())


def test_b_only_mine_follows_nothing_else(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with running("B", home) as h:
            h.client.follower.set_follow_all(False)
            h.fake.create_session(title="not mine")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            own = await h.client.create_session(SCRATCH, "")
            await h.client.refresh_usage(own)  # a round trip after sessions.changed arrived
            assert list_calls(h, "session.active_list") == 0
            assert resumed_ids(h) == []
            assert h.client.follower.adopted == frozenset()
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
            assert h.client.follower.adopted == {first.sid, later.sid}

    arun(scenario(), timeout=30.0)


def test_a_never_resumes_another_clients_session(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        async with running("A", home) as h:
            other = h.fake.create_session(title="theirs")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            own = await h.client.create_session(SCRATCH, "")
            h.fake.submit(other.sid, "")
            await h.client.refresh_usage(own)  # a round trip after the handshake's effects
            assert resumed_ids(h) == []
            assert list_calls(h, "session.active_list") == 0
            assert not h.client.follower.scope.others
            assert h.client.core.session(own) is not None

    arun(scenario())


def test_doctor_reports_another_clients_waiting_approval_without_joining(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> doctor.GatewayReport:
        async with FakeGateway("B", speed=0.002) as fake:
            other = fake.create_session(title="From the Hermes window")
            request = fake.raise_approval(other.sid, Command("rm -rf /tmp/x", "recursive delete"))
            endpoint = GatewayEndpoint("fake-b", "Fake B", EndpointKind.URL, url=fake.url)
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
    await h.rec.wait_for(lambda: other.sid in h.client.follower.adopted)
    h.fake.submit(other.sid, f"[[scenario:{scenario}]] go")
    return await h.fake.wait_for(
        lambda: [r for r in h.fake.requests if kind(r)], what=f"{scenario} request"
    )


def test_b_window_requests_of_an_adopted_session_are_left_to_its_window(
    home: Path, arun: Callable[..., Any]
) -> None:
    """Fan-out: the first answer wins, so the tray's -32601 would beat the window's answer."""

    async def scenario() -> None:
        async with running("B", home) as h:
            [window] = await adopted_asks(h, "readterm", lambda r: r.method != "approval")
            await h.fake.wait_for(lambda: not window.is_open, what="the window request to end")
            tray_answers = [
                f
                for c in h.fake.connections
                for f in c.received
                if isinstance(f, dict) and f.get("id") == window.srq_id
            ]
            assert tray_answers == []
            assert h.client.follower.left_to_owner == 1
            own = await h.client.create_session(SCRATCH, "[[scenario:readterm]] go")
            await h.fake.wait_for(
                lambda: [
                    r for r in h.fake.requests if r.method != "approval" and r.session.sid == own
                ],
                what="own window request",
            )
            [mine] = [r for r in h.fake.requests if r.method != "approval" and r.session.sid == own]
            await h.fake.wait_for(
                lambda: any(
                    isinstance(f, dict) and f.get("id") == mine.srq_id
                    for c in h.fake.connections
                    for f in c.received
                ),
                what="the tray refuses its own session's window request at once",
            )

    arun(scenario())


def test_foreign_request_session_only_names_non_approval_server_requests() -> None:
    read = '{"jsonrpc":"2.0","id":"srq-1a2b","method":"terminal.read","params":{"session_id":"s1"}}'
    assert foreign_request_session(read) == "s1"
    approval = '{"jsonrpc":"2.0","id":"srq-1a2b","method":"approval","params":{"session_id":"s1"}}'
    assert foreign_request_session(approval) == ""
    event = '{"jsonrpc":"2.0","method":"event","params":{"type":"x","session_id":"srq-"}}'
    assert foreign_request_session(event) == ""
    assert foreign_request_session('{"id": 3, "result": {"srq-": 1}}') == ""
    assert foreign_request_session("srq- not json") == ""


def test_b_window_request_re_delivered_by_the_adopting_resume_is_left_alone(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("B", home, speed=0.05) as h:  # the window request waits 1.5 s
            other = h.fake.create_session(title="From the Hermes window")
            h.fake.submit(other.sid, "[[scenario:readterm]] go")
            [window] = await h.fake.wait_for(
                lambda: [r for r in h.fake.requests if r.method != "approval"], what="window"
            )
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: h.client.follower.left_to_owner == 1)
            await h.fake.wait_for(lambda: not window.is_open, what="the window request to end")
            assert not [
                f
                for c in h.fake.connections
                for f in c.received
                if isinstance(f, dict) and f.get("id") == window.srq_id
            ]
            assert other.sid in h.client.follower.adopted

    arun(scenario())


def test_c_re_follows_after_a_reconnect_with_a_fresh_subscription(
    home: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("C", home) as h:
            other = h.fake.create_session(title="theirs")
            await h.rec.wait_state(ConnectionState.CONNECTED)
            await h.rec.wait_for(lambda: other.sid in h.client.follower.adopted)
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
            await h.rec.wait_for(lambda: h.client.core.prompts())
            [prompt] = h.client.core.prompts()
            assert (prompt.session_id, prompt.answerable) == (other.sid, True)
            assert h.client.follower.left_to_owner == 0
            assert question.is_open  # nothing was sent for it on its own
            assert h.client.answer_prompt(prompt.key, "main").sent
            await h.fake.wait_for(lambda: h.fake.clarify_answers, what="the answer")
            assert h.fake.clarify_answers == [{"answers": {"q0": "main"}, "outcome": "submitted"}]

    arun(scenario())
