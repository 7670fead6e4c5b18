"""What a card adds to the command: risk, context, the agent's words, the outcome, why re-asked."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from PySide6.QtGui import QFont, QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop.core.model import (
    NO_CONTEXT,
    AskedBecause,
    AskReason,
    CallContext,
    Choice,
    OutcomeKind,
    RunKind,
    RunResult,
)
from desktop.model.approvals import texts
from desktop.risk import RiskLevel
from desktop.ui.approvals.cards import RowCard
from desktop.ui.approvals.command_view import CommandView
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import approval, resolved
from tests.ui.approvals.factory import OFFSCREEN_WINDOWS, row_card, upsert

pytestmark = OFFSCREEN_WINDOWS


def marked_texts(view: CommandView) -> list[str]:
    """The text under each drawn highlight, read back from the document."""
    return [selection.cursor.selectedText() for selection in view.extraSelections()]


def card_of(dialog: ApprovalDialog, key: str) -> RowCard:
    card = row_card(dialog, "g", key)
    assert card is not None
    return card


def test_a_high_risk_command_has_a_badge_a_summary_and_marked_parts(
    dialog: ApprovalDialog,
) -> None:
    command = "cd /srv/www && rm -rf a b c && chmod 777 /srv/www"
    upsert(dialog, "g", "G", approval("a", command=command), "Deploy")
    card = card_of(dialog, "a")
    assert card.badge.text() == "High risk"
    assert card.badge.property("level") == "high"
    assert card.risk_summary.text() == "deletes 3 folders under /srv/www (and 1 more)"
    assert marked_texts(card.command) == ["rm -rf a b c", "777"]
    assert card.command.toPlainText() == command  # marks are drawn over, never written in


def test_a_plain_command_is_low_risk_and_unmarked(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a", command="ls -la"), "")
    card = card_of(dialog, "a")
    assert card.badge.text() == "Low risk"
    assert marked_texts(card.command) == []
    assert card.risk_summary.text() == "nothing risky found"


def test_marks_follow_the_revealed_text(dialog: ApprovalDialog) -> None:
    command = "echo \u202eok; rm -rf /x"
    upsert(dialog, "g", "G", approval("a", command=command), "")
    card = card_of(dialog, "a")
    assert card.command.toPlainText() == "echo ⟨U+202E⟩ok; rm -rf /x"
    assert sorted(marked_texts(card.command)) == ["rm -rf /x", "⟨U+202E⟩"]


def test_marks_count_utf16_units_after_wide_characters(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a", command="echo 🙂🙂 && rm -rf /x"), "")
    assert marked_texts(card_of(dialog, "a").command) == ["rm -rf /x"]


def test_a_summary_with_a_hidden_character_is_revealed_once(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a", command="rm -rf '/srv/a\u202eb'"), "")
    summary = card_of(dialog, "a").risk_summary.text()
    assert summary == "deletes /srv/a⟨U+202E⟩b and everything in it (and 1 more)"


def test_an_unreadable_command_says_so(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a", command='echo "never closed'), "")
    card = card_of(dialog, "a")
    assert card.badge.text() == "High risk"
    assert "could not be read" in card.risk_summary.text()


def test_folder_tool_and_agent_message_in_quiet_lines(dialog: ApprovalDialog, qtbot: QtBot) -> None:
    words = "I will clean the build output first, because the last run left stale files. " * 5
    context = CallContext(cwd="/home/ana/src/ux019", tool="terminal", agent_message=words)
    upsert(dialog, "g", "G", approval("a", context=context), "Fix CI")
    card = card_of(dialog, "a")
    assert card.context.text() == "in ~/src/ux019 · tool: terminal"
    short = card.agent.text()
    assert short.startswith("Agent: I will clean the build output first")
    assert short.endswith("…")
    assert len(short) < 200
    assert not card.agent_toggle.isHidden()
    card.agent_toggle.click()
    assert card.agent.text() == f"Agent: {words.strip()}"
    assert card.agent_toggle.text() == "Less"
    card.agent_toggle.click()
    assert card.agent.text() == short
    heading = dialog.findChild(QLabel, "sessionTitle")
    assert heading is not None
    assert heading.text() == "Session: Fix CI · ux019"


def test_no_context_no_lines(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a", context=NO_CONTEXT), "")
    card = card_of(dialog, "a")
    assert card.context.isHidden()
    assert card.agent.isHidden()
    assert card.agent_toggle.isHidden()
    assert card.result.isHidden()
    assert card.output.isHidden()


def test_the_same_words_twice_are_said_once(dialog: ApprovalDialog) -> None:
    a = approval("a", description="delete in root path", pattern_keys=("delete in root path",))
    upsert(dialog, "g", "G", a, "")
    card = card_of(dialog, "a")
    assert card.description.text() == "Hermes flagged: delete in root path"
    assert card.patterns.isHidden()


@pytest.mark.parametrize(
    ("result", "line", "output"),
    [
        (RunResult(RunKind.RAN, 0, "built\nok\n"), "Ran — exit 0", "built\nok"),
        (RunResult(RunKind.RAN, 1, ""), "Ran — failed with exit 1", ""),
        (RunResult(RunKind.RAN, None, "x"), "Ran", "x"),
        (RunResult(RunKind.BLOCKED), "Blocked — Hermes did not run it", ""),
        (
            RunResult(RunKind.TIMED_OUT),
            "Timed out — nobody answered in time, so Hermes did not run it",
            "",
        ),
        (RunResult(RunKind.WITHDRAWN), "Withdrawn — Hermes no longer asks about it", ""),
    ],
)
def test_the_outcome_after_the_answer(
    dialog: ApprovalDialog, result: RunResult, line: str, output: str
) -> None:
    a = resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE)
    upsert(dialog, "g", "G", replace(a, result=result), "")
    card = card_of(dialog, "a")
    assert card.result.text() == line
    assert card.output.text() == output
    assert card.output.isHidden() == (output == "")


def test_a_thrown_away_answer_does_not_read_approved(dialog: ApprovalDialog) -> None:
    a = resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE)
    upsert(dialog, "g", "G", replace(a, result=RunResult(RunKind.NOT_USED)), "")
    card = card_of(dialog, "a")
    assert card.state.text() == "Not used — Hermes asked again (see the row below)"
    assert card.state.property("tone") == "ended"
    assert card.result.isHidden()  # said once, on the state line


def test_long_output_shows_its_first_lines() -> None:
    output = "\n".join(f"line {i}" for i in range(40))
    text = texts.output_text(RunResult(RunKind.RAN, 0, output))
    assert text.splitlines()[:2] == ["line 0", "line 1"]
    assert text.splitlines()[-1] == "… 34 more lines"


@pytest.mark.parametrize(
    ("because", "note"),
    [
        (
            AskedBecause(AskReason.AFTER_DENY, "k", "k2", "b1", 1),
            "Asked again: you denied #2, so this needs a fresh decision.",
        ),
        (
            AskedBecause(AskReason.AFTER_FAILURE, "k", "k1", "b1", 0, 1),
            "Asked again: #1 failed with exit 1, so this needs a fresh decision.",
        ),
        (
            AskedBecause(AskReason.AFTER_FAILURE, "k", "k1", "b1", 0),
            "Asked again: #1 failed, so this needs a fresh decision.",
        ),
        (
            AskedBecause(AskReason.AFTER_TIMEOUT, "k", "k3", "b0", 2),
            "Asked again: #3 of an earlier batch timed out (nobody answered in time).",
        ),
        (
            AskedBecause(AskReason.AFTER_DENY),
            "Asked again: you denied an earlier command, so this needs a fresh decision.",
        ),
        (
            AskedBecause(AskReason.AGAIN),
            "Asked again: Hermes asked about this command once more and did not say why.",
        ),
    ],
)
def test_a_reask_says_truthfully_why(
    dialog: ApprovalDialog, because: AskedBecause, note: str
) -> None:
    upsert(dialog, "g", "G", approval("b", position=1, asked_because=because, reask_of="k"), "")
    card = card_of(dialog, "b")
    assert card.notes.text() == note
    assert card.number.text() == "Command 2 · asked again"


def test_a_first_ask_has_no_reask_note(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    assert card_of(dialog, "a").notes.isHidden()
    assert card_of(dialog, "a").number.text() == "Command 1"


@pytest.mark.parametrize(
    "field",
    ["command", "description", "agent_message", "output_head", "cwd"],
)
def test_a_300000_character_token_never_widens_the_card(
    dialog: ApprovalDialog, qtbot: QtBot, field: str
) -> None:
    token = "x" * 300_000
    a = approval("a")
    if field == "command":
        a = replace(a, command=token)
    elif field == "description":
        a = replace(a, description=token)
    elif field == "output_head":
        a = resolved(a, OutcomeKind.APPROVED, Choice.ONCE)
        a = replace(a, result=RunResult(RunKind.RAN, 0, token))
    else:
        kwargs = {"agent_message": token} if field == "agent_message" else {"cwd": "/" + token}
        a = replace(a, context=CallContext(**kwargs))
    dialog.resize(700, 600)
    upsert(dialog, "g", "G", a, "")
    dialog.show()
    card = card_of(dialog, "a")
    qtbot.waitUntil(lambda: card.isVisible())
    assert card.width() <= dialog.width()
    assert card.minimumSizeHint().width() <= dialog.width()


def test_shown_marks_map_through_escapes() -> None:
    from desktop.risk import assess

    command = "a\u200bb; rm -rf /x"
    marks = texts.shown_marks(command, assess(command).findings)
    shown, _ = texts.revealed(command)
    assert sorted(shown[s:e] for s, e, _ in marks) == ["rm -rf /x", "⟨U+200B⟩"]
    assert {level for _, _, level in marks} == {RiskLevel.HIGH}


def test_session_heading_names_the_folder_once() -> None:
    assert texts.session_heading("Fix CI", "s1", "/srv/ux019") == "Session: Fix CI · ux019"
    assert texts.session_heading("Fix CI · ux019", "s1", "/srv/ux019") == "Session: Fix CI · ux019"
    registry_name = "Fix CI · ux019 (2)"  # what SessionNames gives a second task in the folder
    assert texts.session_heading(registry_name, "s2", "/srv/ux019") == f"Session: {registry_name}"
    assert texts.session_heading("", "abcdef123", "/srv/ux019") == "Session: ux019 · session abcdef"
    assert texts.session_heading("", "abcdef123") == "Session abcdef123"
    assert texts.session_heading("Titled", "s1") == "Session: Titled"


def test_breakable_wraps_long_tokens_with_visible_line_breaks_only() -> None:
    text = texts.breakable("short " + "y" * 130)
    assert text == "short " + "y" * 60 + "\n" + "y" * 60 + "\n" + "y" * 10
    assert texts.breakable("a b c") == "a b c"
    path = "in /tmp/pytest-of-root/pytest-141/test_the_first_commands_result0/scratch/build"
    assert texts.breakable(path) == path  # Qt wraps it at its slashes, at the card's width
    numbered = "/srv/" + "/".join(str(n) for n in range(40))  # but never before a digit
    assert texts.breakable(numbered).count("\n") == 1


def _wrapped_at_every_chance(text: str) -> list[str]:
    """The lines Qt makes of ``text`` in a label one pixel wide: one per place it may wrap."""
    lines = []
    for paragraph in text.split("\n"):
        layout = QTextLayout(paragraph, QFont())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)  # what a word-wrapped QLabel uses
        layout.setTextOption(option)
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(1)
            lines.append(paragraph[line.textStart() : line.textStart() + line.textLength()])
        layout.endLayout()
    return lines


def test_qt_can_wrap_a_breakable_label_at_least_every_60_characters(qtbot: QtBot) -> None:
    """Where ``breakable`` leaves a token whole, Qt's own line breaker must find a place.

    Random tokens of path and URL punctuation; a wrong guess would leave a stretch Qt cannot
    wrap, drawn past the card's edge and cut off.
    """
    rng = random.Random(11)
    alphabet = "abcXYZ019/-_.:=+~%@()[]'\"é"
    longest = 0
    for _ in range(400):
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(61, 400)))
        lines = _wrapped_at_every_chance(texts.breakable(token))
        longest = max(longest, *(len(line.rstrip()) for line in lines))
    assert 40 < longest <= 60


def test_session_heading_reveals_hidden_characters_once() -> None:
    heading = texts.session_heading("fix\u202etests", "s1", "/srv/a\u200bb")
    assert "\u202e" not in heading
    assert "\u200b" not in heading
    assert heading == "Session: fix⟨U+202E⟩tests · a⟨U+200B⟩b"
