"""The menu lists the most urgent sessions, bounded, without the finished ones."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMenu

from desktop.core.model import SessionStatus, TodoStatus
from desktop.model.menu_sessions import MENU_SESSIONS, SessionShelf
from desktop.ui.tray_menu import TODO_LINES, build_menu
from tests.model.builders import YOLO_SESSION, approval, gateway, session, snap, todos
from tests.ui.builders import MenuRecorder

MENU_ENTRY_LIMIT = 100  # issue 16: 2,000 sessions, at most 100 menu entries


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def all_actions(menu):
    found = []
    for action in menu.actions():
        found.append(action)
        if action.menu() is not None:
            found.extend(all_actions(action.menu()))
    return found


@pytest.fixture
def menu(qapp):
    m = QMenu()
    yield m
    m.deleteLater()


def many(n_sessions, n_waiting_sessions=0, rows_each=0, plan=None):
    sessions = tuple(
        session(f"s{i}", f"Task {i}", SessionStatus.IDLE, todos=plan) for i in range(n_sessions)
    )
    rows = tuple(
        approval(f"k{i}-{j}", sid=f"s{i}", batch=f"b{i}", position=j)
        for i in range(n_waiting_sessions)
        for j in range(rows_each)
    )
    return snap(gateway(sessions=sessions, approvals=rows))


def test_two_thousand_sessions_make_at_most_a_hundred_entries_and_say_how_many_more(menu):
    plan = todos(*((f"step {i}", TodoStatus.PENDING) for i in range(40)))
    build_menu(menu, many(2000, 100, 100, plan), MenuRecorder().commands())
    entries = all_actions(menu)
    assert len(entries) <= MENU_ENTRY_LIMIT
    sessions = [
        a.menu().objectName()
        for a in menu.actions()
        if a.menu() is not None and a.menu().objectName().startswith("session:")
    ]
    assert 1 <= len(sessions) <= MENU_SESSIONS
    assert sessions[0] == "session:g1:s0"  # the most urgent (100 rows waiting, the first)
    more = next(a for a in menu.actions() if a.objectName() == "more-sessions")
    assert more.text() == f"{2000 - len(sessions):,} more sessions, quieter ones…"
    todo_lines = [a for a in entries if a.objectName().startswith("todo:g1:s0:")]
    assert len(todo_lines) == TODO_LINES


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
    assert pick.more == 1


def test_among_idle_sessions_the_one_that_went_idle_last_comes_first():
    clock = Clock()
    shelf = SessionShelf(clock, limit=2)
    old = (session("old1"), session("old2"))
    shelf.pick(snap(gateway(sessions=(*old, session("mine", status=SessionStatus.WORKING)))))
    clock.now += 30.0  # the person's task ends after the leftovers went idle
    pick = shelf.pick(snap(gateway(sessions=(*old, session("mine")))))
    assert [s.session_id for s in pick.sessions("g1")] == ["mine", "old1"]
    assert pick.more == 1


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


def test_close_hides_an_idle_session_until_it_asks_again(menu):
    shelf = SessionShelf(Clock())
    idle = snap(gateway(sessions=(session("s1"), session("s2", "Other"))))
    recorder = MenuRecorder()
    calls = []
    commands = recorder.commands()
    commands = type(commands)(
        **{**commands.__dict__, "close_session": lambda g, s: calls.append((g, s))}
    )
    build_menu(menu, idle, commands, pick=shelf.pick(idle))
    close = next(a for a in all_actions(menu) if a.objectName() == "close:g1:s1")
    close.trigger()
    assert calls == [("g1", "s1")]
    shelf.close("g1", "s1")
    assert [s.session_id for s in shelf.pick(idle).sessions("g1")] == ["s2"]
    asking = snap(gateway(sessions=(session("s1"), session("s2")), approvals=(approval(sid="s1"),)))
    assert [s.session_id for s in shelf.pick(asking).sessions("g1")] == ["s1", "s2"]
    assert [s.session_id for s in shelf.pick(idle).sessions("g1")] == ["s1", "s2"]


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
