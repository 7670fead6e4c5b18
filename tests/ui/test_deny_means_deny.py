"""Deny means deny: Hermes' re-asks of denied commands are answered deny by the tray.

The shape of the re-asks is the iot gateway's (``batch3_reask``/``regate`` transcripts): after a
deny, the batch's other commands come again as new requests of the same batch, within 0.1 s.
The stand-in client moves a decided row to SENDING at once, as the core does, so the
notification sees what the app would see. On a private D-Bus with a fake notification daemon.
"""

from __future__ import annotations

import asyncio
import dataclasses

from desktop.core.events import ApprovalChanged, ApprovalRequested, SessionChanged
from desktop.core.model import ApprovalPhase, Choice, DecisionResult
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.notify_policy import NotifySettings
from desktop.platform.native_notify import NativeNotifier
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import NotificationController
from tests.model.builders import approval, session
from tests.ui.dbus_fakes.notifyd import FakeNotifyd
from tests.ui.standins import Endpoint, StandInClient
from tests.waiting import drain, poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


class CoreLikeClient(StandInClient):
    """Remembers asked rows; a sent decision moves its row to SENDING, synchronously."""

    def __init__(self, endpoint, listener):
        super().__init__(endpoint, listener)
        self.rows = {}

    def ask(self, row):
        self.rows[row.key] = row
        self.emit(ApprovalRequested(row))

    def decide(self, key, choice, *, confirm_stale=False):
        result = super().decide(key, choice, confirm_stale=confirm_stale)
        row = self.rows.get(key)
        if row is not None and row.phase is ApprovalPhase.WAITING:
            self.rows[key] = dataclasses.replace(row, phase=ApprovalPhase.SENDING)
            self.emit(ApprovalChanged(self.rows[key]))
            return result
        return DecisionResult(False, "not waiting")

    def resolve(self, key):
        self.rows[key] = dataclasses.replace(self.rows[key], phase=ApprovalPhase.RESOLVED)
        self.emit(ApprovalChanged(self.rows[key]))


def test_deny_all_then_reasks_are_denied_by_the_tray_and_never_offered(bus, qloop, arun):
    async def scenario():
        notifyd = await FakeNotifyd.start(bus.address)
        clients = {}

        def factory(endpoint, listener):
            clients[endpoint.gateway_id] = CoreLikeClient(endpoint, listener)
            return clients[endpoint.gateway_id]

        bridge = GatewayBridge(factory)
        controller = NotificationController(bridge, lambda t, b: None, FAST)
        made = []
        bridge.decision_made.connect(made.append)
        bridge.add_gateway(Endpoint("g1", "Local"))
        notifier = NativeNotifier("Hermes Tray")
        bridge.start(qloop, notifier)
        client = clients["g1"]
        try:
            client.emit(SessionChanged(session("s1", "Clean up")))
            commands = ["rm -rf a", "find b -delete", "rm -rf c"]
            for i, command in enumerate(commands):
                client.ask(approval(f"k{i}", command=command, position=i))
            note = await notifyd.received.get()
            await poll_until(lambda: notifier.is_shown("g1", "b1"))
            notifyd.invoke(note.id, "deny.1")  # "Deny all"
            await poll_until(lambda: len(client.calls) == 3)
            # Hermes blocks #1 and asks again about #2 and #3, as new requests of the batch
            client.resolve("k0")
            client.ask(
                dataclasses.replace(approval("k3", command=commands[1], position=3), reask_of="k1")
            )
            client.ask(approval("k4", command=commands[2], position=4))  # no reask_of: same turn
            await poll_until(lambda: len(client.calls) == 5)
            assert [c[1:3] for c in client.calls[3:]] == [("k3", Choice.DENY), ("k4", Choice.DENY)]
            assert [m.surface for m in made[3:]] == [Surface.REASK, Surface.REASK]
            assert [m.command for m in made[3:]] == commands[1:]
            await asyncio.sleep(0.3)  # longer than the coalescing: anything due has been sent
            for shown in notifyd.calls:
                assert not any(k.startswith("approve") for k in shown.actions), shown
            assert len(client.calls) == 5  # one answer each, nothing repeated
        finally:
            controller.dispose()
            await bridge.aclose()
            await drain()
            controller.deleteLater()
            bridge.deleteLater()
            await notifyd.stop()

    arun(scenario(), timeout=30)


def test_a_reask_of_an_approved_command_is_asked_again(bus, qloop, arun):
    async def scenario():
        clients = {}

        def factory(endpoint, listener):
            clients[endpoint.gateway_id] = CoreLikeClient(endpoint, listener)
            return clients[endpoint.gateway_id]

        bridge = GatewayBridge(factory)
        bridge.add_gateway(Endpoint("g1", "Local"))
        bridge.start(qloop)
        client = clients["g1"]
        try:
            client.ask(approval("k0", command="rm -rf a"))
            client.ask(approval("k1", command="rm -rf c", position=1))
            bridge.decide(DecisionRequest("g1", "k0", Choice.DENY, Surface.DIALOG_BUTTON))
            bridge.decide(DecisionRequest("g1", "k1", Choice.ONCE, Surface.DIALOG_BUTTON))
            client.ask(
                dataclasses.replace(approval("k2", command="rm -rf c", position=2), reask_of="k1")
            )
            await asyncio.sleep(0.05)
            assert [c[1] for c in client.calls] == ["k0", "k1"]  # k2 waits for the person
        finally:
            await bridge.aclose()
            await drain()
            bridge.deleteLater()

    arun(scenario(), timeout=30)
