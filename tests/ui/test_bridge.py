"""GatewayBridge with stand-in clients on the qasync loop: signals out, slots in, clean close."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    NoticeReceived,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import (
    ApprovalPhase,
    Choice,
    Dialect,
    Outcome,
    OutcomeKind,
    YoloSource,
    YoloState,
)
from desktop.gateway.client import ConnectionState
from desktop.journal import Surface
from desktop.model.bridge_events import (
    ApprovalUpdate,
    DecisionRequest,
    Notice,
    SessionGone,
    SessionUpdate,
)
from desktop.model.snapshot import Link
from desktop.model.yolo_timer import YoloCheck
from desktop.ui import bridge as bridge_module
from desktop.ui.bridge import GatewayBridge
from tests.model.builders import approval, session
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import holds, poll_until, recorded


@pytest.fixture
def started(qloop, arun):
    clients: dict = {}
    bridge = GatewayBridge(make_factory(clients))
    bridge.add_gateway(Endpoint("g1", "Local"))
    bridge.start(qloop)
    arun(holds(lambda: bridge.snapshot.gateways[0].link is Link.UP, bridge.snapshot_changed))
    yield bridge, clients["g1"]
    arun(bridge.aclose())
    bridge.deleteLater()


def test_status_changes_are_re_emitted_and_snapshotted(qloop, arun):
    clients: dict = {}
    bridge = GatewayBridge(make_factory(clients))
    seen = recorded(bridge.connection_status_changed)
    bridge.add_gateway(Endpoint("g1", "Local"))
    bridge.start(qloop)
    arun(holds(lambda: len(seen) == 2, bridge.connection_status_changed))
    states = [(gid, old.state, new.state) for gid, old, new in seen]
    assert states == [
        ("g1", ConnectionState.DISCONNECTED, ConnectionState.CONNECTING),
        ("g1", ConnectionState.CONNECTING, ConnectionState.CONNECTED),
    ]
    view = bridge.snapshot.gateway("g1")
    assert (view.link, view.version, view.state_name) == (Link.UP, "0.19.0", "connected")
    arun(bridge.aclose())
    assert clients["g1"].closed
    bridge.deleteLater()


def test_core_events_become_typed_signals(started):
    bridge, client = started
    seen = recorded(
        bridge.session_changed,
        bridge.approval_requested,
        bridge.approval_changed,
        bridge.session_removed,
        bridge.notice_received,
    )
    s = session("s1", "Fix the build")
    a = approval("k1", "s1")
    client.emit(SessionChanged(s))
    client.emit(ApprovalRequested(a))
    assert bridge.snapshot.waiting_count() == 1
    done = approval("k1", "s1", phase=ApprovalPhase.RESOLVED)
    done = dataclasses.replace(done, outcome=Outcome(OutcomeKind.APPROVED, Choice.ONCE))
    client.emit(ApprovalChanged(done))
    client.emit(NoticeReceived("s1", "Model switched", "info"))
    client.emit(SessionRemoved("s1", "closed"))
    assert seen == [
        SessionUpdate("g1", s),
        ApprovalUpdate("g1", "Local", a, "Fix the build", arrived=True),
        ApprovalUpdate("g1", "Local", done, "Fix the build"),
        Notice("info", "Model switched", "Fix the build on Local"),
        SessionGone("g1", SessionRemoved("s1", "closed")),
    ]
    assert bridge.snapshot.waiting_count() == 0
    assert bridge.snapshot.gateway("g1").sessions == ()


def test_snapshot_changed_follows_every_event(started):
    bridge, client = started
    snapshots = recorded(bridge.snapshot_changed)
    client.emit(SessionChanged(session()))
    client.emit(ApprovalRequested(approval()))
    assert [s.waiting_count() for s in snapshots] == [0, 1]


def test_decide_goes_to_exactly_that_key(started):
    bridge, client = started
    result = bridge.decide(DecisionRequest("g1", "k7", Choice.SESSION, Surface.DIALOG_BUTTON, True))
    assert result.sent
    assert client.calls == [("decide", "k7", Choice.SESSION, True)]


def test_refused_decision_comes_back_as_a_notice(started):
    bridge, client = started
    notices = recorded(bridge.notice_received)
    client.refuse = "an earlier command of this session must be answered first"
    result = bridge.decide(DecisionRequest("g1", "k2", Choice.ONCE, Surface.NOTIFICATION))
    assert not result.sent
    [notice] = notices
    assert notice.level == "warning"
    assert notice.what == "Your decision was not sent"
    assert "earlier command" in notice.advice


@pytest.mark.parametrize(
    ("slot", "args", "call"),
    [
        ("set_yolo", ("g1", "s1", True), ("set_yolo", "s1", True)),
        ("set_approval_mode", ("g1", "smart"), ("set_approval_mode", "smart")),
        ("interrupt", ("g1", "s1"), ("interrupt", "s1")),
        ("new_task", ("g1", "/work", "run tests"), ("create_session", "/work", "run tests")),
    ],
)
def test_command_slots_schedule_the_client_call(started, arun, slot, args, call):
    bridge, client = started
    getattr(bridge, slot)(*args)  # returns at once: widgets never await
    arun(poll_until(lambda: call in client.calls))  # the stand-in records; nothing announces


def test_failed_command_says_what_where_and_what_to_do(started, arun):
    bridge, client = started
    client.emit(SessionChanged(session("s1", "Fix the build")))
    notices = recorded(bridge.notice_received)
    client.fail_commands = True
    bridge.set_yolo("g1", "s1", True)
    [notice] = arun(holds(lambda: notices, bridge.notice_received))
    assert notice.level == "error"
    assert notice.what == "Could not turn YOLO on"
    assert notice.where == "Fix the build on Local"
    assert "Not connected to Local" in notice.advice
    assert "try again" in notice.advice


def test_new_task_success_is_announced(started, arun):
    bridge, _client = started
    notices = recorded(bridge.notice_received)
    bridge.new_task("g1", "/work", "go")
    [notice] = arun(holds(lambda: notices, bridge.notice_received))
    assert (notice.level, notice.what, notice.where) == ("info", "Task started", "/work on Local")


def test_reconnect_is_immediate(started):
    bridge, client = started
    bridge.reconnect("g1")
    assert client.calls == [("reconnect_now",)]


def test_gateway_added_after_start_is_started(started, arun):
    bridge, _ = started
    bridge.add_gateway(Endpoint("g2", "Remote"))
    arun(holds(lambda: bridge.snapshot.gateway("g2").link is Link.UP, bridge.snapshot_changed))
    assert [g.gateway_id for g in bridge.snapshot.gateways] == ["g1", "g2"]


def test_a_replaced_gateways_old_client_is_no_longer_heard(started, arun):
    bridge, old = started
    bridge.add_gateway(Endpoint("g1", "Local again"))  # the same id: Settings changed it
    arun(holds(lambda: bridge.snapshot.gateway("g1").link is Link.UP, bridge.snapshot_changed))
    old.emit(ApprovalRequested(approval("late")))  # delivered while it closes
    assert bridge.rows.approval("g1", "late") is None
    assert bridge.snapshot.gateway("g1").name == "Local again"


@pytest.mark.parametrize(
    ("dialect", "calls"),
    [
        (Dialect.B, [("set_yolo", "s1", False)]),  # session.info reports it: nothing to read
        (Dialect.C, [("set_yolo", "s1", False), ("read_yolo", "s1")]),  # canonical: read back
    ],
)
def test_yolo_off_is_checked_the_dialects_way(started, arun, dialect, calls):
    bridge, client = started
    client.set_state(ConnectionState.CONNECTED, dialect=dialect)
    client.emit(SessionChanged(session("s1", "Fix the build")))  # reports YOLO off
    checked = recorded(bridge.yolo_checked)
    bridge.switch_yolo_off_checked("g1", "s1")
    assert arun(holds(lambda: checked, bridge.yolo_checked)) == [("g1", "s1", YoloCheck.OFF)]
    assert client.calls == calls


def test_yolo_off_waits_for_the_session_to_report_it(started, arun, monkeypatch):
    bridge, client = started
    # A check that missed the report would time out the test.
    monkeypatch.setattr(bridge_module, "SETTLE_SECONDS", 60.0)
    on = YoloState(effective=True, source=YoloSource.SESSION)
    client.emit(SessionChanged(session("s1", "Fix the build", yolo=on)))
    checked = recorded(bridge.yolo_checked)
    bridge.switch_yolo_off_checked("g1", "s1")
    arun(poll_until(lambda: ("set_yolo", "s1", False) in client.calls))
    client.emit(SessionChanged(session("s1", "Fix the build")))  # the gateway reports it off
    assert arun(holds(lambda: checked, bridge.yolo_checked)) == [("g1", "s1", YoloCheck.OFF)]


def test_yolo_off_for_a_gateway_that_is_gone_is_unreachable_at_once(started):
    bridge, client = started
    checked = recorded(bridge.yolo_checked)
    bridge.switch_yolo_off_checked("g9", "s1")
    assert checked == [("g9", "s1", YoloCheck.UNREACHABLE)]
    assert client.calls == []
