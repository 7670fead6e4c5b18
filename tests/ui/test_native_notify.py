"""The native notifier against a fake server: persistent, replaced in place, escaped per
capability, and a click on replaced content acts on nothing."""

from __future__ import annotations

import asyncio
import contextlib

from desktop.core.events import ApprovalChanged, ApprovalRequested, SessionChanged
from desktop.core.model import ApprovalPhase, Choice
from desktop.model.notify_policy import NotificationPlan, NotifySettings
from desktop.platform.activation import event_token
from desktop.platform.native_notify import NativeNotifier
from desktop.platform.paths import APP_ID
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import NotificationController
from tests.model.builders import approval, session
from tests.ui.dbus_fakes.do_not_disturb import FakeGnomeShell
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import drain, poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


@contextlib.asynccontextmanager
async def wired(
    bus, qloop, capabilities=("actions", "body", "body-markup"), focused=False, server=FakeNotifyd
):
    notifyd = await server.start(bus.address, capabilities)
    clients = {}
    bridge = GatewayBridge(make_factory(clients))
    controller = NotificationController(bridge, lambda t, b: None, FAST)
    if focused:
        controller.dialog_changed(True, lambda gateway_id, batch_id: True)
    bridge.add_gateway(Endpoint("g1", "Local"))
    notifier = NativeNotifier("Hermes Tray")
    bridge.start(qloop, notifier)
    clients["g1"].emit(SessionChanged(session("s1", "Build")))
    try:
        yield clients["g1"], notifyd, notifier, controller
    finally:
        controller.dispose()
        await bridge.aclose()
        await drain()
        controller.deleteLater()
        bridge.deleteLater()
        await notifyd.stop()


def test_rows_that_come_and_go_replace_the_notification_in_place(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop, ("actions", "body", "persistence")) as (client, notifyd, *_):
            client.emit(ApprovalRequested(approval("k1", command="make a")))
            client.emit(ApprovalRequested(approval("k2", command="make b", position=1)))
            first = await notifyd.received.get()
            assert first.expire_timeout == 0
            assert first.hints["resident"] is True
            assert first.hints["desktop-entry"] == APP_ID  # per-app settings hang on it
            client.emit(
                ApprovalChanged(approval("k1", command="make a", phase=ApprovalPhase.RESOLVED))
            )
            second = await notifyd.received.get()
            assert second.replaces_id == first.id
            assert second.id == first.id
            assert second.body == "make b"  # raw: this server has no body markup
            assert "approve.2" in second.actions
            client.emit(
                ApprovalChanged(approval("k2", command="make b", phase=ApprovalPhase.RESOLVED))
            )
            await poll_until(lambda: notifyd.shown[-1].closed)  # withdrawn where it was answered
            assert len(notifyd.calls) == 2

    arun(scenario(), timeout=30)


def test_a_click_on_replaced_content_answers_nothing(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop) as (client, notifyd, notifier, _):
            client.emit(ApprovalRequested(approval("k1", command="make a")))
            first = await notifyd.received.get()
            await poll_until(lambda: notifier.is_shown("g1", "b1"))
            client.emit(ApprovalRequested(approval("k2", command="make b", position=1)))
            await notifyd.received.get()
            notifyd.ActionInvoked(first.id, "approve.1")  # pressed as the update arrived
            await asyncio.sleep(0.1)
            assert client.calls == []

    arun(scenario(), timeout=30)


def test_markup_servers_get_entities_and_others_the_raw_text(bus, qloop, arun):
    async def scenario():
        command = "cat a && b << EOF > out"
        async with wired(bus, qloop, ("actions", "body")) as (client, notifyd, *_):
            client.emit(ApprovalRequested(approval("k1", command=command)))
            assert (await notifyd.received.get()).body == command
        async with wired(bus, qloop) as (client, notifyd, *_):
            client.emit(ApprovalRequested(approval("k1", command=command)))
            assert (await notifyd.received.get()).body == "cat a &amp;&amp; b &lt;&lt; EOF &gt; out"

    arun(scenario(), timeout=30)


def test_no_new_bubble_while_the_dialog_has_focus(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop, focused=True) as (client, notifyd, _, controller):
            client.emit(ApprovalRequested(approval("k1")))
            await poll_until(lambda: controller.policy.next_deadline() is None)
            await asyncio.sleep(0.1)
            assert notifyd.calls == []

    arun(scenario(), timeout=30)


