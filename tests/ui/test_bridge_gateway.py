"""The real GatewayClient against the fake gateway, through the bridge, on the qasync loop.

End to end without X: fake gateway (websockets on 127.0.0.1:0) -> GatewayClient + core ->
GatewayBridge signals -> notification policy -> desktop-notifier -> fake notification daemon on
a private bus -> a click on Approve -> the same bridge slot the dialog uses -> exactly one answer
on the wire, for exactly the request the notification showed.
"""

from __future__ import annotations

import pytest

from desktop.core.model import Choice
from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint, TokenSource
from desktop.gateway.fake import FakeGateway
from desktop.ui.approvals.requests import DecisionRequest
from desktop.ui.bridge import GatewayBridge
from desktop.ui.native_notify import NativeNotifier
from desktop.ui.notifications import NotificationController
from desktop.ui.notify_policy import NotifySettings
from desktop.ui.snapshot import Link
from tests.dbus_fakes.notifyd import FakeNotifyd
from tests.dbus_fakes.private_bus import PrivateBus
from tests.ui.standins import until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


@pytest.fixture
def bus(monkeypatch):
    with PrivateBus() as private:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", private.address)
        yield private


def endpoint(fake: FakeGateway) -> GatewayEndpoint:
    return GatewayEndpoint(
        "demo", "Demo", EndpointKind.DEMO, url=fake.base_url, token=TokenSource.inline(fake.token)
    )


def answers(fake: FakeGateway) -> list[dict]:
    """Every decision frame the gateway received, in any dialect's shape."""
    found = []
    for record in fake.connections:
        for frame in record.received:
            if not isinstance(frame, dict):
                continue
            if frame.get("method") == "approval.respond" or (
                str(frame.get("id", "")).startswith("srq-") and "result" in frame
            ):
                found.append(frame)
    return found


class Wired:
    def __init__(self, qloop, fake, notifier=None):
        self.bridge = GatewayBridge()
        self.reviews: list = []
        self.controller = NotificationController(self.bridge, lambda *a: None, FAST)
        self.controller.review_requested.connect(lambda g, b: self.reviews.append((g, b)))
        self.notifier = notifier
        self.bridge.add_gateway(endpoint(fake))
        self.bridge.start(qloop, notifier)

    async def close(self, fake):
        self.controller.dispose()
        await self.bridge.aclose()
        await fake.stop()
        self.controller.deleteLater()
        self.bridge.deleteLater()


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_approve_in_notification_answers_exactly_that_request_once(bus, qloop, arun, dialect):
    notifyd = arun(FakeNotifyd.start(bus.address))
    fake = arun(FakeGateway(dialect, speed=0.01).start())
    app = Wired(qloop, fake, NativeNotifier("Hermes Tray"))
    arun(until(lambda: app.bridge.snapshot.gateway("demo").link is Link.UP))
    app.bridge.new_task("demo", "/tmp", "[[scenario:single]] clean s1")
    note = arun(notifyd.received.get())
    arun(until(lambda: app.notifier.is_shown("demo", app.controller.last_plan.batch_id)))
    assert note.summary.startswith("Approval needed")
    assert note.body == "rm -rf /tmp/hermes-scratch/s1"
    assert "approve" in note.actions
    [request] = fake.requests
    notifyd.invoke(note.id, "approve")
    arun(until(lambda: request.outcome is not None))
    assert request.outcome.approved
    assert request.outcome.choice == "once"
    arun(until(lambda: app.bridge.snapshot.waiting_count() == 0))
    arun(fake.wait_for_idle(request.session.sid))  # let the turn end before closing
    assert len(answers(fake)) == 1
    assert fake.late_answers == []
    arun(app.close(fake))
    arun(notifyd.stop())


def test_signals_follow_a_batch_through_the_real_core(qloop, arun):
    fake = arun(FakeGateway("B", speed=0.01).start())
    app = Wired(qloop, fake)
    requested, changed, sessions = [], [], []
    app.bridge.approval_requested.connect(requested.append)
    app.bridge.approval_changed.connect(changed.append)
    app.bridge.session_changed.connect(sessions.append)
    arun(until(lambda: app.bridge.snapshot.gateway("demo").link is Link.UP))
    view = app.bridge.snapshot.gateway("demo")
    assert view.dialect is not None
    app.bridge.new_task("demo", "/tmp", "[[scenario:batch3]] clean")
    arun(until(lambda: len(requested) == 3))
    assert {u.approval.batch_id for u in requested} == {requested[0].approval.batch_id}
    assert [u.approval.command.split("/")[-1].split()[0] for u in requested] == ["a", "b", "c"]
    assert sessions
    for update in requested:
        app.bridge.decide(DecisionRequest("demo", update.approval.key, Choice.DENY, "test"))
    arun(until(lambda: app.bridge.snapshot.waiting_count() == 0))
    asked = [r for r in fake.requests if not r.reask]  # the fake may re-ask after a denial
    arun(until(lambda: all(r.outcome is not None for r in asked)))
    assert len(asked) == 3
    assert len(answers(fake)) == 3
    assert not any(r.outcome.approved for r in asked)
    sid = asked[0].session.sid
    app.bridge.interrupt("demo", sid)  # end the turn (the fake re-asks after a denial)
    arun(fake.wait_for_idle(sid))
    arun(app.close(fake))


def test_yolo_and_interrupt_reach_the_gateway(qloop, arun):
    fake = arun(FakeGateway("B", speed=0.01).start())
    app = Wired(qloop, fake)
    arun(until(lambda: app.bridge.snapshot.gateway("demo").link is Link.UP))
    app.bridge.new_task("demo", "/tmp", "[[scenario:single]] s")
    arun(until(lambda: app.bridge.snapshot.gateway("demo").sessions))
    sid = app.bridge.snapshot.gateway("demo").sessions[0].session_id
    app.bridge.set_yolo("demo", sid, True)
    arun(until(lambda: app.bridge.snapshot.gateway("demo").sessions[0].yolo.effective))
    app.bridge.interrupt("demo", sid)
    arun(until(lambda: any(r.requests("session.interrupt") for r in fake.connections)))
    arun(fake.wait_for_idle(sid))
    arun(app.close(fake))
