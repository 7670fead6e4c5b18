"""The tray menu built from a snapshot, read back offscreen: texts, checks, enabled states."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from desktop.core.model import Dialect, SessionStatus, TodoStatus, Usage
from desktop.model.snapshot import Link
from desktop.ui.tray_menu import build_menu
from tests.model.builders import (
    YOLO_ENV,
    YOLO_MODE_OFF,
    YOLO_SESSION,
    approval,
    gateway,
    session,
    snap,
    todos,
)
from tests.ui.builders import MenuRecorder


@pytest.fixture
def menu(qapp):
    m = QMenu()
    yield m
    m.deleteLater()


def build(menu, snapshot, recorder=None):
    recorder = recorder or MenuRecorder()
    build_menu(menu, snapshot, recorder.commands())
    return recorder


def find(menu: QMenu, name: str) -> QAction:
    found = [a for a in menu.findChildren(QAction) if a.objectName() == name]
    found += [a for a in _all_actions(menu) if a.objectName() == name and a not in found]
    assert found, f"no action {name!r} in {[a.objectName() for a in _all_actions(menu)]}"
    return found[0]


def _all_actions(menu: QMenu) -> list[QAction]:
    actions = []
    for action in menu.actions():
        actions.append(action)
        if action.menu() is not None:
            actions.extend(_all_actions(action.menu()))
    return actions


def submenu(menu: QMenu, name: str) -> QMenu:
    sub = menu.findChild(QMenu, name)
    assert sub is not None, name
    return sub


USAGE = Usage(input=12345, output=678, total=13023, calls=7, context_percent=42.0, cost_usd=0.0123)
PLAN = todos(
    ("write code", TodoStatus.COMPLETED),
    ("run tests", TodoStatus.IN_PROGRESS),
    ("push", TodoStatus.PENDING),
    ("dance", TodoStatus.CANCELLED),
)


def test_top_level_entries_and_gateway_header(menu):
    rec = build(menu, snap(gateway(sessions=(session(),), approvals=(approval(),))))
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts[0] == "Local — connected · Hermes 0.19.0"
    assert not menu.actions()[0].isEnabled()
    assert texts[-4:] == ["Review approvals… (1)", "New task…", "Settings…", "Quit Hermes Tray"]
    find(menu, "reconnect:g1").trigger()
    find(menu, "review").trigger()
    find(menu, "quit").trigger()
    assert rec.calls == [("reconnect", "g1"), ("review",), ("quit",)]


def test_session_submenu_shows_status_usage_cost_and_todos(menu):
    s = session(status=SessionStatus.WORKING, usage=USAGE, todos=PLAN)
    build(menu, snap(gateway(sessions=(s,))))
    sub = submenu(menu, "session:g1:s1")
    assert sub.title() == "Fix the build — working"
    lines = [a.text() for a in sub.actions() if not a.isSeparator()]
    assert lines[:5] == [
        "Status: working",
        "Tokens: 12,345 in · 678 out · 13,023 total",
        "API calls: 7",
        "Context: 42%",
        "Cost: $0.0123",
    ]
    assert find(menu, "todo-progress:g1:s1").text() == "Plan: 1/3 · now: run tests"
    marks = [find(menu, f"todo:g1:s1:{i}").text().strip()[0] for i in range(4)]
    assert marks == ["☑", "◐", "☐", "✗"]


def test_the_tokens_line_names_reasoning_tokens_when_the_gateway_counts_some(menu):
    """Without any (``USAGE`` above) the line stays as it was."""
    thinking = session(usage=Usage(input=1000, output=250, total=1250, reasoning=1200))
    build(menu, snap(gateway(sessions=(thinking,))))
    assert find(menu, "tokens:g1:s1").text() == (
        "Tokens: 1,000 in · 250 out · 1,250 total · 1,200 reasoning"
    )


@pytest.mark.parametrize(
    ("usage", "text", "level"),
    [
        (Usage(context_percent=79.4), "Context: 79%", "ok"),
        (Usage(context_percent=80.0), "Context: 80% ⚠", "high"),
        (
            Usage(context_used=190_000, context_max=200_000),
            "Context: 95% (190,000 / 200,000) ‼",
            "critical",
        ),
    ],
)
def test_context_level_is_marked_by_glyph_and_coloured_icon(menu, usage, text, level):
    build(menu, snap(gateway(sessions=(session(usage=usage),))))
    line = find(menu, "context:g1:s1")
    assert line.text() == text
    assert line.data() == level
    assert not line.icon().isNull()


def test_no_context_or_cost_lines_when_not_sent(menu):
    build(menu, snap(gateway(sessions=(session(usage=Usage(total=5)),))))
    names = [a.objectName() for a in _all_actions(menu)]
    assert "context:g1:s1" not in names
    assert "cost:g1:s1" not in names
    assert "todo-progress:g1:s1" not in names


@pytest.mark.parametrize(
    ("yolo", "checked", "enabled", "text"),
    [
        (None, False, True, "YOLO: off — commands ask first"),
        (YOLO_SESSION, True, True, "YOLO: on — commands run without asking"),
        (YOLO_MODE_OFF, True, False, "YOLO: on — approvals are off for this whole gateway"),
        (YOLO_ENV, True, False, "YOLO: on — Hermes was started with YOLO on"),
    ],
)
def test_yolo_toggle_shows_effective_state_and_source(menu, yolo, checked, enabled, text):
    build(menu, snap(gateway(sessions=(session(yolo=yolo),))))
    action = find(menu, "yolo:g1:s1")
    assert action.isCheckable()
    assert (action.isChecked(), action.isEnabled(), action.text()) == (checked, enabled, text)
    if not enabled:
        assert "turn it off" in action.toolTip()


def test_yolo_toggle_calls_with_the_new_state(menu):
    rec = build(menu, snap(gateway(sessions=(session(),))))
    find(menu, "yolo:g1:s1").trigger()
    assert rec.calls == [("set_yolo", "g1", "s1", True)]


def test_approval_mode_is_global_and_goes_through_choose_mode(menu):
    rec = build(menu, snap(gateway(sessions=(session(mode="smart"),))))
    modes = {m: find(menu, f"mode:g1:s1:{m}") for m in ("manual", "smart", "off")}
    assert [m for m, a in modes.items() if a.isChecked()] == ["smart"]
    assert submenu(menu, "mode-menu:g1:s1").title() == "Approval mode: smart"
    modes["off"].trigger()
    assert rec.calls == [("choose_mode", "g1", "off")]


def test_approval_mode_disabled_with_reason_on_canonical(menu):
    rec = build(menu, snap(gateway(dialect=Dialect.C, sessions=(session(),))))
    modes = [find(menu, f"mode:g1:s1:{m}") for m in ("manual", "smart", "off")]
    assert not any(a.isEnabled() for a in modes)
    reason = find(menu, "mode-locked:g1:s1")
    assert "canonical gateway does not let clients change" in reason.text()
    modes[2].trigger()
    assert rec.calls == []


def test_interrupt_targets_the_session(menu):
    rec = build(menu, snap(gateway(sessions=(session(status=SessionStatus.WORKING),))))
    find(menu, "interrupt:g1:s1").trigger()
    assert rec.calls == [("interrupt", "g1", "s1")]


def test_idle_session_cannot_be_interrupted(menu):
    build(menu, snap(gateway(sessions=(session(),))))
    assert not find(menu, "interrupt:g1:s1").isEnabled()


def test_waiting_session_says_so(menu):
    build(menu, snap(gateway(sessions=(session(),), approvals=(approval(), approval("k2")))))
    assert submenu(menu, "session:g1:s1").title() == "Fix the build — waiting on you"
    assert find(menu, "status:g1:s1").text() == "Status: waiting on you (2 to review)"


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("<b>x</b>", "<b>x</b> — idle"),
        ("<img src=x>", "<img src=x> — idle"),
        ("R&D", "R&&D — idle"),  # && is Qt's escape for a literal &
        ("evil\u202etxt.exe", "evil\u27e8U+202E\u27e9txt.exe — idle"),
        ("tab\there\nline", "tab here ⏎ line — idle"),
    ],
)
def test_hostile_titles_are_rendered_literally(menu, title, shown):
    build(menu, snap(gateway(sessions=(session(title=title),))))
    assert submenu(menu, "session:g1:s1").title() == shown


def test_hostile_todo_and_gateway_texts(menu):
    plan = todos(("<i>a</i> & b\u202e", TodoStatus.IN_PROGRESS))
    build(menu, snap(gateway(name="A&B <b>", sessions=(session(todos=plan),))))
    assert find(menu, "gateway:g1").text().startswith("A&&B <b> — connected")
    assert find(menu, "todo:g1:s1:0").text() == "   ◐ <i>a</i> && b\u27e8U+202E\u27e9"


def test_disconnected_gateway_offers_reconnect_but_no_sessions(menu):
    s = gateway(link=Link.FAILED, error="Token refused by 127.0.0.1:9119; fix it in Settings.")
    rec = build(menu, snap(s))
    names = [a.objectName() for a in _all_actions(menu)]
    assert "gateway-error:g1" in names
    assert not any(n.startswith("session:") for n in names)
    find(menu, "reconnect:g1").trigger()
    assert rec.calls == [("reconnect", "g1")]


def test_no_gateway_and_no_sessions_are_explained(menu):
    build(menu, snap())
    assert menu.actions()[0].text() == "No gateway configured — see Settings…"
    build(menu, snap(gateway()))
    assert find(menu, "no-sessions:g1").text().strip().startswith("No live sessions")


def test_rebuilding_replaces_old_submenus(menu, qapp):
    from PySide6.QtCore import QCoreApplication, QEvent

    build(menu, snap(gateway(sessions=(session("a"), session("b")))))
    build(menu, snap(gateway(sessions=(session("c"),))))
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    direct = menu.findChildren(QMenu)
    assert [m.objectName() for m in direct if m.objectName().startswith("session:")] == [
        "session:g1:c"
    ]


@pytest.mark.parametrize(
    ("label", "exported"),
    [
        ("R&D", "R&&D"),  # Qt's export turns the first & into the host's mnemonic _
        ("a && b && c", "a &&& b && c"),
        ("my_project", "my\u02cdproject"),  # hosts read _ as a mnemonic: use a look-alike
        ("x_y & z", "x\u02cdy && z"),
        ("plain", "plain"),
    ],
)
def test_labels_for_a_status_notifier_host(label, exported):
    from desktop.model.plain_text import exported_label

    assert exported_label(label) == exported


def test_exported_menu_relabels_every_level(menu):
    plan = todos(("a_b && c", TodoStatus.PENDING))
    build_menu(
        menu,
        snap(gateway(sessions=(session(title="R&D_1", todos=plan),))),
        MenuRecorder().commands(),
        exported=True,
    )
    assert submenu(menu, "session:g1:s1").title() == "R&&D\u02cd1 — idle"
    assert find(menu, "todo:g1:s1:0").text() == "   ☐ a\u02cdb &&& c"
    assert find(menu, "review").text() == "Review approvals…"
