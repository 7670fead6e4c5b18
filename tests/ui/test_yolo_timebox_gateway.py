"""Time-boxed YOLO end to end: tray menu -> bridge -> real client -> fake gateway on 127.0.0.1,
with an injected monotonic clock. The app turns YOLO off by itself (config.set yolo off) and
checks the gateway's session.info; a YOLO that stays on becomes a notice.

Each test is ONE coroutine (see tests/ui/test_bridge_gateway.py): ``tick()`` stands in for the
QTimer firing once the injected clock has moved (the timer itself is armed for real time).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, QTimer

from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import GatewayClient
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.snapshot import Link, session_title
from desktop.model.yolo_timer import BoxKind, Phase, YoloCheck
from desktop.ui import bridge as bridge_module
from tests.gatewaymodel import FakeGateway
from tests.ui.wired_app import GID, WiredApp, confirm_box
from tests.waiting import holds

MIN = 60.0
OFFSCREEN_BOX = pytest.mark.qt_log_ignore("This plugin does not support")


def armed(controller: QObject) -> bool:
    """The time-boxes' one timer is armed (a wake-up is due)."""
    timer = controller.findChild(QTimer)
    return timer is not None and timer.isActive()


def yolo_on(app: WiredApp, sid: str) -> bool:
    session = app.session(sid)
    return bool(session and session.yolo.effective)


@OFFSCREEN_BOX
def test_yolo_for_15_minutes_is_switched_off_and_verified_when_time_is_up(tray_app, qloop, arun):
    async def scenario():
        app = WiredApp(await FakeGateway("B", speed=0.01).start())
        await app.connected()
        sid = await app.new_session("hello")  # the default turn answers and goes idle
        await app.turn_over(sid)

        app.action(f"yolo-minutes:{GID}:{sid}").trigger()
        box = confirm_box()
        assert box is not None
        assert "15 minutes" in box.text()
        next(b for b in box.buttons() if "15 minutes" in b.text()).click()

        await holds(lambda: yolo_on(app, sid), app.bridge.snapshot_changed)
        assert app.config_sets() == ["on"]
        assert app.shell.yolo.boxes.box((GID, sid)).phase is Phase.ACTIVE
        assert app.action(f"yolo:{GID}:{sid}").text() == "YOLO on · 15 min left"
        assert app.shell.tray.status.icon_name == "yolo-timed"
        assert "YOLO on · 15 min left" in app.shell.tray.tray.toolTip()
        assert armed(app.shell.yolo)  # armed for the countdown's next minute

        app.clock.advance(14 * MIN + 1)
        app.shell.yolo.tick()
        assert app.action(f"yolo:{GID}:{sid}").text() == "YOLO on · less than a minute left"
        assert app.config_sets() == ["on"]  # not yet

        app.clock.advance(MIN)
        app.shell.yolo.tick()
        await holds(lambda: app.checks, app.bridge.yolo_checked)
        assert app.checks == [(GID, sid, YoloCheck.OFF)]
        assert app.config_sets() == ["on", "off"]
        assert app.fake.session(sid).yolo is False  # the gateway's own state
        assert not yolo_on(app, sid)
        assert not app.shell.yolo.boxes.labels(0)
        assert not armed(app.shell.yolo)  # no time-box, no wake-ups
        assert app.shell.tray.status.icon_name == "idle"
        assert app.action(f"yolo:{GID}:{sid}").text() == "YOLO: off — commands ask first"
        assert app.problems == []
        await app.close()

    arun(scenario(), timeout=30)


