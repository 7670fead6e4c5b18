"""The real GatewayClient against the fake gateway, through the bridge, on the qasync loop.

End to end without X: fake gateway (websockets on 127.0.0.1:0) -> GatewayClient + core ->
GatewayBridge signals -> notification policy -> desktop-notifier -> fake notification daemon on
a private bus -> a click on Approve -> the same bridge slot the dialog uses -> exactly one answer
on the wire, for exactly the request the notification showed.

Each test runs as ONE coroutine (a single ``arun``): qasync 0.28's ``run_until_complete``
processes Qt events once more after it has unset the running loop, so socket events landing
between two ``arun`` calls would be handled outside the loop ("no running event loop").
"""

from __future__ import annotations

import asyncio

import pytest

from desktop.core.model import Choice
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.platform.native_notify import NativeNotifier
from desktop.settings.model import GatewayKind, Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import NotificationController
from desktop.ui.settings_controller import client_factory_for
from tests.gatewaymodel import FakeGateway
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.waiting import drain, holds, poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


def endpoint(fake: FakeGateway) -> GatewayEndpoint:
    return GatewayEndpoint(
        "demo",
        "Demo",
        GatewayKind.DEMO,
        url=fake.base_url,
        token=TokenSource(TokenKind.INLINE, value=fake.token),
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
    def __init__(self, fake, notifier=None):
        self.bridge = GatewayBridge(client_factory_for(Settings))
        self.reviews: list = []
        self.controller = NotificationController(self.bridge, lambda *a: None, FAST)
        self.controller.review_requested.connect(lambda g, b: self.reviews.append((g, b)))
        self.notifier = notifier
        self.bridge.add_gateway(endpoint(fake))
        self.bridge.start(asyncio.get_running_loop(), notifier)

    async def close(self, fake):
        self.controller.dispose()
        await self.bridge.aclose()
        await fake.stop()
        await drain()
        self.controller.deleteLater()
        self.bridge.deleteLater()


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_approve_in_notification_answers_exactly_that_request_once(bus, qloop, arun, dialect):
    async def scenario():
        notifyd = await FakeNotifyd.start(bus.address)
        fake = await FakeGateway(dialect, speed=0.01).start()
        app = Wired(fake, NativeNotifier("Hermes Tray"))
        await holds(
            lambda: app.bridge.snapshot.gateway("demo").link is Link.UP, app.bridge.snapshot_changed
        )
        app.bridge.new_task("demo", "/tmp", "[[scenario:single]] clean s1")
        note = await notifyd.received.get()
        await poll_until(lambda: app.notifier.is_shown("demo", app.controller.last_plan.batch_id))
        assert note.summary.startswith("Approval needed")
        assert note.body == "rm -rf /tmp/hermes-scratch/s1"
        [approve] = [key for key, label in note.actions.items() if label == "Approve"]
        [request] = fake.requests
        notifyd.invoke(note.id, approve)
        await poll_until(lambda: request.outcome is not None)
        assert request.outcome.approved
        assert request.outcome.choice == "once"
        await holds(lambda: app.bridge.snapshot.waiting_count() == 0, app.bridge.snapshot_changed)
        await fake.wait_for_idle(request.session.sid)  # let the turn end before closing
        assert len(answers(fake)) == 1
        assert fake.late_answers == []
        await app.close(fake)
        await notifyd.stop()

    arun(scenario(), timeout=30)


def test_signals_follow_a_batch_through_the_real_core(qloop, arun):
    async def scenario():
        fake = await FakeGateway("B", speed=0.01).start()
        app = Wired(fake)
        requested, sessions = [], []
        app.bridge.approval_requested.connect(requested.append)
        app.bridge.session_changed.connect(sessions.append)
        await holds(
            lambda: app.bridge.snapshot.gateway("demo").link is Link.UP, app.bridge.snapshot_changed
        )
        assert app.bridge.snapshot.gateway("demo").dialect is not None
        app.bridge.new_task("demo", "/tmp", "[[scenario:batch3]] clean")
        await holds(lambda: len(requested) == 3, app.bridge.approval_requested)
        assert {u.approval.batch_id for u in requested} == {requested[0].approval.batch_id}
        names = [u.approval.command.split("/")[-1].split()[0] for u in requested]
        assert names == ["a", "b", "c"]
        assert sessions
        for update in requested:
            app.bridge.decide(
                DecisionRequest("demo", update.approval.key, Choice.DENY, Surface.DIALOG_BUTTON)
            )
        denied = {u.approval.key for u in requested}
        # (not waiting_count() == 0: the fake may re-ask b before the denials are delivered)
        view = lambda: app.bridge.snapshot.gateway("demo")  # noqa: E731
        await poll_until(lambda: not denied & {a.key for a in view().waiting})
        asked = [r for r in fake.requests if not r.reask]  # the fake may re-ask after a denial
        await poll_until(lambda: all(r.outcome is not None for r in fake.requests))
        assert len(asked) == 3
        # the re-asks of the denied commands were denied by the tray (deny means deny)
        assert len(answers(fake)) == len(fake.requests)
        assert not any(r.outcome.approved for r in fake.requests)
        sid = asked[0].session.sid
        app.bridge.interrupt("demo", sid)  # end the turn
        await fake.wait_for_idle(sid)
        await app.close(fake)

    arun(scenario(), timeout=30)


def test_yolo_and_interrupt_reach_the_gateway(qloop, arun):
    async def scenario():
        fake = await FakeGateway("B", speed=0.01).start()
        app = Wired(fake)
        await holds(
            lambda: app.bridge.snapshot.gateway("demo").link is Link.UP, app.bridge.snapshot_changed
        )
        app.bridge.new_task("demo", "/tmp", "[[scenario:single]] s")
        await holds(
            lambda: app.bridge.snapshot.gateway("demo").sessions, app.bridge.snapshot_changed
        )
        sid = app.bridge.snapshot.gateway("demo").sessions[0].session_id
        app.bridge.set_yolo("demo", sid, True)
        await holds(
            lambda: app.bridge.snapshot.gateway("demo").sessions[0].yolo.effective,
            app.bridge.snapshot_changed,
        )
        app.bridge.interrupt("demo", sid)
        await poll_until(lambda: any(r.requests("session.interrupt") for r in fake.connections))
        await fake.wait_for_idle(sid)
        await app.close(fake)

    arun(scenario(), timeout=30)
