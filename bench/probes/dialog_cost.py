"""What one approval row costs in the ApprovalDialog: upsert time, repaint time, memory.

Why a probe of its own: the latency and loaded-memory figures both point at the dialog, and
this isolates it — no gateway, no loop, just ``ApprovalDialog.upsert`` of N waiting approvals
from a real core, one at a time, each followed by ``processEvents()`` (the layout and paint the
upsert posted). ``--style none`` clears the dialog's style sheet before any row exists: a
counterfactual (the bench edits nothing in the app) that shows how much of the cost is Qt's
style-sheet machinery. ``--hidden`` leaves the dialog unshown, as the app does until asked.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from bench import procfs, synthetic
from bench.lines import emit
from bench.stats import percentile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--style", choices=("app", "none"), default="app")
    parser.add_argument("--hidden", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtWidgets import QApplication

    from bench.dialog_feed import DialogFeed

    app = QApplication(sys.argv[:1])
    feed = DialogFeed()
    dialog = feed.dialog
    if args.style == "none":
        dialog.setStyleSheet("")
    if not args.hidden:
        dialog.present(activate=False)
    app.processEvents()
    core = synthetic.core_with_waiting(args.rows)
    approvals = list(core.approvals())
    before = procfs.memory().rss_kib
    upsert_ms, turn_ms = [], []
    for approval in approvals:
        t0 = time.perf_counter()
        feed.show(approval, approval.session_id)
        t1 = time.perf_counter()
        app.processEvents()
        t2 = time.perf_counter()
        upsert_ms.append((t1 - t0) * 1000)
        turn_ms.append((t2 - t1) * 1000)
    after = procfs.memory().rss_kib
    first, last = slice(0, 10), slice(-10, None)
    emit(
        "dialog_cost",
        rows=args.rows,
        style=args.style,
        shown=not args.hidden,
        upsert_ms_first10=percentile(upsert_ms[first], 50),
        upsert_ms_last10=percentile(upsert_ms[last], 50),
        turn_ms_first10=percentile(turn_ms[first], 50),
        turn_ms_last10=percentile(turn_ms[last], 50),
        kib_per_row=(after - before) / max(1, args.rows),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