def test_yolo_until_this_turn_ends_is_switched_off_when_the_turn_completes(tray_app, qloop, arun):
    async def scenario():
        app = WiredApp(await FakeGateway("B", speed=0.01).start())
        await app.connected()
        sid = await app.new_session("[[scenario:single]] clean s1")
        waiting = await holds(lambda: app.view().waiting, app.bridge.snapshot_changed)
        assert app.session(sid).running
        assert app.action(f"yolo-turn:{GID}:{sid}").text() == "YOLO until this turn ends"

        app.shell.yolo.start(GID, sid, BoxKind.TURN)
        await holds(lambda: yolo_on(app, sid), app.bridge.snapshot_changed)
        assert app.action(f"yolo:{GID}:{sid}").text() == "YOLO on · until this turn ends"
        assert not armed(app.shell.yolo)  # a turn box needs no timer at all

        app.bridge.decide(
            DecisionRequest(GID, waiting[0].key, waiting[0].choices[0], Surface.DIALOG_BUTTON)
        )
        await holds(
            lambda: app.checks, app.bridge.yolo_checked
        )  # message.complete -> running false -> off + check
        assert app.checks == [(GID, sid, YoloCheck.OFF)]
        assert app.config_sets() == ["on", "off"]
        assert app.fake.session(sid).yolo is False
        assert not app.session(sid).running
        assert not app.shell.yolo.boxes.labels(0)
        await app.close()

    arun(scenario(), timeout=30)


def test_a_yolo_the_gateway_keeps_on_is_retried_once_then_reported(
    tray_app, qloop, arun, monkeypatch
):
    monkeypatch.setattr(bridge_module, "SETTLE_SECONDS", 0.3)  # for the gateway to report "off"

    async def scenario():
        app = WiredApp(await FakeGateway("B", speed=0.01).start())
        await app.connected()
        sid = await app.new_session("hello")
        await app.turn_over(sid)
        app.shell.yolo.start(GID, sid, BoxKind.MINUTES)
        await holds(lambda: yolo_on(app, sid), app.bridge.snapshot_changed)
        app.fake.world.policy.env_yolo = True  # as if HERMES_YOLO_MODE were frozen on

        app.clock.advance(15 * MIN)
        app.shell.yolo.tick()
        await holds(lambda: app.checks, app.bridge.yolo_checked, timeout=10)
        assert app.checks == [(GID, sid, YoloCheck.STILL_ON)]
        assert app.config_sets() == ["on", "off", "off"]  # one retry, no more
        [notice] = app.problems
        assert notice.level == "warning"
        title = session_title(app.session(sid))
        said = (notice.what, notice.where, notice.advice)
        assert said == (f"YOLO is still on for {title}", "", "turn it off in Hermes")
        assert not app.shell.yolo.boxes.labels(0)  # said once, not nagging every minute
        assert app.shell.tray.status.icon_name == "yolo"  # on, and no longer time-boxed
        await app.close()

    arun(scenario(), timeout=30)


def test_a_deadline_that_passes_while_disconnected_is_applied_after_reconnecting(
    tray_app, qloop, arun
):
    async def scenario():
        slow = BackoffPolicy(initial=60.0, jitter=0.0)  # stays away until told to reconnect
        fake = await FakeGateway("B", speed=0.01).start()
        app = WiredApp(
            fake, client_factory=lambda ep, ls: GatewayClient(ep, listener=ls, backoff=slow)
        )
        await app.connected()
        sid = await app.new_session("hello")
        await app.turn_over(sid)
        app.shell.yolo.start(GID, sid, BoxKind.MINUTES)
        await holds(lambda: yolo_on(app, sid), app.bridge.snapshot_changed)

        fake.drop()
        await holds(lambda: app.view().link is not Link.UP, app.bridge.snapshot_changed)
        app.clock.advance(16 * MIN)
        app.shell.yolo.tick()
        await holds(lambda: app.checks, app.bridge.yolo_checked)
        assert app.checks == [(GID, sid, YoloCheck.UNREACHABLE)]
        assert app.shell.yolo.boxes.box((GID, sid)).phase is Phase.OFF_PENDING
        assert app.problems == []
        assert fake.session(sid).yolo is True  # nothing could be sent

        app.bridge.reconnect(GID)
        await holds(lambda: len(app.checks) == 2, app.bridge.yolo_checked, timeout=10)
        assert app.checks[-1] == (GID, sid, YoloCheck.OFF)
        assert fake.session(sid).yolo is False
        assert app.config_sets() == ["on", "off"]
        assert not app.shell.yolo.boxes.labels(0)
        await app.close()

    arun(scenario(), timeout=30)
