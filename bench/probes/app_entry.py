"""The app under test, started through its real entry point (``desktop.cli.main``).

Why the real entry point: cold start, idle memory and idle wake-ups are properties of the whole
program (logging set-up, settings, single-instance socket, notifier probe, gateway client), not
of a hand-assembled subset. The bench only *observes*, through hooks installed before the app
imports the classes it hooks (``bench.probes.hooks``):

* the tray marker (always): ``tray_shown`` one event-loop turn after the icon's ``show()``;
* with ``--observe``, a ``GatewayBridge`` subclass that prints ``connected`` once the gateway
  is connected, and with ``--load SESSIONS,APPROVALS`` starts that many tasks (``--load-delay``
  seconds after connecting) through the bridge's own New-task slot and prints ``loaded`` once
  that many approvals wait;
* with ``--wake SETTLE,SECONDS``, an idle wake-up window starting ``SETTLE`` s after connecting;
* with ``--profile PATH``, cProfile from start to the tray marker (cold-start misses).

The app needs a start-up hook of its own (say, an env var naming a file to touch once the
tray is shown); until then this subclassing is the only way to see the moment from outside.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench.lines import emit
from bench.probes import hooks

LOAD_PROMPT = "bench: wait for approvals"


def _observe(
    load: tuple[int, int] | None,
    load_delay: float,
    wake: tuple[float, float] | None,
    open_after: float | None = None,
) -> None:
    import desktop.ui.bridge as bridge_module
    from desktop.gateway.status import ConnectionState

    base = bridge_module.GatewayBridge

    class ObservedBridge(base):  # type: ignore[misc, valid-type]
        _bench_connected = False
        _bench_loaded = False

        def on_status_changed(self, gateway_id: str, old: Any, new: Any) -> None:
            super().on_status_changed(gateway_id, old, new)
            if self._bench_connected or new.state is not ConnectionState.CONNECTED:
                return
            self._bench_connected = True
            emit("connected", t=time.monotonic())
            if wake is not None:
                from PySide6.QtWidgets import QApplication

                hooks.wake_window(QApplication.instance(), *wake)
            if load is not None:
                from PySide6.QtCore import QTimer

                QTimer.singleShot(int(load_delay * 1000), lambda: self._bench_load(gateway_id))

        def _bench_load(self, gateway_id: str) -> None:
            assert load is not None
            self.snapshot_changed.connect(self._bench_check_loaded)
            for _ in range(load[0]):
                self.new_task(gateway_id, "/tmp", LOAD_PROMPT)

        def _bench_check_loaded(self, snapshot: Any) -> None:
            assert load is not None
            waiting = snapshot.waiting_count()
            if not self._bench_loaded and waiting >= load[0] * load[1]:
                self._bench_loaded = True
                emit("loaded", t=time.monotonic(), waiting=waiting)
                if open_after is not None:
                    from PySide6.QtCore import QTimer

                    QTimer.singleShot(int(open_after * 1000), _open_dialog)

    bridge_module.GatewayBridge = ObservedBridge  # type: ignore[misc]


def _open_dialog() -> None:
    """Open the approval dialog as a tray click does; print when its first rows are visible.

    "Visible" is the first event-loop turn after ``present`` in which a row card is shown.
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.ui.approvals.cards import RowCard
    from desktop.ui.approvals.dialog import ApprovalDialog

    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, ApprovalDialog)]
    if not dialogs:
        emit("dialog_open", error="no approval dialog was built")
        return
    dialog = dialogs[0]
    started = time.monotonic()
    dialog.present(activate=True)

    def check() -> None:
        built = [c for c in dialog.list_view.viewport().findChildren(RowCard) if not c.isHidden()]
        if any(c.isVisible() for c in built):
            emit(
                "dialog_open",
                t=started,
                first_rows=time.monotonic(),
                cards=len(built),
                rows=dialog.pending_count(),
            )
        else:
            QTimer.singleShot(0, check)

    QTimer.singleShot(0, check)


def _profile_until_shown(path: str) -> None:
    """Profile (cProfile) from here to the tray marker, imports below included."""
    import cProfile

    profiler = cProfile.Profile()

    def stop(_tray: Any) -> None:
        profiler.disable()
        profiler.dump_stats(path)
        emit("profiled", path=path)

    hooks.install_tray_marker(stop)
    profiler.enable()


def _pair(text: str, kind: type) -> Any:
    return tuple(kind(x) for x in text.split(",")) if text else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--observe", action="store_true", help="print 'connected' (and load)")
    parser.add_argument("--load", default="", help="SESSIONS,APPROVALS to start and wait for")
    parser.add_argument("--load-delay", type=float, default=0.0, help="seconds after connect")
    parser.add_argument("--wake", default="", help="SETTLE,SECONDS idle wake-up window")
    parser.add_argument("--profile", default="", help="cProfile start-up until the tray marker")
    parser.add_argument(
        "--open-after", type=float, default=None, help="open the dialog N s after 'loaded'"
    )
    args = parser.parse_args()
    if args.profile:
        _profile_until_shown(args.profile)
    else:
        hooks.install_tray_marker()
    if args.observe or args.load or args.wake:
        _observe(_pair(args.load, int), args.load_delay, _pair(args.wake, float), args.open_after)
    from desktop import cli

    return int(cli.main(["--gateway", args.gateway]) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
