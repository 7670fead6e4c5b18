"""What a row shows: every state, hostile text rendered literally, a 1 MB command."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.model import NO_CONTEXT, ApprovalPhase, Choice, OutcomeKind
from desktop.ui.approvals.cards import STYLESHEET, RowCard
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import HOSTILE, approval, resolved, sending
from tests.ui.approvals.factory import OFFSCREEN_WINDOWS, row_card, row_cards, upsert, widget_for

pytestmark = OFFSCREEN_WINDOWS


def shown_card(dialog: ApprovalDialog, key: str, gateway: str = "g") -> RowCard:
    card = row_card(dialog, gateway, key)
    assert card is not None
    return card


def visible_choices(card: RowCard) -> dict[Choice, bool]:
    return {c: b.isEnabled() for c, b in card.buttons.items() if not b.isHidden()}


def test_waiting_row_shows_command_description_patterns_and_its_own_choices(
    dialog: ApprovalDialog,
) -> None:
    a = approval(
        "a",
        command="rm -rf build/",
        description="recursive delete",
        pattern_keys=("recursive_delete", "rm_force"),
        choices=(Choice.ONCE, Choice.DENY),
    )
    upsert(dialog, "g", "Laptop", a, "Fix CI")
    card = shown_card(dialog, "a")
    assert card.command.toPlainText() == "rm -rf build/"
    assert card.state.text() == "Waiting for you"
    assert card.description.text() == "Why Hermes asks: recursive delete"
    assert card.patterns.text() == "Pattern: recursive_delete, rm_force"
    assert [b.text() for b in card.buttons.values()] == ["Approve once", "Deny"]
    assert visible_choices(card) == {Choice.ONCE: True, Choice.DENY: True}
    assert card.hidden_warning.isHidden()
    assert card.reconfirm.isHidden()


def test_choice_buttons_follow_the_servers_order(dialog: ApprovalDialog) -> None:
    canonical = (Choice.ONCE, Choice.DENY, Choice.SESSION, Choice.ALWAYS)  # dialect C's order
    upsert(dialog, "g", "G", approval("a", choices=canonical), "")
    assert list(shown_card(dialog, "a").buttons) == list(canonical)


@pytest.mark.parametrize(
    ("value", "state", "buttons_shown", "greyed"),
    [
        (sending(approval("a")), "Sending…", True, False),
        (
            resolved(approval("a"), OutcomeKind.APPROVED, Choice.ONCE),
            "Approved (once)",
            False,
            True,
        ),
        (resolved(approval("a"), OutcomeKind.DENIED, Choice.DENY), "Denied", False, True),
        (
            resolved(approval("a"), OutcomeKind.WITHDRAWN, reason="cancelled elsewhere"),
            "Withdrawn — cancelled elsewhere",
            False,
            True,
        ),
        (resolved(approval("a"), OutcomeKind.EXPIRED), "Expired", False, True),
        (
            resolved(approval("a"), OutcomeKind.UNKNOWN, reason="connection lost"),
            "Unknown — connection lost",
            False,
            True,
        ),
    ],
)
def test_every_later_state_is_shown(
    dialog: ApprovalDialog, value: object, state: str, buttons_shown: bool, greyed: bool
) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    upsert(dialog, "g", "G", value, "")  # type: ignore[arg-type]
    card = shown_card(dialog, "a")
    assert card.state.text() == state
    assert all(not b.isEnabled() for b in card.buttons.values())
    assert all(b.isHidden() is not buttons_shown for b in card.buttons.values())
    assert card.property("resolved") is greyed
    assert card.command.toPlainText() == "rm -rf build/"  # resolved rows stay readable


def test_blocked_row_shows_the_reason_and_offers_nothing(dialog: ApprovalDialog) -> None:
    upsert(dialog, "g", "G", approval("a"), "")
    blocked = approval("b", position=1, answerable=False, blocked_reason="answer command 1 first")
    upsert(dialog, "g", "G", blocked, "")
    card = shown_card(dialog, "b")
    assert card.state.text() == "Waiting — answer command 1 first"
    assert visible_choices(card) == dict.fromkeys(blocked.choices, False)
    batch_card = widget_for(dialog.list_view, card.entry.batch)
    badge = batch_card.findChild(QLabel, "orderBadge")  # type: ignore[union-attr]
    assert badge is not None
    assert badge.text() == "in order"
    assert not badge.isHidden()


def test_notes_for_smart_deny_and_reask(dialog: ApprovalDialog) -> None:
    smart = approval("a", smart_denied=True, choices=(Choice.ONCE, Choice.DENY))
    upsert(dialog, "g", "G", smart, "")
    upsert(dialog, "g", "G", approval("b", position=1, reask_of="a"), "")
    assert "safety check denied" in shown_card(dialog, "a").notes.text()
    assert shown_card(dialog, "b").notes.text().startswith("Asked again")


LITERAL = "<b>x</b> <img src=x> <a href='https://evil.example'>go</a> ⟨U+202E⟩exe.txt ⟨U+200B⟩zw"


def test_hostile_strings_render_literally_everywhere(dialog: ApprovalDialog) -> None:
    # a pattern key that differs from the description: equal ones are said once (texts.flag_lines)
    a = approval("a", command=HOSTILE, description=HOSTILE, pattern_keys=(HOSTILE, "x"))
    upsert(dialog, "g", HOSTILE, a, HOSTILE)
    card = shown_card(dialog, "a")
    gateway_title = dialog.findChild(QLabel, "gatewayTitle")
    session_title = dialog.findChild(QLabel, "sessionTitle")
    assert gateway_title is not None
    assert session_title is not None
    shown = {
        "command": card.command.toPlainText(),
        "description": card.description.text(),
        "pattern keys": card.patterns.text(),
        "session title": session_title.text(),
        "gateway name": gateway_title.text(),
    }
    for where, text in shown.items():
        assert LITERAL in text, where
    labels = dialog.findChildren(QLabel)
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    assert isinstance(card.command, QPlainTextEdit)  # never a rich-text widget for commands
    everything = "\n".join([label.text() for label in labels] + [card.command.toPlainText()])
    assert "\u202e" not in everything
    assert "\u200b" not in everything
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in card.hidden_warning.text()
    assert "U+200B ZERO WIDTH SPACE" in card.hidden_warning.text()
    assert not card.hidden_warning.isHidden()
    # No widget carries gateway text in a tooltip (QToolTip renders rich text).
    tips = [w.toolTip() for w in dialog.findChildren(QPushButton) + labels]
    assert not any("<" in tip or "\u202e" in tip for tip in tips)


def test_multi_line_command_keeps_its_lines(dialog: ApprovalDialog) -> None:
    command = "cat <<'EOF' > x.sh\necho hi\n\tindent\nEOF"
    upsert(dialog, "g", "G", approval("a", command=command), "")
    assert shown_card(dialog, "a").command.toPlainText() == command


def test_one_megabyte_command_renders_whole_and_quickly(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    command = "echo " + "QUJD" * 262_143 + " | base64 -d | sh"  # one 1 MB token: the worst case
    assert len(command) > 1_000_000
    started = time.perf_counter()
    upsert(dialog, "g", "G", approval("a", command=command, expires_at=1060.0), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    card = shown_card(dialog, "a")
    qtbot.waitUntil(lambda: card.command.toPlainText() != "")  # laid out once, at its width
    dialog.repaint()
    elapsed = time.perf_counter() - started
    assert card.command.toPlainText() == command  # nothing cut
    assert card.command.height() < 400  # scrolls instead of growing
    assert card.command.verticalScrollBar().maximum() > 0
    assert elapsed < 5.0, f"upsert + show of 1 MB took {elapsed:.2f} s"
    # An update of the same row does not lay the megabyte out again.
    started = time.perf_counter()
    upsert(dialog, "g", "G", replace(card.entry.approval, phase=ApprovalPhase.SENDING), "")
    assert time.perf_counter() - started < 0.25


@pytest.fixture
def grey_placeholder(qapp: QApplication) -> Iterator[None]:
    """A placeholder-text colour unlike the text's (offscreen, both are black)."""
    kept = QApplication.palette()
    palette = QPalette(kept)
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor("#777777"))
    QApplication.setPalette(palette)
    yield
    QApplication.setPalette(kept)


