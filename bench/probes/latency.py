"""The app's approval path, assembled from its real parts, with two clocks stopped on the way.

Why assembled here and not through ``desktop.cli.main``: the figure needs the dialog open (a
row can only be *visible* in a shown window) and the notification timing without the
policy's start-up quiet time, and the app has no switch for either. So this probe builds what
``desktop.app`` builds — ``GatewayBridge`` + the real ``GatewayClient`` + ``TrayShell`` (tray,
``ApprovalDialog``, ``NotificationController``) on the app's qasync loop — and observes it by
subclassing, never by editing:

* **row visible**: the time the window's repaint that first painted the row's card (shown) has
  returned, the frame flushed to the window system — what a person waits for (the card's paint
  event, earlier by the rest of that repaint, is kept as ``painted``). An event filter on the
  list's viewport hears each card being added and watches that card's paint events, and on the
  dialog its repaints (nothing else: an application-wide filter would tax every event of the
  flood). The probe only looks: it never builds or pins a card itself (asking the dialog for
  one would build it at once and keep it, which is work the app does not do).
* **notification request**: the notifier is a ``NativeNotifier`` subclass that keeps the
  app's code path but never touches D-Bus; the time its ``show()`` is entered is the
  notification request (the bridge's ``show_notification`` call time is kept too).

Notification settings: quiet-after-start/reconnect 0 (steady state, not start-up) and
``--coalesce`` seconds (the policy's batching wait; 0 measures the pipeline itself, the
app's default 0.4 s measures what a person gets).

After both clocks stopped, the row is denied through the shell's own decide path, as a click
would, so waiting rows never pile up. Commands (stdin): ``report`` prints every sample.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from bench.lines import emit
from bench.probes import commands

_INDEX_RE = re.compile(r"bench-approval (\d+)")


@dataclass
class Sample:
    """What happened to approval ``index`` in the app, on the monotonic clock."""

    index: int
    key: str = ""
    batch_id: str = ""
    event: float | None = None  # bridge.approval_requested emitted: the core's event is out
    upserted: float | None = None  # the shell's slots (dialog upsert, notify intake) returned
    painted: float | None = None  # the card's first paint event (shown)
    row: float | None = None  # the repaint that painted it returned: the frame is out
    row_visible: bool = False
    bridge_notify: float | None = None  # NotificationController -> bridge.show_notification
    notify: float | None = None  # NativeNotifier.show entered: the notification request
    rows_in_dialog: int = 0
    waiting_in_core: int = 0
    denied: bool = False
    batch_announced: bool = False  # its batch was notified already: by design, no new notification


def build(args: argparse.Namespace) -> None:
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.core.model import Choice
    from desktop.gateway.endpoints import GatewayEndpoint
    from desktop.journal import Surface
    from desktop.model.bridge_events import DecisionRequest
    from desktop.model.notify_policy import NotifySettings
    from desktop.platform.native_notify import NativeNotifier
    from desktop.settings.model import GatewayKind, Settings
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.event_loop import QuietEventLoop
    from desktop.ui.settings_controller import client_factory_for
    from desktop.ui.shell import TrayShell

    samples: dict[int, Sample] = {}
    by_key: dict[str, Sample] = {}
    shell_ref: list[Any] = []
    tasks: set[asyncio.Task[None]] = set()
    gateway_id = "bench"

    announced: set[str] = set()  # batch ids a notification was requested for

    def maybe_deny(sample: Sample) -> None:
        """Answer the row once both clocks stopped (or its batch was announced before)."""
        if sample.notify is None and sample.batch_id in announced:
            sample.batch_announced = True
        if sample.denied or sample.row is None:
            return
        if sample.notify is None and not sample.batch_announced:
            return
        sample.denied = True
        shell_ref[0].decide(
            DecisionRequest(gateway_id, sample.key, Choice.DENY, Surface.DIALOG_BUTTON)
        )

    class RecordingNotifier(NativeNotifier):
        """The app's notifier with the D-Bus calls left out (no bus here)."""

        async def start(self, timeout: float = 3.0) -> bool:
            self.available, self.buttons = True, True
            return True

        async def show(self, plan: Any, on_action: Any) -> bool:
            now = time.monotonic()
            touched = [s for s in (by_key.get(k) for k in plan.keys) if s is not None]
            announced.update(s.batch_id for s in touched)
            for sample in touched:
                if sample.notify is None:
                    sample.notify = now
            for sample in list(samples.values()):
                if not sample.denied and sample.batch_id in announced:
                    maybe_deny(sample)
            return True

        async def show_text(self, title: str, body: str, *, urgent: bool = False) -> bool:
            return True

        async def withdraw(self, gateway_id: str, batch_id: str) -> None:
            return None

        async def aclose(self) -> None:
            return None

    class TimedBridge(GatewayBridge):
        def show_notification(self, plan: Any) -> None:
            now = time.monotonic()
            for key in plan.keys:
                sample = by_key.get(key)
                if sample is not None and sample.bridge_notify is None:
                    sample.bridge_notify = now
            super().show_notification(plan)

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    loop = QuietEventLoop(app)  # the app's loop
    asyncio.set_event_loop(loop)
    quit_requested = asyncio.Event()
    bridge = TimedBridge(client_factory_for(Settings))  # the app's clients, default settings

    def before_shell(update: Any) -> None:
        found = _INDEX_RE.search(update.approval.command)
        if found is not None:
            sample = samples.setdefault(int(found.group(1)), Sample(int(found.group(1))))
            sample.key, sample.event = update.approval.key, time.monotonic()
            sample.batch_id = update.approval.batch_id
            by_key[sample.key] = sample

    def after_shell(update: Any) -> None:
        sample = by_key.get(update.approval.key)
        if sample is None or sample.upserted is not None:
            return
        sample.upserted = time.monotonic()
        unpainted[sample.key] = sample

    unpainted: dict[str, Sample] = {}  # upserted, card not painted yet

    in_frame: list[Sample] = []  # painted in the window's repaint now running
    repainting: list[bool] = [False]

    def frame_out(samples: list[Sample]) -> None:
        now = time.monotonic()
        for sample in samples:
            sample.row = now
            QTimer.singleShot(0, lambda s=sample: row_turn(s))  # not inside a paint
        samples.clear()

    class PaintWatch(QObject):
        """Stops a sample's row clock once the repaint that first painted its card returned."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
            kind = event.type()
            if kind == QEvent.Type.UpdateRequest and watched is shell.dialog:
                # The window's own handler runs here, so its end (painted and flushed) is seen.
                repainting[0] = True
                try:
                    watched.event(event)
                finally:
                    repainting[0] = False
                frame_out(in_frame)
                return True
            if kind == QEvent.Type.ChildAdded:
                child = event.child()  # type: ignore[attr-defined]
                if hasattr(child, "entry"):  # a row card
                    child.installEventFilter(self)
            elif kind == QEvent.Type.Paint and hasattr(watched, "entry"):
                sample = unpainted.pop(watched.entry.approval.key, None)
                if sample is not None:
                    sample.painted = time.monotonic()
                    sample.row_visible = watched.isVisible()  # type: ignore[attr-defined]
                    in_frame.append(sample)
                    if not repainting[0]:  # painted outside a repaint of the window
                        frame_out(in_frame)
            return False

    bridge.approval_requested.connect(before_shell)  # connected first: runs before the shell's
    settings = NotifySettings(
        quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=args.coalesce
    )
    shell = TrayShell(bridge, notify_settings=settings, on_quit=quit_requested.set)
    # The app holds the bubbles of the batches the dialog shows while it is the active window;
    # this probe keeps the dialog open to time its rows and times the notification path as if
    # the person were not reading it.
    shell.dialog.removeEventFilter(shell)
    shell_ref.append(shell)
    bridge.approval_requested.connect(after_shell)  # connected last: the upsert ran before

    paint_watch = PaintWatch()
    shell.dialog.list_view.viewport().installEventFilter(paint_watch)
    shell.dialog.installEventFilter(paint_watch)

    def row_turn(sample: Sample) -> None:
        sample.rows_in_dialog = sum(1 for _ in shell.dialog.board.rows())
        sample.waiting_in_core = sum(
            1 for a in client.core.approvals() if a.phase.name == "WAITING"
        )
        maybe_deny(sample)

    endpoint = GatewayEndpoint(gateway_id, "Bench gateway", GatewayKind.URL, url=args.gateway)
    client: Any = bridge.add_gateway(endpoint)
    frames: list[Any] = [0, 0.0]  # frames the core was fed, time of the latest
    receive_text = client.core.receive_text

    def counted_receive(data: Any) -> None:  # observation only: count, then the real call
        receive_text(data)
        frames[0] += 1
        frames[1] = time.monotonic()

    client.core.receive_text = counted_receive

    async def report(first: int, count: int, timeout: float) -> None:
        """Wait (bounded) until the app has handled every sample of the phase, then print."""
        wanted = range(first, first + count)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # a bounded poll, only at the end of a phase
            if all(_complete(samples.get(i)) for i in wanted):
                break
            await asyncio.sleep(0.05)
        found = [asdict(samples[i]) for i in wanted if i in samples]
        emit(
            "samples",
            samples=found,
            drained=time.monotonic(),
            frames=frames[0],
            last=frames[1],
            cpu=_cpu_seconds(),
        )

    def handle(command: dict[str, Any]) -> None:
        name = command.get("cmd")
        if name == "report":
            coro = report(int(command["first"]), int(command["count"]), float(command["timeout"]))
            tasks.add(asyncio.get_running_loop().create_task(coro))
        elif name == "quit":
            quit_requested.set()

    async def main() -> None:
        shell.show()
        bridge.start(asyncio.get_running_loop(), RecordingNotifier("Hermes Tray bench"))
        shell.dialog.present(activate=False)
        commands.listen(asyncio.get_running_loop(), handle)
        deadline = time.monotonic() + args.timeout
        while not client.core.dialect or client.status.state.name != "CONNECTED":
            if time.monotonic() > deadline:
                raise TimeoutError("the gateway did not connect")
            await asyncio.sleep(0.05)
        sessions = [await client.create_session("/tmp", "") for _ in range(args.sessions)]
        flood = await client.create_session("/tmp", "")
        emit("sessions", approval_sessions=sessions, flood_session=flood, cpu=_cpu_seconds())
        await asyncio.wait_for(quit_requested.wait(), args.timeout)

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    try:
        loop.run_until_complete(main())
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        shell.dispose()
        loop.run_until_complete(bridge.aclose())


def _cpu_seconds() -> float:
    """User + system CPU time of this process (all threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _complete(sample: Sample | None) -> bool:
    if sample is None or sample.row is None:
        return False
    return sample.notify is not None or sample.batch_announced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--coalesce", type=float, default=0.0)
    parser.add_argument("--sessions", type=int, default=4, help="approvals rotate over these")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after this long")
    parser.add_argument("--profile", default="", help="write cProfile stats of the run here")
    build(parser.parse_args())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
