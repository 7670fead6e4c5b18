"""The approval dialog's test helpers that need Qt: a recorder, a look, the store's feed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.model import Approval
from desktop.model.app_state import AppState
from desktop.model.bridge_events import DecisionRequest
from desktop.ui.approvals.cards import BatchCard, RowCard
from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.approvals.list_view import ApprovalListView, pointer_over
from tests.model.approvals.factory import FakeClock, hold

# Shown windows on the offscreen platform make Qt warn that it cannot propagate size hints or
# raise a window: limits of that platform, not of the dialog. Modules that show it say so.
OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints|raise)\(\)"
)


@dataclass
class Recorder:
    """Collects every DecisionRequest the dialog emits."""

    requests: list[DecisionRequest] = field(default_factory=list)

    def __call__(self, request: DecisionRequest) -> None:
        self.requests.append(request)

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.requests]


def look(dialog: Any, clock: FakeClock, seconds: float = 1.0) -> None:
    """The person looks at what is on screen: lay the list out now, then let ``seconds`` pass.

    Batch approvals and keys answer only rows on screen long enough to be read (``seen``).
    """
    dialog.list_view.flush(overscan=True)
    clock.advance(seconds)
    catch_up(dialog)


def catch_up(dialog: QWidget) -> None:
    """A hand-driven clock moved on, unknown to the dialog's (real-time) timers: fire them now.

    They are its countdown, its "read long enough" and its "answered batches leave" timers.
    """
    for timer in dialog.findChildren(QTimer, options=Qt.FindChildOption.FindDirectChildrenOnly):
        timer.timeout.emit()


def row_cards(view: ApprovalListView) -> list[RowCard]:
    """The built row cards, top to bottom (hidden spares show no row)."""
    cards = [c for c in view.viewport().findChildren(RowCard) if not c.isHidden()]
    return sorted(cards, key=lambda card: card.y())


def widget_for(view: ApprovalListView, node: object) -> QWidget | None:
    """The built widget showing ``node`` (a row card, a batch card or a heading)."""
    for widget in view.viewport().findChildren(QWidget):
        shows = widget.entry if isinstance(widget, RowCard) else getattr(widget, "group", None)
        if shows is node and not widget.isHidden():
            return widget
    return None


def ticking(dialog: QWidget) -> bool:
    """The dialog's countdown timer runs."""
    timer = dialog.findChild(QTimer, "countdownTimer")
    return timer is not None and timer.isActive()


def tap(widget: QWidget, key: Qt.Key) -> None:
    """Press and release ``key`` on ``widget`` (no modifiers)."""
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(widget, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, ""))


def look_away(dialog: QWidget, qtbot: QtBot) -> QWidget:
    """The person turns to another window: pointer over it, focus in it (the caller closes it)."""
    other = QWidget()
    other.setGeometry(dialog.frameGeometry().right() + 40, 0, 200, 200)
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.mouseMove(other)
    qtbot.waitUntil(lambda: not dialog.isActiveWindow() and not pointer_over(dialog))
    return other


def upsert(
    view: ApprovalDialog | ApprovalListView,
    gateway_id: str,
    gateway_name: str,
    a: Approval,
    session_title: str = "",
) -> Any:
    """What the app does with a core event: the store keeps the value, then the view hears."""
    hold(view.board.store, gateway_id, a, gateway_name)
    return view.upsert(gateway_id, gateway_name, a, session_title)


def row_card(dialog: ApprovalDialog, gateway_id: str, key: str) -> RowCard | None:
    """The card showing that row, once the list is laid out (None: not built, off screen)."""
    view = dialog.list_view
    view.materialise()
    view.flush(overscan=True)
    row = dialog.board.row((gateway_id, key))
    return view.card(row) if row is not None else None


def batch_card(dialog: ApprovalDialog, key: str, gateway_id: str = "g") -> BatchCard:
    """The batch card around row ``key``."""
    card = row_card(dialog, gateway_id, key)
    assert card is not None
    widget = widget_for(dialog.list_view, card.entry.batch)
    assert isinstance(widget, BatchCard)
    return widget


def store_of(dialog: ApprovalDialog) -> AppState:
    """The store the dialog reads its rows from (a real ``AppState`` in every test)."""
    store = dialog.board.store
    assert isinstance(store, AppState)
    return store


def dialog_on_store(**options: Any) -> ApprovalDialog:
    """An ApprovalDialog reading its rows from a store of its own (screenshots, probes)."""
    return ApprovalDialog(AppState(), **options)