@pytest.mark.usefixtures("grey_placeholder")
def test_a_card_resolved_in_place_greys_out_every_child_the_sheet_names(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """The sheet greys those children by rules that name the card's state, not their own."""
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    upsert(dialog, "g", "G", approval("a", description="lists a folder", context=NO_CONTEXT), "")
    card = shown_card(dialog, "a")
    qtbot.waitUntil(card.isVisible)
    shaded = card.shaded_when_resolved()
    named = set(re.findall(r'#rowCard\[resolved="true"\] #(\w+)', STYLESHEET))
    assert {w.objectName() for w in shaded} == named

    def ink() -> dict[str, str]:
        return {w.objectName(): w.palette().color(w.foregroundRole()).name() for w in shaded}

    before = ink()
    assert "#777777" not in before.values()
    upsert(
        dialog,
        "g",
        "G",
        resolved(approval("a", description="lists a folder"), OutcomeKind.DENIED),
        "",
    )
    assert shown_card(dialog, "a") is card  # the same widgets, refreshed in place
    after = ink()
    assert after["rowNumber"] == after["description"] == after["commandView"] == "#777777"
    assert all(after[name] != before[name] for name in named)


@pytest.mark.usefixtures("grey_placeholder")
def test_a_card_built_resolved_is_greyed_out_from_the_start(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    done = resolved(approval("a", description="lists a folder"), OutcomeKind.DENIED)
    upsert(dialog, "g", "G", done, "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    card = shown_card(dialog, "a")
    qtbot.waitUntil(card.isVisible)
    ink = {
        w.objectName(): w.palette().color(w.foregroundRole()).name()
        for w in card.shaded_when_resolved()
    }
    assert ink["rowNumber"] == ink["description"] == ink["commandView"] == "#777777"


def test_a_cards_number_stays_level_with_a_state_that_wraps(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    reason = "the connection dropped; the gateway may have timed this out " * 4
    upsert(dialog, "g", "G", approval("s", phase=ApprovalPhase.STALE, blocked_reason=reason))
    dialog.resize(480, 600)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.list_view.flush(overscan=True)
    card = row_cards(dialog.list_view)[0]
    line = card.state.fontMetrics().lineSpacing()
    assert card.state.height() >= 3 * line  # it wraps
    for label in (card.number, card.countdown):
        assert label.isVisible()
        assert abs(_text_top(label) - _text_top(card.state)) < line // 2, label.objectName()


def _text_top(label: QLabel) -> int:
    """Where the label draws its first line, in its parent (it centres its text if asked)."""
    used = label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
    centred = bool(label.alignment() & Qt.AlignmentFlag.AlignVCenter)
    return label.y() + ((label.height() - used) // 2 if centred else 0)
