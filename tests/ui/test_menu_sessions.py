"""The menu built from the session shelf: bounded entries, and Close from the menu."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMenu

from desktop.core.model import SessionStatus, TodoStatus
from desktop.model.menu_sessions import MENU_SESSIONS, SessionShelf
from desktop.ui.tray_menu import TODO_LINES, build_menu
from tests.model.builders import approval, gateway, session, snap, todos
from tests.ui.builders import MenuRecorder

MENU_ENTRY_LIMIT = 100  # issue 16: 2,000 sessions, at most 100 menu entries


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


def test_close_hides_an_idle_session_until_it_asks_again(menu):
    shelf = SessionShelf(lambda: 1000.0)
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


def test_the_quieter_sessions_are_a_submenu_whose_sessions_can_be_acted_on(menu):
    sessions = tuple(session(f"s{i}", f"Task {i}", SessionStatus.IDLE) for i in range(6))
    recorder = MenuRecorder()
    build_menu(menu, snap(gateway(sessions=sessions)), recorder.commands())
    more = next(a for a in menu.actions() if a.objectName() == "more-sessions").menu()
    assert more is not None
    listed = [a.menu().objectName() for a in more.actions() if a.menu() is not None]
    in_main = [a.menu().objectName() for a in menu.actions() if a.menu() not in (None, more)]
    assert set(listed) | set(in_main) == {f"session:g1:s{i}" for i in range(6)}
    assert not set(listed) & set(in_main)
    assert more.title() == f"{len(listed)} more sessions, quieter ones…"
    yolo = next(a for a in all_actions(more) if a.objectName() == f"yolo:g1:{listed[0][11:]}")
    yolo.trigger()
    assert recorder.calls == [("set_yolo", "g1", listed[0][11:], True)]
    assert len(all_actions(menu)) <= MENU_ENTRY_LIMIT
