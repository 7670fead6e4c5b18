"""The desktop's do-not-disturb, read over a private D-Bus and respected end to end.

The services are dbus-fast fakes of what KDE Plasma and xfconfd publish (tests/ui/dbus_fakes/
do_not_disturb.py) on a real bus; the real xfconfd and xfce4-notifyd are in tests/desktop.
Each test is one coroutine (one arun).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import time
from pathlib import Path

from dbus_fast import Variant

from desktop.core.events import ApprovalRequested
from desktop.gateway import doctor
from desktop.model.notify_policy import NotifySettings
from desktop.model.tray_status import HOLDING_LINE
from desktop.platform.dconf_db import user_database
from desktop.platform.do_not_disturb import (
    GNOME_SOURCE,
    KDE_SOURCE,
    XFCE_SOURCE,
    DoNotDisturb,
    read_once,
)
from desktop.platform.native_notify import URGENCY_CRITICAL, NativeNotifier
from tests.model.builders import approval
from tests.ui.dbus_fakes.do_not_disturb import (
    FakeDconf,
    FakeGnomeShell,
    FakePlasma,
    FakeXfceNotifyd,
    FakeXfconf,
)
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.ui.shell_on_bus import shell_on_bus
from tests.waiting import poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)
CHANNEL, PROPERTY = "xfce4-notifyd", "/do-not-disturb"
BANNERS = "/org/gnome/desktop/notifications/show-banners"
DCONF = Path(__file__).parents[1] / "fixtures" / "dconf"


async def read(notifier: NativeNotifier) -> list[DoNotDisturb]:
    seen: list[DoNotDisturb] = []
    notifier.watch_do_not_disturb(seen.append)
    assert await notifier.start()
    return seen


@contextlib.asynccontextmanager
async def notifier_beside(*services):
    """A notifier (not started yet) beside ``services`` on the bus; all closed after."""
    notifier = NativeNotifier("Hermes Tray")
    try:
        yield notifier
    finally:
        await notifier.aclose()
        for service in reversed(services):
            await service.stop()


def test_kde_inhibited_is_read_and_followed(bus, qloop, arun):
    async def scenario():
        plasma = await FakePlasma.start(bus.address)
        async with notifier_beside(plasma) as notifier:
            plasma._inhibited = True
            seen = await read(notifier)
            assert seen == [DoNotDisturb(True, KDE_SOURCE)]
            plasma.set_inhibited(False)
            await poll_until(lambda: len(seen) == 2)
            assert seen[-1] == DoNotDisturb(False, KDE_SOURCE)

    arun(scenario(), timeout=20)


def test_xfce4_notifyd_setting_is_read_and_followed(bus, qloop, arun):
    async def scenario():
        notifyd = await FakeXfceNotifyd.start(bus.address)
        xfconf = await FakeXfconf.start(bus.address)
        async with notifier_beside(notifyd, xfconf) as notifier:
            seen = await read(notifier)
            assert seen == [DoNotDisturb(False, XFCE_SOURCE)]  # never set: the daemon's default
            xfconf.set("xfce4-panel", PROPERTY, Variant("b", True))  # another channel
            xfconf.set(CHANNEL, "/do-not-disturb-other", Variant("b", True))
            xfconf.set(CHANNEL, PROPERTY, Variant("b", True))
            await poll_until(lambda: len(seen) == 2)
            assert seen[-1] == DoNotDisturb(True, XFCE_SOURCE)
            xfconf.reset(CHANNEL, PROPERTY)
            await poll_until(lambda: len(seen) == 3)
            assert seen[-1] == DoNotDisturb(False, XFCE_SOURCE)
            xfconf.set(CHANNEL, PROPERTY, Variant("s", "true"))  # not a boolean: not known
            await poll_until(lambda: len(seen) == 4)
            assert seen[-1].on is None
            assert "str" in seen[-1].reason

    arun(scenario(), timeout=20)


def test_gnome_show_banners_is_read_from_dconf_and_followed(bus, qloop, arun):
    async def scenario():
        shell = await FakeGnomeShell.start(bus.address)
        dconf = await FakeDconf.start(bus.address)
        dconf.write(DCONF / "banners-off", BANNERS)  # banners off: do-not-disturb on
        async with notifier_beside(shell, dconf) as notifier:
            seen = await read(notifier)
            assert seen == [DoNotDisturb(True, GNOME_SOURCE)]
            dconf.write(DCONF / "banners-on", BANNERS)
            await poll_until(lambda: len(seen) == 2)
            assert seen[-1] == DoNotDisturb(False, GNOME_SOURCE)
        # never set (no database yet): GNOME's default, banners on
        user_database().unlink()
        shell = await FakeGnomeShell.start(bus.address)
        async with notifier_beside(shell) as notifier:
            assert await read(notifier) == [DoNotDisturb(False, GNOME_SOURCE)]

    arun(scenario(), timeout=30)


def test_not_known_where_nothing_says(bus, qloop, arun):
    async def scenario():
        # another server: xfconf (even when present) says nothing about it
        plain = await FakeNotifyd.start(bus.address)
        xfconf = await FakeXfconf.start(bus.address)
        xfconf.values[(CHANNEL, PROPERTY)] = Variant("b", True)
        async with notifier_beside(plain, xfconf) as notifier:
            [state] = await read(notifier)
            assert state.on is None
            assert "fake-notifyd" in state.reason
        # xfce4-notifyd without a reachable xfconfd: the read fails, not "on" and not "off"
        xfce = await FakeXfceNotifyd.start(bus.address)
        async with notifier_beside(xfce) as notifier:
            [state] = await read(notifier)
            assert state.on is None
            assert "failed" in state.reason

    arun(scenario(), timeout=20)


def test_doctor_reports_the_switch(bus, qloop, arun):
    async def scenario():
        assert (await read_once())[1].on is None  # no server on the bus yet
        plasma = await FakePlasma.start(bus.address)
        try:
            plasma._inhibited = True
            text, as_json = io.StringIO(), io.StringIO()
            await doctor.check(Options(), text)
            await doctor.check(Options(json=True), as_json)
            return text.getvalue(), json.loads(as_json.getvalue())
        finally:
            await plasma.stop()

    text, data = arun(scenario(), timeout=20)
    assert "Notification server: Plasma KDE 6.0" in text
    assert f"Do not disturb: on (from {KDE_SOURCE})" in text
    assert data["desktop"]["do_not_disturb"] is True
    assert data["desktop"]["do_not_disturb_source"] == KDE_SOURCE


@dataclasses.dataclass(frozen=True)
class Options:
    gateway: str | None = None
    json: bool = False


@contextlib.asynccontextmanager
async def tray(bus, qloop, settings=FAST):
    """The shell with a stand-in gateway, KDE's server (do-not-disturb on) on the bus."""
    plasma = await FakePlasma.start(bus.address, ("actions", "body"))
    plasma._inhibited = True
    try:
        async with shell_on_bus(qloop, settings, {"s1": "Build"}) as (shell, client):
            yield shell, client, plasma
    finally:
        await plasma.stop()


