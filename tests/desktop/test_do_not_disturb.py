"""xfce4-notifyd's do-not-disturb, turned on as a person does (xfconf), on a real desktop.

While it is on, an approval that waits sends no ``Notify`` at all (a D-Bus monitor watches the
bus, so this is what was sent, not what the daemon chose to show) and the tooltip says the
notifications are held; when it goes off, one notification covers what waits. The last-30-s
escalation still goes through, critical, and xfce4-notifyd shows it despite the switch.
The switch is reset after, whatever happened: the other desktop tests share this daemon.
"""

from __future__ import annotations

import dataclasses
import time

import pytest

from desktop.core.model import Choice
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import Link
from desktop.model.tray_status import HOLDING_LINE
from desktop.platform.native_notify import URGENCY_CRITICAL, NativeNotifier
from desktop.ui.icons import icon_dir
from tests.desktop import xdesk
from tests.waiting import holds, poll_until

pytestmark = pytest.mark.desktop

NOTIFY = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.2)
APP = "Hermes Tray"
PANEL_STRIP = (0, 0, 1280, 30)
WAITING_ORANGE = "#f08a00"
DND = ("xfconf-query", "-c", "xfce4-notifyd", "-p", "/do-not-disturb")


async def do_not_disturb(on: bool) -> None:
    await xdesk.run(*DND, "-n", "-t", "bool", "-s", "true" if on else "false")


def test_do_not_disturb_holds_approval_bubbles_and_the_last_seconds_go_through(qapp, qloop, arun):
    qapp.setQuitOnLastWindowClosed(False)
    try:
        arun(scenario(), timeout=120)
    finally:
        qapp.setQuitOnLastWindowClosed(True)


async def scenario() -> None:
    notifier = NativeNotifier(APP, icon_dir() / "hermes-tray.svg")
    await do_not_disturb(True)
    try:
        async with xdesk.notify_calls() as calls, xdesk.demo_tray(NOTIFY, notifier) as tray:
            _fake, bridge, shell = tray
            await holds(
                lambda: bridge.snapshot.gateway("demo").link is Link.UP, bridge.snapshot_changed
            )

            # 1. On: the approval waits, no Notify, the tooltip says why.
            bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder d1")
            await holds(
                lambda: bridge.snapshot.waiting_count() == 1, bridge.snapshot_changed, timeout=30
            )
            await poll_until(lambda: shell.notifications.policy.holding, timeout=15)
            await poll_until(lambda: HOLDING_LINE in shell.tray.status.tooltip)
            assert shell.notifications.policy.holding  # the switch as read: on
            assert shell.tray.status.count == 1
            # nothing is due before the escalation, minutes away: no Notify can be on its way
            assert shell.notifications.policy.next_deadline() > time.monotonic() + 60
            tips = await xdesk.item_tooltips()
            print("tooltip as the panel has it:", tips)
            assert any(HOLDING_LINE in tip for tip in tips)
            icon = await poll_until(
                lambda: xdesk.find_colour(WAITING_ORANGE, PANEL_STRIP), timeout=10
            )
            await xdesk.run("xdotool", "mousemove", str(icon[0]), str(icon[1]))
            await xdesk.settle(2.0)  # the panel shows its tooltip after a hover delay
            assert [c for c in calls if c[0] == APP] == []
            await xdesk.screenshot("dnd-1-held.png")
            await xdesk.run("xdotool", "mousemove", "640", "500")

            # 2. Off: one notification for what waits.
            await do_not_disturb(False)
            await poll_until(lambda: any(c[0] == APP for c in calls), timeout=15)
            await poll_until(lambda: not shell.notifications.policy.holding)
            first = shell.notifications.last_plan
            await poll_until(lambda: notifier.is_shown("demo", first.batch_id))
            await xdesk.find_window(classname="xfce4-notifyd")
            assert HOLDING_LINE not in shell.tray.status.tooltip
            assert shell.notifications.policy.next_deadline() > time.monotonic() + 60
            assert [c[:2] for c in calls if c[0] == APP] == [(APP, first.title)]
            await xdesk.settle(1.0)
            await xdesk.screenshot("dnd-2-off-one-notification.png")
            [waiting] = bridge.snapshot.gateway("demo").waiting
            bridge.decide(DecisionRequest("demo", waiting.key, Choice.DENY, Surface.DIALOG_BUTTON))
            await poll_until(lambda: not notifier.is_shown("demo", first.batch_id), timeout=15)

            # 3. On again: a held approval reaches its last seconds and goes through, critical.
            await do_not_disturb(True)
            await poll_until(lambda: shell.notifications.policy.holding, timeout=15)
            sent = len(calls)
            bridge.new_task("demo", "/tmp", "[[scenario:single]] Clean the scratch folder d2")
            await holds(
                lambda: bridge.snapshot.waiting_count() == 1, bridge.snapshot_changed, timeout=30
            )
            [second] = bridge.snapshot.gateway("demo").waiting
            assert second.expires_at is not None
            soon = second.expires_at - time.monotonic() - 3.0  # the escalation in about 3 s
            shell.notifications.apply_settings(dataclasses.replace(NOTIFY, escalate_before=soon))
            await poll_until(lambda: len(calls) > sent, timeout=15)
            assert [c[2] for c in calls[sent:] if c[0] == APP] == [URGENCY_CRITICAL]
            urgent = shell.notifications.last_plan
            assert urgent.urgent
            await poll_until(lambda: notifier.is_shown("demo", urgent.batch_id))
            await xdesk.find_window(classname="xfce4-notifyd")  # shown through the switch
            await xdesk.settle(1.0)
            await xdesk.screenshot("dnd-3-critical-through.png")
            [waiting] = bridge.snapshot.gateway("demo").waiting
            bridge.decide(DecisionRequest("demo", waiting.key, Choice.DENY, Surface.DIALOG_BUTTON))
    finally:
        await xdesk.run(*DND, "-r", check=False)
