"""What Qt itself costs for the dialog's pattern of change: a floor for CPU per approval.

Driven like :mod:`bench.probes.dialog_alone` (one approval every ``--interval`` seconds across
``--sessions`` sessions, inserted at the end of its session's block, scrolled to and selected,
then SENDING, then denied, and removed once ``--grace`` seconds passed), but into a minimal
delegate-painted ``QListView`` the size of the dialog: one rectangle, three lines of text and
four button outlines per item, no style sheet but the dialog's flat scroll bar. It answers
whether a list that paints its items itself, instead of a widget per card, could reach the
target of 5 ms per approval. Also printed: the CPU of one update of an empty widget that size
(painted and flushed), and the idle CPU (subtracted, as in ``dialog_alone``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from bench.lines import emit
from bench.probes.dialog_alone import idle_rate

SCROLL_BAR = (
    "QScrollBar:vertical { width: 12px; margin: 0; }"
    "QScrollBar::handle:vertical { background: palette(mid); border-radius: 4px; margin: 2px; }"
    "QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical { height: 0; }"
)
BUTTONS = ("Approve once", "Allow for session", "Always allow…", "Deny")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--approvals", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--grace", type=float, default=8.0)
    parser.add_argument("--idle", type=float, default=2.0, help="seconds of idle measured first")
    args = parser.parse_args()
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QAbstractListModel, QEventLoop, QModelIndex, QRect, QSize, Qt, QTimer
    from PySide6.QtGui import QColor, QPainter
    from PySide6.QtWidgets import QApplication, QListView, QStyledItemDelegate, QWidget

    app = QApplication(sys.argv[:1])
    items: list[dict[str, Any]] = []

    class Items(QAbstractListModel):
        def rowCount(self, parent: Any = None) -> int:  # noqa: N802 (Qt)
            return len(items)

        def data(self, index: Any, role: int = 0) -> Any:
            return None  # the delegate reads ``items`` directly

    class Card(QStyledItemDelegate):
        def sizeHint(self, option: Any, index: Any) -> QSize:  # noqa: N802 (Qt)
            return QSize(740, 150)

        def paint(self, painter: QPainter, option: Any, index: Any) -> None:
            item = items[index.row()]  # the Python list itself: no QVariant round trip
            box = option.rect.adjusted(8, 4, -8, -4)
            painter.save()
            painter.fillRect(box, QColor("#eeeeee" if item["state"] == "denied" else "#ffffff"))
            painter.drawRect(box)
            head = f"Command {item['n'] + 1}  ·  {item['state']}  ·  expires in 4:59"
            painter.drawText(box.left() + 8, box.top() + 20, head)
            painter.drawText(box.left() + 12, box.top() + 48, item["command"])
            painter.drawText(box.left() + 12, box.top() + 72, "Hermes flagged: delete in root path")
            for i, text in enumerate(BUTTONS):
                button = QRect(box.left() + 12 + i * 150, box.top() + 96, 140, 26)
                painter.drawRoundedRect(button, 4, 4)
                painter.drawText(button, Qt.AlignmentFlag.AlignCenter, text)
            painter.restore()

    model, delegate, view = Items(), Card(), QListView()
    view.setModel(model)
    view.setItemDelegate(delegate)
    view.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
    view.setStyleSheet(SCROLL_BAR)
    view.resize(780, 640)
    view.show()

    def run_for(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(max(0, int(seconds * 1000)), loop.quit)
        loop.exec()

    run_for(0.3)
    blank = QWidget()
    blank.resize(780, 640)
    blank.show()
    run_for(0.1)
    c = time.process_time()
    for _ in range(100):  # painted and flushed when the event loop takes the update request
        blank.update()
        app.processEvents()
    update_ms = (time.process_time() - c) / 100 * 1000
    blank.close()

    idle_per_s = idle_rate(run_for, args.idle, args.interval)  # two loops an approval here too
    cpu0, t0 = time.process_time(), time.monotonic()
    for n in range(args.approvals):
        run_for(t0 + n * args.interval - time.monotonic())
        session = n % args.sessions
        at = sum(1 for item in items if item["session"] <= session)
        model.beginInsertRows(QModelIndex(), at, at)
        command = f"echo hermes-bench-{n}"
        item = {"n": n, "session": session, "command": command, "state": "waiting"}
        items.insert(at, {**item, "shown": time.monotonic()})
        model.endInsertRows()
        index = model.index(at)
        view.scrollTo(index)
        view.setCurrentIndex(index)
        run_for(0)
        for state in ("sending", "denied"):
            items[index.row()]["state"] = state
            model.dataChanged.emit(index, index)
            app.processEvents()
        now = time.monotonic()
        due = [i for i, item in enumerate(items) if now - item["shown"] > args.grace]
        if due:  # one a turn, as the dialog's grace removes batches one by one
            model.beginRemoveRows(QModelIndex(), due[0], due[0])
            del items[due[0]]
            model.endRemoveRows()
    run_for(0.5)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - t0
    emit(
        "list_floor",
        approvals=args.approvals,
        cpu_ms_per_approval=max(0.0, cpu - idle_per_s * wall) / args.approvals * 1000,
        idle_cpu_per_s=idle_per_s,
        update_cycle_ms=update_ms,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
