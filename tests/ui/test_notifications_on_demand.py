"""The native notifier starts with the first notification, not at start-up (memory at idle).

What must hold: nothing is probed while nothing is due; the first plan or notice starts the
probe and waits for its answer; the answer always comes (a notifier that raises means the
balloon), and a request made before the bridge had its loop is served when it gets one. The
real D-Bus path is covered by tests/ui/test_notifications.py (a fake daemon on a private bus).
"""

from __future__ import annotations

import asyncio
from typing import Any

from desktop.core.events import ApprovalRequested, SessionChanged
from desktop.model.bridge_events import Notice
from desktop.model.notify_policy import NotifySettings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.notifications import NotificationController
from tests.model.builders import approval, session
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import drain, holds, poll_until

FAST = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)


class StubNotifier:
    """What the bridge needs of a NativeNotifier; counts starts, records what it showed."""

    def __init__(self, *, fails: bool = False) -> None:
        self.fails = fails
        self.starts = 0
        self.buttons = False
        self.shown: list[Any] = []

    async def start(self) -> bool:
        self.starts += 1
        await asyncio.sleep(0.02)  # an answer that takes a while, as a D-Bus round trip does
        if self.fails:
            raise RuntimeError("no backend")
        self.buttons = True
        return True

    async def show(self, plan: Any, on_action: Any) -> bool:
        self.shown.append(plan)
        return True

    async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool:
        self.shown.append(title)
        return True

    async def withdraw(self, gateway_id: str, batch_id: str) -> None:
        return None

    def watch_do_not_disturb(self, on_change: Any) -> None:
        return None

    async def aclose(self) -> None:
        return None


class App:
    def __init__(self, notifier: StubNotifier, *, start: bool = True) -> None:
        self.clients: dict = {}
        self.balloons: list[tuple[str, str]] = []
        self.ready: list[bool] = []
        self.notifier = notifier
        self.bridge = GatewayBridge(make_factory(self.clients))
        self.controller = NotificationController(
            self.bridge, lambda t, b: self.balloons.append((t, b)), FAST
        )
        self.bridge.notifications_ready.connect(self.ready.append)
        self.bridge.add_gateway(Endpoint("g1", "Local"))
        if start:
            self.start()

    def start(self) -> None:
        self.bridge.start(asyncio.get_running_loop(), self.notifier)

    def ask(self) -> None:
        client = self.clients["g1"]
        client.emit(SessionChanged(session("s1", "Fix the build")))
        client.emit(ApprovalRequested(approval("k1", command="make clean")))

    async def close(self) -> None:
        self.controller.dispose()
        await self.bridge.aclose()
        await drain()
        self.controller.deleteLater()
        self.bridge.deleteLater()


def test_nothing_is_started_until_the_first_plan_is_due_then_it_is_shown_natively(qloop, arun):
    async def scenario():
        app = App(StubNotifier())
        await asyncio.sleep(0.1)  # connected, idle
        assert (app.notifier.starts, app.ready) == (0, [])
        app.ask()
        await poll_until(lambda: app.notifier.shown)
        assert app.notifier.starts == 1
        assert app.ready == [True]
        assert [p.keys for p in app.notifier.shown] == [("k1",)]
        assert app.balloons == []
        await app.close()

    arun(scenario())


def test_a_notice_waits_for_the_answer_and_is_shown_once(qloop, arun):
    async def scenario():
        app = App(StubNotifier())
        for _ in range(2):
            app.controller.show_notice(Notice("warning", "Tokens in a file", "here", "fix it"))
        assert app.notifier.shown == []  # held until the probe answered
        await poll_until(lambda: len(app.notifier.shown) == 2)
        assert app.notifier.starts == 1
        assert app.notifier.shown == ["Hermes Tray — Tokens in a file"] * 2
        await app.close()

    arun(scenario())


def test_a_notifier_that_raises_on_start_means_the_balloon(qloop, arun):
    async def scenario():
        app = App(StubNotifier(fails=True))
        app.ask()
        await poll_until(lambda: app.balloons)
        assert app.ready == [False]
        assert app.balloons == [("Approval needed — Fix the build", "make clean")]
        await app.close()

    arun(scenario())


def test_a_request_before_the_loop_is_served_when_the_bridge_starts(qloop, arun):
    async def scenario():
        app = App(StubNotifier(), start=False)
        app.bridge.start_notifications()
        await asyncio.sleep(0.05)
        assert (app.notifier.starts, app.ready) == (0, [])
        app.start()
        await holds(lambda: app.ready, app.bridge.notifications_ready)
        assert (app.notifier.starts, app.ready) == (1, [True])
        await app.close()

    arun(scenario())


def test_without_a_notifier_the_answer_is_no_at_once(qloop, arun):
    async def scenario():
        bridge = GatewayBridge(make_factory({}))
        ready: list[bool] = []
        bridge.notifications_ready.connect(ready.append)
        bridge.start(asyncio.get_running_loop())
        bridge.start_notifications()
        bridge.start_notifications()  # asked twice, answered once
        assert ready == [False]
        await bridge.aclose()
        await drain()
        bridge.deleteLater()

    arun(scenario())
