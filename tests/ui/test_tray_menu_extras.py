"""The app-kept menu entries built offscreen: time-boxed YOLO choices and countdown, Recent
decisions (plain, bounded, disabled lines) with Open journal, and the Start at login switch."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMenu

from desktop.core.model import SessionStatus
from desktop.model.decision_log import LINE_LIMIT
from desktop.model.yolo_timer import BoxKind
from desktop.ui import icons
from desktop.ui.tray_menu import MenuExtras, build_menu
from tests.model.builders import YOLO_ENV, YOLO_SESSION, gateway, session, snap
from tests.ui.builders import MenuRecorder
from tests.ui.wired_app import menu_action, menu_actions, submenu


@pytest.fixture
def menu(qapp):
    m = QMenu()
    yield m
    m.deleteLater()


def names(menu):
    return [a.objectName() for a in menu_actions(menu)]


def test_a_session_offers_both_time_boxes_and_they_reach_the_command(menu):
    recorder = MenuRecorder()
    build_menu(menu, snap(gateway(sessions=(session("s1"),))), recorder.commands())
    assert menu_action(menu, "yolo-minutes:g1:s1").text() == "YOLO for 15 minutes"
    menu_action(menu, "yolo-minutes:g1:s1").trigger()
    menu_action(menu, "yolo-turn:g1:s1").trigger()
    assert recorder.calls == [
        ("timebox", "g1", "s1", BoxKind.MINUTES),
        ("timebox", "g1", "s1", BoxKind.TURN),
    ]


def test_the_turn_choice_names_the_next_turn_when_idle(menu):
    idle = session("s1")
    busy = dataclasses.replace(idle, running=True, status=SessionStatus.WORKING)
    build_menu(menu, snap(gateway(sessions=(idle,))), MenuRecorder().commands())
    assert menu_action(menu, "yolo-turn:g1:s1").text() == "YOLO for the next turn"
    build_menu(menu, snap(gateway(sessions=(busy,))), MenuRecorder().commands())
    assert menu_action(menu, "yolo-turn:g1:s1").text() == "YOLO until this turn ends"


def test_an_active_box_shows_its_countdown_instead_of_the_choices(menu):
    extras = MenuExtras(timeboxes={("g1", "s1"): "YOLO on · 12 min left"})
    on = session("s1", yolo=YOLO_SESSION)
    build_menu(menu, snap(gateway(sessions=(on,))), MenuRecorder().commands(), extras=extras)
    yolo = menu_action(menu, "yolo:g1:s1")
    assert yolo.text() == "YOLO on · 12 min left"
    assert yolo.isChecked()
    assert "yolo-minutes:g1:s1" not in names(menu)


def test_a_time_boxed_session_carries_the_clock_icon(menu, monkeypatch):
    drawn = []
    monkeypatch.setattr(icons, "tray_icon", lambda name, count=0: drawn.append(name) or QIcon())
    on = session("s1", yolo=YOLO_SESSION)
    build_menu(menu, snap(gateway(sessions=(on,))), MenuRecorder().commands())
    build_menu(
        menu,
        snap(gateway(sessions=(on,))),
        MenuRecorder().commands(),
        extras=MenuExtras(timeboxes={("g1", "s1"): "YOLO on · 12 min left"}),
    )
    assert drawn == ["yolo", "yolo-timed"]


def test_no_time_box_where_yolo_cannot_be_switched_from_here(menu):
    locked = session("s1", yolo=YOLO_ENV)
    build_menu(menu, snap(gateway(sessions=(locked,))), MenuRecorder().commands())
    assert "yolo-minutes:g1:s1" not in names(menu)
    assert "yolo-turn:g1:s1" not in names(menu)


def test_recent_decisions_are_plain_disabled_bounded_lines_with_details(menu):
    long = "echo " + "x" * 300
    extras = MenuExtras(
        recent=(("14:02 ✓ rm -rf a&b — approved (once)", "<b>details</b>"), (long, "d")),
        journal_available=True,
    )
    recorder = MenuRecorder()
    build_menu(menu, snap(gateway()), recorder.commands(), extras=extras)
    recent = submenu(menu, "recent-decisions")
    first, second = (a for a in recent.actions() if a.objectName().startswith("recent:"))
    assert first.text() == "14:02 ✓ rm -rf a&&b — approved (once)"  # & is not a mnemonic
    assert not first.isEnabled()
    assert "<" not in first.toolTip()  # tooltips may be read as rich text
    assert len(second.text()) <= LINE_LIMIT
    opener = menu_action(menu, "open-journal")
    assert opener.isEnabled()
    opener.trigger()
    assert recorder.calls == [("open_journal",)]


def test_an_empty_journal_says_so_and_cannot_be_opened(menu):
    extras = MenuExtras(recent=(), journal_available=False)
    build_menu(menu, snap(gateway()), MenuRecorder().commands(), extras=extras)
    assert menu_action(menu, "recent:none").text() == "No decisions yet"
    assert not menu_action(menu, "open-journal").isEnabled()


def test_without_a_journal_or_settings_the_entries_are_left_out(menu):
    build_menu(menu, snap(gateway()), MenuRecorder().commands())
    assert "open-journal" not in names(menu)
    assert "start-at-login" not in names(menu)


def test_start_at_login_is_a_checkable_switch(menu):
    recorder = MenuRecorder()
    extras = MenuExtras(start_at_login=False)
    build_menu(menu, snap(gateway()), recorder.commands(), extras=extras)
    switch = menu_action(menu, "start-at-login")
    assert switch.isCheckable()
    assert not switch.isChecked()
    switch.trigger()
    assert recorder.calls == [("set_start_at_login", True)]


def test_a_journal_that_cannot_be_written_is_said_in_the_menu(menu):
    extras = MenuExtras(recent=(), journal_problem="the disk is full; 2 decisions kept in memory")
    build_menu(menu, snap(gateway()), MenuRecorder().commands(), extras=extras)
    warning = menu_action(menu, "journal-problem")
    assert "the disk is full; 2 decisions kept in memory" in warning.text()
    assert not warning.isEnabled()


def test_a_healthy_journal_adds_no_warning(menu):
    build_menu(menu, snap(gateway()), MenuRecorder().commands(), extras=MenuExtras())
    assert "journal-problem" not in names(menu)
