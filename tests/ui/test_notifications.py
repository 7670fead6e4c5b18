"""Notifications end to end on a private D-Bus: bridge -> desktop-notifier -> fake daemon -> click.

Each test is one coroutine (one arun): see tests/ui/test_bridge_gateway.py for why.

No X needed: the notification path is D-Bus only, so this runs offscreen. The fake daemon owns
org.freedesktop.Notifications on a private bus whose config activates nothing, so an installed
xfce4-notifyd or dunst is never started and the developer's desktop is never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from desktop.core.events import ApprovalChanged, ApprovalRequested, SessionChanged
from desktop.core.model import ApprovalPhase, Choice
from desktop.model.notify_policy import NotifySettings
from desktop.platform.native_notify import NativeNotifier
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import NotificationController
from tests.model.builders import approval, session
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import drain, holds, poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


class App:
    """The notification wiring of desktop.app, with a stand-in gateway client."""

    def __init__(self, qloop, settings=FAST):
        self.clients: dict = {}
        self.balloons: list[tuple[str, str]] = []
        self.reviews: list[tuple[str, str]] = []
        self.bridge = GatewayBridge(make_factory(self.clients))
        self.controller = NotificationController(
            self.bridge, lambda t, b: self.balloons.append((t, b)), settings
        )
        self.controller.review_requested.connect(lambda g, b: self.reviews.append((g, b)))
        self.ready: list[bool] = []
        self.bridge.notifications_ready.connect(self.ready.append)
        self.bridge.add_gateway(Endpoint("g1", "Local"))
        self.notifier = NativeNotifier("Hermes Tray")
        self.bridge.start(qloop, self.notifier)

    async def shown(self, notifyd, batch_id="b1"):
        """The next notification, once the app is ready to hear its buttons."""
        note = await notifyd.received.get()
        await poll_until(lambda: self.notifier.is_shown("g1", batch_id))
        return note

    @property
    def client(self):
        return self.clients["g1"]

    async def close(self):
        self.controller.dispose()
        await self.bridge.aclose()
        await drain()
        self.controller.deleteLater()
        self.bridge.deleteLater()


@contextlib.asynccontextmanager
async def app_with_notifyd(bus, qloop) -> AsyncIterator[tuple[App, FakeNotifyd]]:
    """A fake notification daemon on the private bus, then the app (its notifier starts with
    the first notification); both closed after (the app first, as on quit), whatever the
    test did."""
    notifyd = await FakeNotifyd.start(bus.address)
    try:
        app = App(qloop)
        try:
            yield app, notifyd
        finally:
            await app.close()
    finally:
        await notifyd.stop()


def _ask(app, *approvals, title="Fix the build"):
    app.client.emit(SessionChanged(session("s1", title)))
    for a in approvals:
        app.client.emit(ApprovalRequested(a))


def test_approve_button_sends_exactly_that_key_once(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            await asyncio.sleep(0.05)
            assert app.ready == []  # the notifier starts with the first notification, not before
            _ask(app, approval("k1", command="rm -rf build"))
            note = await app.shown(notifyd)
            assert app.ready == [True]
            assert note.app_name == "Hermes Tray"
            assert note.summary == "Approval needed — Fix the build"
            assert note.body == "rm -rf build"
            assert note.actions == {
                "approve.1": "Approve",
                "deny.1": "Deny",
                "deny-stop.1": "Deny and stop the agent",
                "review.1": "Review",
                "default": "Review",  # the body click; dunst and mako list it by name
            }
            assert note.hints["urgency"] == 1
            assert note.expire_timeout == 0  # lives as long as the question
            notifyd.invoke(note.id, "approve.1")
            await poll_until(lambda: app.client.calls)
            assert app.client.calls == [("decide", "k1", Choice.ONCE, False)]
            await asyncio.sleep(0.1)  # nothing else may follow
            assert len(app.client.calls) == 1

    arun(scenario(), timeout=30)


def test_one_notification_per_batch_and_deny_all(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            _ask(app, *(approval(f"k{i}", command=f"step {i}", position=i) for i in range(3)))
            note = await app.shown(notifyd)
            assert note.body.splitlines()[0] == "3 commands wait for your decision."
            assert "approve" not in note.actions
            notifyd.invoke(note.id, "deny.1")
            await poll_until(lambda: len(app.client.calls) == 3)
            assert [c[1:3] for c in app.client.calls] == [(f"k{i}", Choice.DENY) for i in range(3)]
            assert len(notifyd.shown) == 1

    arun(scenario(), timeout=30)


def test_body_click_and_review_open_the_dialog_on_that_batch(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            _ask(app, approval("k1", batch="b7"))
            note = await app.shown(notifyd, "b7")
            notifyd.invoke(note.id, "review.1")
            await holds(lambda: app.reviews, app.controller.review_requested)
            assert app.reviews == [("g1", "b7")]
            assert app.client.calls == []

    arun(scenario(), timeout=30)


def test_markup_and_bidi_never_reach_a_markup_parsing_daemon(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            _ask(app, approval("k1", command="<b>echo</b> a && b \u202e"), title="<img src=x>")
            note = await app.shown(notifyd)
            for char in "<>&\u202e":
                assert char not in note.summary
            # the exact text, entity-escaped for a body-markup server (no look-alikes)
            assert note.body == "&lt;b&gt;echo&lt;/b&gt; a &amp;&amp; b \u27e8U+202E\u27e9"
            assert "approve.1" not in note.actions  # a revealed character: Review only

    arun(scenario(), timeout=30)


def test_settled_batch_withdraws_its_notification(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            _ask(app, approval("k1"))
            note = await app.shown(notifyd)
            app.client.emit(ApprovalChanged(approval("k1", phase=ApprovalPhase.RESOLVED)))
            await poll_until(lambda: note.closed)

    arun(scenario(), timeout=30)


def test_no_notification_service_falls_back_to_the_tray_balloon(bus, qloop, arun):
    async def scenario():
        app = App(qloop)
        _ask(app, approval("k1", command="make clean"))
        await poll_until(lambda: app.balloons)
        assert app.ready == [False]
        assert app.balloons == [("Approval needed — Fix the build", "make clean")]
        app.controller.balloon_clicked()
        assert app.reviews == [("g1", "b1")]
        await app.close()

    arun(scenario(), timeout=30)


def test_no_bus_at_all_falls_back(monkeypatch, qloop, arun, tmp_path):
    async def scenario():
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/missing")
        app = App(qloop)
        app.bridge.start_notifications()
        await holds(lambda: app.ready, app.bridge.notifications_ready)
        assert app.ready == [False]
        await app.close()

    arun(scenario(), timeout=30)


def test_failure_notices_are_shown_routine_ones_are_not(bus, qloop, arun):
    async def scenario():
        async with app_with_notifyd(bus, qloop) as (app, notifyd):
            app.client.fail_commands = True
            app.bridge.new_task("g1", "/work", "go")
            note = await notifyd.received.get()
            assert note.summary == "Hermes Tray — Could not start the task"
            assert "Not connected to Local" in note.body
            assert note.actions in ({}, {"default": ""})

    arun(scenario(), timeout=30)
