"""An approval notification lives as long as its question, on a real notification daemon.

xfce4-notifyd closes a bubble after its own default (10 s) unless the sender asks for
``expire_timeout`` 0; Hermes waits 300 s. So the bubble must still be on screen at twice the
daemon's own expiry, and it must go the moment the row is answered somewhere else (here: in the
dialog). That wait is the point of this test; everything else waits on events, bounded.
"""

from __future__ import annotations

import asyncio

import pytest

from desktop.core.model import Choice
from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.platform.native_notify import NativeNotifier
from desktop.ui.icons import icon_dir
from tests.desktop import xdesk
from tests.ui.approvals.factory import row_card
from tests.waiting import holds, poll_until

pytestmark = pytest.mark.desktop

NOTIFY = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.2)
DAEMON_EXPIRY_S = 10.0  # xfce4-notifyd's default for a bubble that does not say
LIFETIME_S = 2 * DAEMON_EXPIRY_S
NOTIFY_PATH = "/org/freedesktop/Notifications"
NOTIFY_NAME = "org.freedesktop.Notifications"


def test_an_approval_notification_outlives_the_daemon_expiry_and_goes_when_answered(
    qapp, qloop, arun
):
    qapp.setQuitOnLastWindowClosed(False)
    try:
        arun(scenario(), timeout=LIFETIME_S + 60)
    finally:
        qapp.setQuitOnLastWindowClosed(True)


async def scenario() -> None:
    notifier = NativeNotifier("Hermes Tray", icon_dir() / "hermes-tray.svg")
    async with (
        xdesk.demo_tray(NOTIFY, notifier) as (fake, bridge, shell),
        xdesk.session_bus() as bus,
    ):
        daemon = await xdesk.interface(bus, NOTIFY_NAME, NOTIFY_PATH, NOTIFY_NAME)
        closed: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        daemon.on_notification_closed(lambda nid, reason: closed.put_nowait((nid, reason)))
        await holds(
            lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
        )
        bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder s1")
        await poll_until(lambda: shell.notifications.last_plan is not None)
        plan = shell.notifications.last_plan
        await poll_until(lambda: notifier.is_shown("demo", plan.batch_id))
        window = await xdesk.find_window(classname="xfce4-notifyd")
        print("notification server:", notifier.server, "capabilities:", notifier.capabilities)
        await xdesk.settle(1.0)
        await xdesk.screenshot("lifetime-1-shown.png")

        with pytest.raises(TimeoutError):  # nothing closes it, the daemon's expiry long past
            await asyncio.wait_for(closed.get(), LIFETIME_S)
        visible = await xdesk.run(
            "xdotool", "search", "--onlyvisible", "--classname", "xfce4-notifyd"
        )
        assert window in visible.split()
        assert notifier.is_shown("demo", plan.batch_id)
        await xdesk.screenshot("lifetime-2-after-twice-the-expiry.png")

        # Answered in the dialog: the tray withdraws the bubble (reason 3: CloseNotification).
        shell.review()
        await poll_until(shell.dialog.isVisible)
        [first] = fake.requests
        key = bridge.snapshot.gateway("demo").waiting[0].key
        card = row_card(shell.dialog, "demo", key)
        assert card is not None
        card.buttons[Choice.ONCE].click()
        _nid, reason = await asyncio.wait_for(closed.get(), 10)
        assert reason == 3
        assert not notifier.is_shown("demo", plan.batch_id)
        await poll_until(lambda: first.outcome is not None)
        assert first.outcome.approved
        await xdesk.settle(0.8)
        await xdesk.screenshot("lifetime-3-withdrawn.png")
        await fake.wait_for_idle(first.session.sid)
