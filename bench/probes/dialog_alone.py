"""The approval dialog alone, driven like figure (a)'s "alone" phase: CPU per approval.

Why offline: the (a) figure runs the fake gateway, the client, the core and the tray around the
dialog and takes minutes; this takes 25 s. An open ``ApprovalDialog`` gets what the app would
give it: approvals arriving one by one across ``--sessions`` sessions every ``--interval``
seconds (each its own batch, as a Hermes turn with one command), each waiting until its card is
first painted, then denied (``SENDING``, then ``RESOLVED``), with the event loop running in
between on the real clock (so grace removals, countdown ticks and deferred builds happen as in
the app). The idle CPU of the open, empty dialog is measured first, in the probe's own rhythm
of nested event loops (:func:`idle_rate`), and subtracted; the CPU is
split into arrival (upsert to first paint), answer and the time between. ``--style none``
clears the dialog's style sheet first: a counterfactual showing what the sheet costs.
``--profile PATH`` writes cProfile stats timed by CPU (not wall) time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace

from bench.lines import emit
from bench.stats import percentile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--approvals", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--idle", type=float, default=2.0, help="seconds of idle measured first")
    parser.add_argument("--style", choices=("app", "none"), default="app", help="none: no sheet")
    parser.add_argument("--profile", default="", help="write cProfile stats (CPU time) here")
    args = parser.parse_args()
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from bench.dialog_feed import DialogFeed
    from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome, OutcomeKind

    app = QApplication(sys.argv[:1])
    feed = DialogFeed()
    dialog = feed.dialog
    if args.style == "none":  # a counterfactual (the probe edits nothing in the app)
        dialog.setStyleSheet("")
    dialog.present(activate=False)
    choices = (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)
    painted: dict[str, float] = {}
    waiting_for: list[str] = []
    loop_ref: list[QEventLoop] = []

    class PaintWatch(QObject):
        """The first paint of the awaited row's card ends its wait."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
            kind = event.type()
            if kind == QEvent.Type.ChildAdded:
                child = event.child()  # type: ignore[attr-defined]
                if hasattr(child, "entry"):
                    child.installEventFilter(self)
            elif kind == QEvent.Type.Paint and hasattr(watched, "entry"):
                key = watched.entry.approval.key
                if waiting_for and key == waiting_for[0] and key not in painted:
                    painted[key] = time.monotonic()
                    if loop_ref:
                        QTimer.singleShot(0, loop_ref[-1].quit)
            return False

    watch = PaintWatch()
    dialog.list_view.viewport().installEventFilter(watch)

    def run_for(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(max(0, int(seconds * 1000)), loop.quit)
        loop_ref.append(loop)
        loop.exec()
        loop_ref.pop()

    run_for(0.3)  # the window's first layout and paint
    idle_per_s = idle_rate(run_for, args.idle, args.interval)

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    paint_ms: list[float] = []
    phase_cpu = {"arrival": 0.0, "answer": 0.0, "between": 0.0}  # where each approval's CPU went
    cpu0, t0 = time.process_time(), time.monotonic()
    for n in range(args.approvals):
        due = t0 + n * args.interval
        c = time.process_time()
        run_for(due - time.monotonic())
        phase_cpu["between"] += time.process_time() - c
        c = time.process_time()
        session = f"s{n % args.sessions}"
        a = Approval(
            key=f"k{n}",
            session_id=session,
            batch_id=f"b{n}",
            position=0,
            command=f"echo hermes-bench-{n}",
            description="delete in root path",
            pattern_keys=("delete in root path",),
            choices=choices,
            arrived_at=time.monotonic(),
        )
        waiting_for[:] = [a.key]
        started = time.monotonic()
        feed.show(a, f"Task {session}")
        if a.key not in painted:
            run_for(1.0)  # quits at the first paint of its card
        paint_ms.append((painted.get(a.key, time.monotonic()) - started) * 1000)
        phase_cpu["arrival"] += time.process_time() - c
        c = time.process_time()
        feed.show(replace(a, phase=ApprovalPhase.SENDING), f"Task {session}")
        app.processEvents()
        denied = Outcome(OutcomeKind.DENIED, Choice.DENY)
        feed.show(
            replace(a, phase=ApprovalPhase.RESOLVED, outcome=denied),
            f"Task {session}",
        )
        phase_cpu["answer"] += time.process_time() - c
    run_for(0.5)  # the tail: the last answer's layout and paint
    cpu, wall = time.process_time() - cpu0, time.monotonic() - t0
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    own = max(0.0, cpu - idle_per_s * wall)
    emit(
        "dialog_alone",
        approvals=args.approvals,
        sessions=args.sessions,
        cpu_ms_per_approval=own / args.approvals * 1000,
        cpu_ms_per_approval_all=cpu / args.approvals * 1000,
        idle_cpu_per_s=idle_per_s,
        paint_ms_p50=percentile(paint_ms, 50),
        paint_ms_p99=percentile(paint_ms, 99),
        **{f"{k}_ms": v / args.approvals * 1000 for k, v in phase_cpu.items()},
        unpainted=sum(1 for n in range(args.approvals) if f"k{n}" not in painted),
    )
    return 0


def idle_rate(run_for: Callable[[float], None], seconds: float, interval: float) -> float:
    """CPU seconds per second of the idle window, with the probe's own loops counted in.

    Each approval costs the probe two nested event loops (the wait, then the wait for the first
    paint), and one costs about 0.4 ms of CPU to start and stop here, whatever the window does.
    So idle is measured as two loops per interval too, and that cost is subtracted with it.
    """
    cpu0, t0 = time.process_time(), time.monotonic()
    while time.monotonic() - t0 < seconds:
        run_for(interval / 2)
    return (time.process_time() - cpu0) / (time.monotonic() - t0)


if __name__ == "__main__":
    raise SystemExit(main())
