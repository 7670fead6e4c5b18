"""The time-box controller with a stand-in client: it wakes up only while a minutes-box runs,
drops boxes whose YOLO never came on or whose session went away, and asks first in the menu."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QObject, QTimer

from desktop.core.events import SessionChanged, SessionRemoved
from desktop.model.yolo_timer import BoxKind, Phase
from desktop.ui.bridge import GatewayBridge
from desktop.ui.shell import TrayShell
from tests.model.builders import YOLO_SESSION, session
from tests.ui.standins import Endpoint, make_factory
from tests.ui.wired_app import ManualClock, confirm_box, menu_action
from tests.waiting import holds, poll_until

OFFSCREEN_BOX = pytest.mark.qt_log_ignore("This plugin does not support")


def armed(controller: QObject) -> bool:
    """The time-boxes' one timer is armed (a wake-up is due)."""
    timer = controller.findChild(QTimer)
    return timer is not None and timer.isActive()


@pytest.fixture
def wired(qloop, arun):
    clients: dict = {}
    clock = ManualClock()
    bridge = GatewayBridge(make_factory(clients))
    bridge.add_gateway(Endpoint("g1", "Local"))
    shell = TrayShell(bridge, on_quit=lambda: None, clock=clock)
    bridge.start(qloop)
    arun(poll_until(lambda: clients["g1"].status.dialect))
    client = clients["g1"]
    client.emit(SessionChanged(session("s1", "Fix the build")))
    yield shell, client, clock
    shell.dispose()
    arun(bridge.aclose())
    shell.deleteLater()
    bridge.deleteLater()


def test_no_timer_until_a_minutes_box_runs_and_none_after_it_ends(wired, arun):
    shell, client, _clock = wired
    assert not armed(shell.yolo)  # an idle tray never wakes up for time-boxes
    shell.yolo.start("g1", "s1", BoxKind.MINUTES)
    arun(poll_until(lambda: ("set_yolo", "s1", True) in client.calls))
    assert armed(shell.yolo)
    client.emit(SessionChanged(session("s1", yolo=YOLO_SESSION)))
    client.emit(SessionChanged(session("s1")))  # switched off elsewhere (Hermes, the toggle)
    assert not shell.yolo.boxes.labels(0)
    assert not armed(shell.yolo)


def test_a_turn_box_needs_no_timer(wired, arun):
    shell, client, _clock = wired
    shell.yolo.start("g1", "s1", BoxKind.TURN)
    arun(poll_until(lambda: ("set_yolo", "s1", True) in client.calls))
    assert shell.yolo.boxes.box(("g1", "s1")) is not None
    assert not armed(shell.yolo)


def test_a_yolo_that_could_not_be_turned_on_leaves_no_box(wired, arun):
    shell, client, _clock = wired
    client.fail_commands = True
    shell.yolo.start("g1", "s1", BoxKind.MINUTES)
    arun(poll_until(lambda: not shell.yolo.boxes.labels(0)))
    assert not armed(shell.yolo)
    assert shell.tray.status.icon_name == "idle"


def test_a_session_that_goes_away_takes_its_box(wired, arun):
    shell, client, _clock = wired
    shell.yolo.start("g1", "s1", BoxKind.MINUTES)
    client.emit(SessionRemoved("s1", "closed"))
    assert not shell.yolo.boxes.labels(0)
    assert not armed(shell.yolo)


def test_the_countdown_ticks_through_the_tooltip(wired, arun):
    shell, client, clock = wired
    shell.yolo.start("g1", "s1", BoxKind.MINUTES)
    client.emit(SessionChanged(session("s1", "Fix the build", yolo=YOLO_SESSION)))
    assert shell.yolo.boxes.box(("g1", "s1")).phase is Phase.ACTIVE
    assert "Fix the build: YOLO on · 15 min left" in shell.tray.tray.toolTip()
    clock.advance(5 * 60)
    shell.yolo.tick()  # what the timer does once a minute while the box runs
    assert "Fix the build: YOLO on · 10 min left" in shell.tray.tray.toolTip()


@OFFSCREEN_BOX
def test_the_menu_asks_before_a_time_boxed_yolo(wired, qtbot, arun):
    shell, client, _clock = wired
    busy = dataclasses.replace(session("s1", "Fix the build"), running=True)
    client.emit(SessionChanged(busy))
    shell.tray.rebuild_menu()
    menu_action(shell.tray.menu, "yolo-turn:g1:s1").trigger()
    box = confirm_box()
    assert box is not None
    assert "until its current turn ends" in box.text()
    assert not any(c[0] == "set_yolo" for c in client.calls)  # nothing before the answer
    box.reject()  # Cancel
    qtbot.waitUntil(lambda: confirm_box() is None)
    assert not shell.yolo.boxes.labels(0)
    assert not any(c[0] == "set_yolo" for c in client.calls)


def test_an_unexpected_failure_while_switching_off_is_reported_not_left_hanging(wired, arun):
    shell, client, clock = wired
    notices = []
    shell.yolo.notice_raised.connect(notices.append)
    shell.yolo.start("g1", "s1", BoxKind.MINUTES)
    client.emit(SessionChanged(session("s1", "Fix the build", yolo=YOLO_SESSION)))

    async def broken(session_id, on):
        raise RuntimeError("a bug")

    client.set_yolo = broken
    clock.advance(15 * 60)
    shell.yolo.tick()
    arun(holds(lambda: notices, shell.yolo.notice_raised))
    said = (notices[0].what, notices[0].where, notices[0].advice)
    assert said == ("YOLO is still on for Fix the build", "", "turn it off in Hermes")
    assert not shell.yolo.boxes.labels(0)
