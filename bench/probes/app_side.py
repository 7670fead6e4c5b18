"""The app side of a flood of approvals: the real bridge, shell, tray and dialog, no core.

Why without the core: the end-to-end figure (``bench.figures.scale`` through the fake gateway)
charges the core's per-frame work too, and that is another part's budget. Here the bridge's own
listener entry (``on_core_event``, what every gateway client calls) is fed the core's events
directly: ``SessionChanged`` for each session, then ``ApprovalRequested`` for each approval,
one event-loop turn per ``--per-turn`` approvals (a websocket read delivers several frames).
Everything the app does with an approval runs: the store and its snapshot, the tray icon and
status, the notification policy, the dialog's model.

Printed (``BENCH`` lines): ``fed`` (CPU per approval), ``settled`` (seconds until a whole
second used under 1 % CPU), ``opened`` (first row card visible after the tray's "review"),
with this process's RSS at each step.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from typing import Any

from bench import procfs
from bench.lines import emit


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class StandInClient:
    """A connected gateway that answers nothing (the probe never decides)."""

    def __init__(self, endpoint: Any, listener: Any) -> None:
        from desktop.core.model import Dialect
        from desktop.gateway.status import ConnectionState, ConnectionStatus

        self.gateway_id, self.name = "bench", "Bench gateway"
        self.status = ConnectionStatus(ConnectionState.CONNECTED, Dialect.B, "0.22.2")
        self.listener = listener

    async def run(self) -> None: ...
    async def close(self) -> None: ...
    def decide(self, key: str, choice: Any, *, confirm_stale: bool = False) -> Any:
        from desktop.core.model import DecisionResult

        return DecisionResult(False, "the bench does not answer")

    def reconnect_now(self) -> None: ...
    async def set_yolo(self, session_id: str, on: bool) -> Any: ...
    async def set_approval_mode(self, mode: str) -> Any: ...
    async def interrupt(self, session_id: str) -> Any: ...
    async def create_session(self, cwd: str, prompt: str) -> str:
        return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--approvals", type=int, default=100, help="per session")
    parser.add_argument("--per-turn", type=int, default=20)
    parser.add_argument("--watch", type=float, default=8.0)
    args = parser.parse_args()

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    from desktop.core.events import ApprovalRequested, SessionChanged
    from desktop.core.model import Approval, Choice, SessionState
    from desktop.ui.approvals.cards import RowCard
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.shell import TrayShell

    bridge = GatewayBridge(client_factory=StandInClient)
    bridge.add_gateway(object())
    shell = TrayShell(bridge, on_quit=lambda: None)
    shell.show()
    app.processEvents()
    emit("ready", rss_mib=procfs.memory().rss_mib)
    choices = (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)

    def turn() -> None:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def idle(ms: int) -> None:
        """Let the loop sleep for ``ms`` (only the app's own timers and events wake it)."""
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    started, cpu0, fed = time.monotonic(), _cpu(), 0
    for s in range(args.sessions):
        bridge.on_core_event("bench", SessionChanged(SessionState(f"s{s}", title=f"Task {s}")))
    for i in range(args.approvals):
        for s in range(args.sessions):
            approval = Approval(
                key=f"s{s}-{i}",
                session_id=f"s{s}",
                batch_id=f"b{s}",
                position=i,
                command=f"rm -rf /tmp/hermes-scratch/bench/s{s}/c{i}",
                description="delete in root path",
                pattern_keys=("delete in root path",),
                choices=choices,
                arrived_at=time.monotonic(),
            )
            bridge.on_core_event("bench", ApprovalRequested(approval))
            fed += 1
            if fed % args.per_turn == 0:
                turn()
    turn()
    cpu_fed, fed_at = _cpu(), time.monotonic()
    emit(
        "fed",
        approvals=fed,
        cpu_s=cpu_fed - cpu0,
        wall_s=fed_at - started,
        waiting=shell.dialog.pending_count(),
        rss_mib=procfs.memory().rss_mib,
    )
    samples: list[tuple[float, float]] = []
    settled = None
    while time.monotonic() - fed_at < args.watch and settled is None:
        samples.append((time.monotonic() - fed_at, _cpu()))
        for (t0, c0), (t1, c1) in zip(samples, samples[2:], strict=False):
            if t1 - t0 >= 0.95 and (c1 - c0) / (t1 - t0) < 0.01:
                settled = t1
                break
        idle(500)
    emit("settled", seconds=settled, rss_mib=procfs.memory().rss_mib)
    opened_at = time.monotonic()
    shell.review()
    first = None
    while first is None and time.monotonic() - opened_at < 30:
        turn()
        if any(c.isVisible() for c in _row_cards(shell.dialog.list_view, RowCard)):
            first = time.monotonic()
    emit(
        "opened",
        ms=(first - opened_at) * 1000 if first is not None else None,
        cards=len(_row_cards(shell.dialog.list_view, RowCard)),
        rss_mib=procfs.memory().rss_mib,
    )
    shell.dispose()
    app.processEvents()
    return 0


def _row_cards(view: Any, card_type: type) -> list[Any]:
    """The list's built row cards (its hidden spares show no row)."""
    return [c for c in view.viewport().findChildren(card_type) if not c.isHidden()]


if __name__ == "__main__":
    raise SystemExit(main())
