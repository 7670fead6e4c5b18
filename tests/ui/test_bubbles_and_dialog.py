"""Bubbles and the approval dialog share the screen: the shell tells the notifications what the
dialog shows, and what it held back is announced when it closes.

A fake notification server on a private bus; the dialog is a real window (offscreen).
"""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtCore import QPoint

from desktop.core.events import ApprovalRequested
from desktop.model.notify_policy import NotifySettings
from desktop.model.window_place import EDGE
from tests.model.builders import approval
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.ui.shell_on_bus import shell_on_bus
from tests.waiting import poll_until

FAST = NotifySettings(
    quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05, after_dialog=0.2
)


@contextlib.asynccontextmanager
async def tray(bus, qloop):
    notifyd = await FakeNotifyd.start(bus.address, ("actions", "body"))
    try:
        async with shell_on_bus(qloop, FAST, {"s1": "Build", "s2": "Docs"}) as (shell, client):
            yield shell, client, notifyd
    finally:
        await notifyd.stop()


@pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise)\(\)")
def test_the_dialog_withdraws_its_bubbles_and_closing_it_announces_what_waits(
    bus, qloop, arun, keep_running
):
    async def scenario():
        async with tray(bus, qloop) as (shell, client, notifyd):
            client.emit(ApprovalRequested(approval("k1", command="make a")))
            first = await notifyd.received.get()
            assert first.summary == "Approval needed — Build"
            shell.review_batch("g1", "b1")  # the person pressed Review
            await poll_until(lambda: shell.dialog.isActiveWindow())
            # no tray geometry offscreen: at the left, out of the bubbles' column at the right
            area = shell.dialog.screen().availableGeometry()
            assert shell.dialog.pos() == QPoint(EDGE, area.y() + (area.height() - 640) // 2)
            await poll_until(lambda: notifyd.shown[0].closed)  # the dialog is the better place
            client.emit(ApprovalRequested(approval("k2", sid="s2", batch="b2", command="make b")))
            await poll_until(lambda: shell.dialog.pending_count() == 2)
            await poll_until(lambda: shell.notifications.policy.next_deadline() is None)
            assert len(notifyd.calls) == 1  # held: the person is reading the dialog
            shell.dialog.close()  # with both still waiting
            note = await notifyd.received.get()
            assert note.summary == "2 approvals waiting"
            assert note.body == "In 2 sessions: Build, Docs"
            assert notifyd.received.empty()

    arun(scenario(), timeout=30)
