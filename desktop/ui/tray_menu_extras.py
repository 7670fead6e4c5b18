"""The parts of the tray menu that come from the app, not from the gateway snapshot.

Time-boxed YOLO, the journal's recent lines and start at login arrive as one frozen
:class:`MenuExtras` value, so the menu stays a function of its inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from desktop.core.model import SessionState
from desktop.model.decision_log import LINE_LIMIT
from desktop.model.plain_text import menu_label, tooltip_fragment

TIMEBOX_MINUTES = "minutes"  # MenuCommands.timebox kinds (yolo_timer.BoxKind values)
TIMEBOX_TURN = "turn"


@dataclass(frozen=True)
class MenuExtras:
    """What the menu shows besides the snapshot; a None hides its entry."""

    timeboxes: Mapping[tuple[str, str], str] = field(default_factory=dict)  # key -> YOLO line
    recent: tuple[tuple[str, str], ...] | None = None  # (line, details), newest first
    journal_available: bool = False  # "Open journal" has a file to open
    start_at_login: bool | None = None
    journal_problem: str = ""  # why decisions are held in memory instead of the journal
    holding_notifications: bool = False  # do-not-disturb holds approval notifications


def _named(action: QAction, name: str) -> QAction:
    action.setObjectName(name)
    return action


def add_timebox_actions(
    sub: QMenu,
    gid: str,
    session: SessionState,
    timebox: Callable[[str, str, str], None],
    minutes: int = 15,
) -> None:
    """Add the time-boxed YOLO choices: for 15 minutes, and until this (or the next) turn ends."""
    sid = session.session_id
    label = f"YOLO for {minutes} minutes"
    for_minutes = _named(sub.addAction(label), f"yolo-minutes:{gid}:{sid}")
    for_minutes.setToolTip("YOLO on now; Hermes Tray turns it off again when the time is up.")
    for_minutes.triggered.connect(lambda _=False: timebox(gid, sid, TIMEBOX_MINUTES))
    turn_text = "YOLO until this turn ends" if session.running else "YOLO for the next turn"
    for_turn = _named(sub.addAction(turn_text), f"yolo-turn:{gid}:{sid}")
    for_turn.setToolTip("YOLO on now; Hermes Tray turns it off when the agent's turn is over.")
    for_turn.triggered.connect(lambda _=False: timebox(gid, sid, TIMEBOX_TURN))


def add_app_items(
    menu: QMenu,
    extras: MenuExtras,
    *,
    open_journal: Callable[[], None] | None,
    set_start_at_login: Callable[[bool], None] | None,
) -> None:
    """The Recent decisions submenu (with Open journal) and the Start at login switch."""
    if extras.journal_problem:
        warning = _named(
            menu.addAction(menu_label(f"⚠ Journal not written: {extras.journal_problem}", 90)),
            "journal-problem",
        )
        warning.setEnabled(False)  # a state, not a command; the journal retries by itself
        warning.setToolTip("Decisions are kept in memory and written once the journal can be.")
    if extras.recent is not None:
        recent = QMenu(menu_label("Recent decisions"), menu)
        recent.setObjectName("recent-decisions")
        recent.setToolTipsVisible(True)
        menu.addMenu(recent)
        if not extras.recent:
            _named(recent.addAction("No decisions yet"), "recent:none").setEnabled(False)
        for index, (line, details) in enumerate(extras.recent):
            item = _named(recent.addAction(menu_label(line, LINE_LIMIT)), f"recent:{index}")
            item.setEnabled(False)  # a record, not a command
            item.setToolTip(tooltip_fragment(details, 300))
        recent.addSeparator()
        opener = _named(recent.addAction("Open journal"), "open-journal")
        opener.setEnabled(extras.journal_available and open_journal is not None)
        opener.setToolTip("The full decision journal (JSON Lines), in your default application.")
        if open_journal is not None:
            opener.triggered.connect(lambda _=False: open_journal())
    if extras.start_at_login is not None and set_start_at_login is not None:
        login = _named(menu.addAction("Start at login"), "start-at-login")
        login.setCheckable(True)
        login.setChecked(extras.start_at_login)
        login.setToolTip("Start Hermes Tray when you log in to this computer.")
        login.toggled.connect(set_start_at_login)