def expiring(key, batch, seconds):
    return dataclasses.replace(
        approval(key, batch=batch, command=f"make {key}"), expires_at=time.monotonic() + seconds
    )


def test_while_on_nothing_is_sent_the_tooltip_says_so_and_off_sends_one(bus, qloop, arun):
    async def scenario():
        async with tray(bus, qloop) as (shell, client, plasma):
            client.emit(ApprovalRequested(expiring("k1", "b1", 300)))
            client.emit(ApprovalRequested(expiring("k2", "b2", 300)))
            await poll_until(lambda: shell.notifications.policy.holding)
            await poll_until(lambda: HOLDING_LINE in shell.tray.status.tooltip)
            assert shell.tray.status.count == 2
            assert shell.tray.status.icon_name == "waiting"
            # held: the next thing the policy has to say is the escalation, minutes away
            assert shell.notifications.policy.next_deadline() > time.monotonic() + 200
            assert plasma.calls == []
            plasma.set_inhibited(False)
            note = await plasma.received.get()
            assert note.summary == "2 approvals waiting"
            await poll_until(lambda: HOLDING_LINE not in shell.tray.status.tooltip)
            # the summary's own escalation is what comes next, minutes away
            assert shell.notifications.policy.next_deadline() > time.monotonic() + 200
            assert len(plasma.calls) == 1

    arun(scenario(), timeout=30)


def test_the_last_seconds_go_through_as_critical_when_the_setting_allows(bus, qloop, arun):
    async def scenario():
        async with tray(bus, qloop) as (shell, client, plasma):
            client.emit(ApprovalRequested(expiring("k1", "b1", FAST.escalate_before + 0.5)))
            note = await plasma.received.get()
            assert note.hints["urgency"] == URGENCY_CRITICAL
            assert note.summary.startswith("Answer soon")
            assert shell.notifications.policy.holding

    arun(scenario(), timeout=30)


def test_the_last_seconds_stay_quiet_when_the_setting_says_not_through(bus, qloop, arun):
    settings = dataclasses.replace(FAST, escalate_when_quiet=False)

    async def scenario():
        async with tray(bus, qloop, settings) as (shell, client, plasma):
            client.emit(ApprovalRequested(expiring("k1", "b1", settings.escalate_before - 5)))
            await poll_until(lambda: shell.notifications.policy.holding)
            await poll_until(lambda: shell.notifications.policy.next_deadline() is None)
            assert plasma.calls == []
            plasma.set_inhibited(False)  # off in the last seconds: one bubble, worded so
            note = await plasma.received.get()
            assert note.summary.startswith("Answer soon")
            assert note.hints["urgency"] != URGENCY_CRITICAL

    arun(scenario(), timeout=30)