def test_deny_and_stop_denies_then_interrupts(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop) as (client, notifyd, notifier, _):
            client.emit(ApprovalRequested(approval("k1")))
            client.emit(ApprovalRequested(approval("k2", position=1)))
            note = await notifyd.received.get()
            await poll_until(lambda: notifier.is_shown("g1", "b1"))
            notifyd.invoke(note.id, "deny-stop.1")
            await poll_until(lambda: len(client.calls) == 3)
            assert client.calls == [
                ("decide", "k1", Choice.DENY, False),
                ("decide", "k2", Choice.DENY, False),
                ("interrupt", "s1"),
            ]

    arun(scenario(), timeout=30)


def test_gnome_shell_gets_three_buttons_and_review_stays(bus, qloop, arun):
    async def scenario():
        capabilities = ("actions", "body", "body-markup", "persistence")  # as 43.9 says
        async with wired(bus, qloop, capabilities, server=FakeGnomeShell) as (client, notifyd, *_):
            client.emit(ApprovalRequested(approval("k1", command="make test")))
            note = await notifyd.received.get()
            assert note.actions == {
                "default": "Review",
                "approve.1": "Approve",
                "deny.1": "Deny",
                "review.1": "Review",
            }
            # gnome-shell shows no banner for a resident one while the app has focus
            assert "resident" not in note.hints

    arun(scenario(), timeout=30)


def test_an_update_never_raises_a_bubble_that_is_not_on_screen(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop) as (client, notifyd, notifier, _):
            client.emit(ApprovalRequested(approval("k1")))
            first = await notifyd.received.get()
            update = NotificationPlan("g1", "b9", "Approval needed — Build", "ls", (), update=True)
            assert not await notifier.show(update, lambda plan, kind: None)
            notifyd.invoke(first.id, "default")  # clicked: the server closes it
            await poll_until(lambda: not notifier.is_shown("g1", "b1"))
            again = NotificationPlan("g1", "b1", "Approval needed — Build", "ls", (), update=True)
            assert not await notifier.show(again, lambda plan, kind: None)
            assert len(notifyd.calls) == 1

    arun(scenario(), timeout=30)


def test_review_runs_with_the_servers_activation_token_and_only_its_own(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop) as (client, notifyd, notifier, controller):
            tokens: list[str] = []
            controller.review_requested.connect(lambda *_: tokens.append(event_token.take()))
            client.emit(ApprovalRequested(approval("k1")))
            note = await notifyd.received.get()
            await poll_until(lambda: notifier.is_shown("g1", "b1"))
            notifyd.ActivationToken(note.id + 1, "for-another-note")  # not this press's token
            notifyd.ActionInvoked(note.id, "default")
            await poll_until(lambda: len(tokens) == 1)
            notifyd.invoke(note.id, "review.1", token="sway-token-1")
            await poll_until(lambda: len(tokens) == 2)
            assert tokens == ["", "sway-token-1"]
            assert event_token.take() == ""  # it went with its event

    arun(scenario(), timeout=30)


class SpecOneOneNotifyd(FakeNotifyd):
    """A server older than spec 1.2: no ActivationToken signal to subscribe to."""

    ActivationToken = None


def test_a_server_without_activation_tokens_still_opens_the_dialog(bus, qloop, arun):
    async def scenario():
        async with wired(bus, qloop, server=SpecOneOneNotifyd) as (client, notifyd, notifier, c):
            opened = []
            c.review_requested.connect(lambda *_: opened.append(event_token.take()))
            client.emit(ApprovalRequested(approval("k1")))
            note = await notifyd.received.get()
            await poll_until(lambda: notifier.is_shown("g1", "b1"))
            notifyd.ActionInvoked(note.id, "default")
            await poll_until(lambda: opened == [""])

    arun(scenario(), timeout=30)


def test_quitting_withdraws_the_notices_too(bus, qloop, arun):
    """A notice speaks of the running tray ("No system tray found: showing a window")."""

    async def scenario():
        async with wired(bus, qloop) as (_client, notifyd, notifier, _controller):
            assert await notifier.start()
            await notifier.show_text("No system tray found", "Showing the tray's own window.")
            [notice] = notifyd.shown
            await notifier.aclose()
            assert notifyd.withdrawn == [notice.id]
            assert notice.closed

    arun(scenario(), timeout=30)
