"""Questions in the tray: the menu entry, the tooltip, the clarify window and its notification."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QLineEdit, QMenu, QPushButton

from desktop.core import prompt_book
from desktop.core.model import DecisionResult, Prompt, PromptKind, SessionStatus
from desktop.model.bridge_events import PromptUpdate
from desktop.model.tray_status import tray_status
from desktop.settings.model import Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.clarify_dialog import ClarifyDialog
from desktop.ui.notifications import PROMPT_BATCH, NotificationController
from desktop.ui.prompt_windows import PromptWindows
from desktop.ui.settings_controller import client_factory_for
from desktop.ui.tray_menu import build_menu
from tests.model.builders import gateway, session, snap
from tests.ui.builders import MenuRecorder

CLARIFY = Prompt(
    key="p1",
    session_id="s1",
    kind=PromptKind.CLARIFY,
    question="Deploy to prod\u202e?",
    choices=("main", "a & b"),
    answerable=True,
)
SUDO = Prompt(key="p2", session_id="s1", kind=PromptKind.SUDO, command="apt install x")
SECRET = Prompt(key="p3", session_id="s1", kind=PromptKind.SECRET, env_var="OPENAI_API_KEY")


def waiting_snapshot(*prompts: Prompt):
    view = gateway(sessions=(session(status=SessionStatus.WAITING),), dialect=None)
    return snap(replace(view, prompts=prompts))


def update(prompt: Prompt = CLARIFY, ended: str = "") -> PromptUpdate:
    return PromptUpdate("g1", "Local", prompt, "Fix the build", ended)


@pytest.fixture
def menu(qapp):
    m = QMenu()
    yield m
    m.deleteLater()


def actions(menu: QMenu) -> dict[str, QAction]:
    found: dict[str, QAction] = {}
    for action in menu.actions():
        found[action.objectName()] = action
        sub = action.menu()
        if isinstance(sub, QMenu):
            found[sub.objectName()] = action
            found.update(actions(sub))
    return found


# -- menu and tooltip ------------------------------------------------------------------------------
def test_the_session_entry_says_what_it_waits_for_and_opens_the_question(menu):
    recorder = MenuRecorder()
    commands = replace(
        recorder.commands(), answer_prompt=lambda g, k: recorder.calls.append((g, k))
    )
    build_menu(menu, waiting_snapshot(CLARIFY, SUDO, SECRET), commands)
    found = actions(menu)
    entry = found["session:g1:s1"].menu()
    assert entry.title() == "Fix the build — waiting for your answer: Deploy to prod⟨U+202E⟩?"
    answer = found["prompt:g1:p1"]
    assert answer.isEnabled()
    assert answer.text() == "   Answer: Deploy to prod⟨U+202E⟩?…"
    answer.trigger()
    assert recorder.calls == [("g1", "p1")]
    sudo, secret = found["prompt:g1:p2"], found["prompt:g1:p3"]
    assert not sudo.isEnabled()
    assert not secret.isEnabled()
    assert sudo.text() == "   waiting for a password in the Hermes window that runs this session"
    assert "waiting for a secret (OPENAI_API_KEY)" in secret.text()
    assert "(for: apt install x)" in sudo.toolTip()


def test_a_clarify_the_tray_cannot_answer_is_a_read_only_line(menu):
    recorder = MenuRecorder()
    commands = replace(recorder.commands(), answer_prompt=lambda g, k: recorder.calls.append(k))
    unfollowed = replace(CLARIFY, answerable=False, blocked_reason=prompt_book.NOT_FOLLOWED)
    build_menu(menu, waiting_snapshot(unfollowed), commands)
    line = actions(menu)["prompt:g1:p1"]
    assert not line.isEnabled()
    assert "does not follow" in line.toolTip()


def test_a_question_too_long_for_the_tray_says_answer_in_hermes_in_the_menu(menu):
    cut = replace(CLARIFY, answerable=False, blocked_reason=prompt_book.CUT)
    build_menu(menu, waiting_snapshot(cut), MenuRecorder().commands())
    line = actions(menu)["prompt:g1:p1"]
    assert not line.isEnabled()
    assert line.text().startswith("   Answer in Hermes: Deploy to prod")
    assert "longer than the tray shows" in line.toolTip()


def test_the_tray_counts_questions_as_needing_attention_and_names_them():
    status = tray_status(waiting_snapshot(CLARIFY, SUDO))
    assert (status.icon_name, status.count) == ("waiting", 2)
    lines = status.tooltip.split("\n")
    assert lines[0] == "Hermes Tray — 2 questions waiting"
    assert "Fix the build: waiting for your answer: Deploy to prod⟨U+202E⟩?" in lines
    assert any("waiting for a password in the Hermes window" in line for line in lines)


# -- the clarify window ----------------------------------------------------------------------------
def test_the_window_shows_the_question_revealed_and_sends_the_choice_clicked(qtbot):
    sent: list[tuple[str, str, str]] = []
    dialog = ClarifyDialog(update(), lambda *a: sent.append(a) or DecisionResult(True))
    qtbot.addWidget(dialog)
    assert dialog.question.text() == "Deploy to prod⟨U+202E⟩?"
    labels = [b.text() for b in dialog.choice_buttons]
    assert labels == ["main", "a && b"]  # a literal &, not a mnemonic
    assert dialog.typed_row.isVisibleTo(dialog)
    dialog.choice_buttons[1].click()
    assert sent == [("g1", "p1", "a & b")]
    assert not any(b.isEnabled() for b in dialog.choice_buttons)  # nothing more can be sent
    assert dialog.status.text() == "Answer sent."


def test_enter_never_picks_a_choice(qtbot):
    sent: list[tuple[str, str, str]] = []
    dialog = ClarifyDialog(update(), lambda *a: sent.append(a) or DecisionResult(True))
    qtbot.addWidget(dialog)
    assert not any(b.autoDefault() or b.isDefault() for b in dialog.findChildren(QPushButton))
    qtbot.keyClick(dialog.free_text, Qt.Key.Key_Return)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert sent == []
    qtbot.keyClicks(dialog.free_text, "prod")
    qtbot.keyClick(dialog.free_text, Qt.Key.Key_Return)
    assert sent == [("g1", "p1", "prod")]


def test_typed_text_goes_as_typed_and_a_refusal_says_why(qtbot):
    sent: list[str] = []

    def refuse(_g: str, _k: str, text: str) -> DecisionResult:
        sent.append(text)
        return DecisionResult(False, "an answer is at most 4000 characters")

    dialog = ClarifyDialog(update(), refuse)
    qtbot.addWidget(dialog)
    assert not dialog.send_button.isEnabled()
    qtbot.keyClicks(dialog.free_text, "  staging  ")
    dialog.send_button.click()
    assert sent == ["  staging  "]
    assert dialog.free_text.isEnabled()  # refused: the person may send again
    assert dialog.status.text() == "Not sent: an answer is at most 4000 characters"


def test_an_expired_question_disables_everything(qtbot):
    dialog = ClarifyDialog(update(), lambda *a: DecisionResult(False, "expired: no longer open"))
    qtbot.addWidget(dialog)
    dialog.choice_buttons[0].click()
    assert dialog.status.text() == "Expired — Hermes no longer waits for this answer."
    assert not any(b.isEnabled() for b in dialog.choice_buttons)
    assert not dialog.free_text.isEnabled()
    dialog.ended(prompt_book.ANSWERED_ELSEWHERE)
    assert dialog.status.text() == "Expired — it was answered elsewhere."


def test_only_choices_means_no_text_box_and_unanswerable_means_no_button(qtbot):
    only = replace(CLARIFY, free_text=False)
    dialog = ClarifyDialog(update(only), lambda *a: DecisionResult(True))
    qtbot.addWidget(dialog)
    assert not dialog.typed_row.isVisibleTo(dialog)
    dialog.update_prompt(replace(only, answerable=False, blocked_reason=prompt_book.CUT))
    assert not any(b.isEnabled() for b in dialog.choice_buttons)
    assert prompt_book.CUT in dialog.status.text()


def test_every_label_of_the_window_is_plain_text(qtbot):
    hostile = replace(CLARIFY, question="<b>bold</b> <a href='x'>link</a>", choices=("<i>x</i>",))
    dialog = ClarifyDialog(update(hostile), lambda *a: DecisionResult(True))
    qtbot.addWidget(dialog)
    for label in dialog.findChildren(QLabel):
        assert label.textFormat().name == "PlainText"
    assert dialog.question.text() == "<b>bold</b> <a href='x'>link</a>"
    assert [
        b.text() for b in dialog.findChildren(QPushButton) if b.objectName() == "clarify-choice:0"
    ] == ["<i>x</i>"]
    assert dialog.findChildren(QLineEdit)[0].maxLength() == prompt_book.MAX_ANSWER_CHARS


# -- windows and notifications, through the bridge's signals ---------------------------------------
OFFSCREEN_WINDOW = pytest.mark.qt_log_ignore("This plugin does not support raise")


@OFFSCREEN_WINDOW
def test_windows_follow_the_question_and_a_late_open_shows_it_expired(qtbot):
    bridge = GatewayBridge(client_factory_for(Settings))
    windows = PromptWindows(bridge)
    bridge.prompt_asked.emit(update(replace(CLARIFY, answerable=False)))
    window = windows.open("g1", "p1")  # the controller owns and deletes its windows
    assert window is not None
    assert not window.choice_buttons[0].isEnabled()
    bridge.prompt_asked.emit(update())
    assert window.choice_buttons[0].isEnabled()
    bridge.prompt_ended.emit(update(ended=prompt_book.EXPIRED))
    assert not window.choice_buttons[0].isEnabled()
    window.reject()
    assert windows.windows == {}
    late = windows.open("g1", "p1")
    assert late is not None
    assert late.status.text() == "Expired — Hermes no longer waits for this answer."
    bridge.prompt_asked.emit(update(SUDO))
    assert windows.open("g1", "p2") is None  # a password is never asked for here
    windows.dispose()
    windows.deleteLater()
    bridge.deleteLater()


def test_a_question_too_long_to_answer_here_gets_one_bubble_saying_where_to_answer(qtbot):
    bridge = GatewayBridge(client_factory_for(Settings))
    shown: list[tuple[str, str]] = []
    controller = NotificationController(bridge, lambda title, body: shown.append((title, body)))
    bridge.notifications_ready.emit(False)
    waiting = replace(
        CLARIFY, answerable=False, blocked_reason="the gateway's protocol is not known"
    )
    bridge.prompt_asked.emit(update(waiting))  # answerable here later: no bubble yet
    assert shown == []
    cut = replace(CLARIFY, answerable=False, blocked_reason=prompt_book.CUT)
    bridge.prompt_asked.emit(update(cut))
    bridge.prompt_asked.emit(update(cut))  # once
    assert shown == [("Question — Fix the build", f"Deploy to prod⟨U+202E⟩?\n({prompt_book.CUT})")]
    assert controller.last_plan is not None
    assert controller.last_plan.actions == ()  # nothing to answer here
    controller.dispose()
    controller.deleteLater()


def test_a_clarify_pops_one_bubble_without_answer_buttons_and_its_click_opens_it(qtbot):
    bridge = GatewayBridge(client_factory_for(Settings))
    shown: list[tuple[str, str]] = []
    controller = NotificationController(bridge, lambda title, body: shown.append((title, body)))
    reviews: list[tuple[str, str]] = []
    controller.review_requested.connect(lambda g, b: reviews.append((g, b)))
    bridge.notifications_ready.emit(False)  # no service: the balloon fallback
    bridge.prompt_asked.emit(update())
    bridge.prompt_asked.emit(update())  # the same question again: no second bubble
    bridge.prompt_asked.emit(update(SUDO))  # nothing the tray can answer: no bubble
    assert shown == [("Question — Fix the build", "Deploy to prod⟨U+202E⟩?")]
    plan = controller.last_plan
    assert plan is not None
    assert plan.batch_id == PROMPT_BATCH + "p1"
    assert [a.label for a in plan.actions] == ["Answer…"]
    controller.balloon_clicked()
    assert reviews == [("g1", PROMPT_BATCH + "p1")]
    controller.dispose()
    controller.deleteLater()
    bridge.deleteLater()
