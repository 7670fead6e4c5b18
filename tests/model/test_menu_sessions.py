"""Which sessions the menu lists: the most urgent, bounded, without the finished ones."""

from __future__ import annotations

import pytest

from desktop.core.model import SessionStatus
from desktop.model.menu_sessions import SessionShelf
from tests.model.builders import YOLO_SESSION, approval, gateway, session, snap


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_most_urgent_sessions_come_first():
    sessions = (
        session("idle", "Idle"),
        session("yolo", "Yolo", yolo=YOLO_SESSION),
        session("busy", "Busy", SessionStatus.WORKING),
        session("one", "One waiting"),
        session("three", "Three waiting"),
    )
    rows = (
        approval("a", sid="one"),
        *tuple(approval(f"t{i}", sid="three", batch="b3", position=i) for i in range(3)),
    )
    pick = SessionShelf(limit=4).pick(snap(gateway(sessions=sessions, approvals=rows)))
    assert [s.session_id for s in pick.sessions("g1")] == ["three", "one", "busy", "yolo"]
    assert len(pick.rest) == 1


def test_among_idle_sessions_the_one_that_went_idle_last_comes_first():
    clock = Clock()
    shelf = SessionShelf(clock, limit=2)
    old = (session("old1"), session("old2"))
    shelf.pick(snap(gateway(sessions=(*old, session("mine", status=SessionStatus.WORKING)))))
    clock.now += 30.0  # the person's task ends after the leftovers went idle
    pick = shelf.pick(snap(gateway(sessions=(*old, session("mine")))))
    assert [s.session_id for s in pick.sessions("g1")] == ["mine", "old1"]
    assert len(pick.rest) == 1


def test_an_idle_session_leaves_after_a_while_and_comes_back_when_busy():
    clock = Clock()
    shelf = SessionShelf(clock, finished_after=600.0)
    idle = snap(gateway(sessions=(session("s1"),)))
    assert [s.session_id for s in shelf.pick(idle).sessions("g1")] == ["s1"]
    assert shelf.next_change() == pytest.approx(1600.0)
    clock.now = 1599.0
    assert shelf.pick(idle).sessions("g1") != ()
    clock.now = 1600.0
    pick = shelf.pick(idle)
    assert pick.sessions("g1") == ()
    assert pick.finished == 1
    busy = snap(gateway(sessions=(session("s1", status=SessionStatus.WORKING),)))
    assert [s.session_id for s in shelf.pick(busy).sessions("g1")] == ["s1"]
    assert shelf.pick(idle).sessions("g1") != ()  # idle again: its time starts anew


def test_a_session_seen_busy_outranks_idle_leftovers_first_seen_at_the_same_moment():
    clock = Clock()
    shelf = SessionShelf(clock, limit=1)
    shelf.pick(snap(gateway(sessions=(session("mine", status=SessionStatus.WORKING),))))
    both_idle = snap(gateway(sessions=(session("left"), session("mine"))))
    assert [s.session_id for s in shelf.pick(both_idle).sessions("g1")] == ["mine"]


def test_when_every_session_turns_yolo_the_one_last_busy_still_comes_first():
    clock = Clock()
    shelf = SessionShelf(clock, limit=1)
    shelf.pick(
        snap(gateway(sessions=(session("left"), session("mine", status=SessionStatus.WORKING))))
    )
    clock.now += 5.0  # approval mode off for the gateway: every session reports YOLO on
    yolo = (session("left", yolo=YOLO_SESSION), session("mine", yolo=YOLO_SESSION))
    assert [s.session_id for s in shelf.pick(snap(gateway(sessions=yolo))).sessions("g1")] == [
        "mine"
    ]


def test_a_turn_seen_only_between_picks_still_ranks_its_session_first():
    clock = Clock()
    shelf = SessionShelf(clock, limit=1)
    leftovers = (session("left1"), session("left2"))
    shelf.pick(snap(gateway(sessions=leftovers)))  # the menu was last picked before the task
    clock.now += 1.0
    shelf.note_busy(
        snap(gateway(sessions=(*leftovers, session("mine", status=SessionStatus.WORKING))))
    )
    clock.now += 1.0  # the turn ended before events paused: the next pick sees it idle
    pick = shelf.pick(snap(gateway(sessions=(*leftovers, session("mine")))))
    assert [s.session_id for s in pick.sessions("g1")] == ["mine"]
    assert len(pick.rest) == 2
