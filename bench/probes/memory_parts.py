"""Where the app's resident memory goes: RSS after each import group and after N rows.

Why a separate probe: VmRSS of the whole app says *how much*, not *what*. This process repeats
the app's idle start-up in steps, in the app's order (Qt, then PySide6's import hook is kept
from caching sources as ``desktop.app.run`` does, ssl, asyncio/qasync, websockets, the core,
the gateway client, the UI, the single-instance socket, settings and journal, the tray) and
prints the RSS after each. Then come the parts the app loads only on first use — keyring (a
token is read or written), the notification stack (the first notification), the dialogs —
marked ``first use`` so they are not mistaken for idle cost. Finally it adds ``--rows`` waiting
approvals first to a bare core and then to a hidden ``ApprovalDialog``, so the loaded figure
splits into protocol state and widgets.

Why ssl is a step of its own: it is not there for wss support alone. ``asyncio`` (which qasync
needs) and ``websockets.asyncio.client`` both ``import ssl`` at module import, so even a tray
that only ever dials ``ws://127.0.0.1`` pays for OpenSSL; the step shows how much.
"""

from __future__ import annotations

import argparse
import importlib
import linecache
import os
import sys
import time
from collections.abc import Callable

from bench import procfs, synthetic
from bench.lines import emit

IDLE, FIRST_USE = "idle", "first use"


def _keyring() -> None:
    import keyring

    keyring.get_keyring()  # what TokenStore does: loads the backends (entry points)


STEPS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("python", (), IDLE),
    ("PySide6 QtWidgets + QApplication", ("PySide6.QtWidgets",), IDLE),
    ("ssl/OpenSSL (imported by asyncio and websockets)", ("ssl",), IDLE),
    ("asyncio + qasync", ("qasync",), IDLE),
    ("websockets client", ("websockets.asyncio.client",), IDLE),
    ("desktop.core", ("desktop.core.gateway_core",), IDLE),
    ("desktop.gateway.client", ("desktop.gateway.client",), IDLE),
    (
        "desktop.ui (bridge, shell, tray, icons)",
        ("desktop.ui.shell", "desktop.ui.bridge"),
        IDLE,
    ),
    ("single instance (a Unix socket)", ("desktop.ui.single_instance",), IDLE),
    (
        "settings, journal, app, logging",
        ("desktop.ui.settings_controller", "desktop.journal", "desktop.app", "desktop.logsetup"),
        IDLE,
    ),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    os.environ.setdefault("QT_API", "pyside6")
    steps: list[dict[str, object]] = []
    app = None

    def step(label: str, when: str, action: Callable[[], object], seconds: float = 0.0) -> None:
        action()
        if app is not None:
            app.processEvents()
        rss = procfs.memory().rss_kib
        steps.append({"step": label, "when": when, "rss_kib": rss, "seconds": seconds})

    for label, modules, when in STEPS:
        started = time.perf_counter()
        for module in modules:
            importlib.import_module(module)
        if app is None and "PySide6.QtWidgets" in modules:
            from PySide6.QtWidgets import QApplication

            from desktop.ui.pyside_sources import stop_source_caching

            app = QApplication(sys.argv[:1])
            stop_source_caching()  # as desktop.app.run does, before the bulk of the imports
        step(label, when, lambda: None, round(time.perf_counter() - started, 4))
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.tray import TrayController

    bridge = GatewayBridge(lambda endpoint, listener: None)  # no gateway: websockets stays out
    tray = TrayController(bridge)
    step("TrayController (icon, menu)", IDLE, tray.tray.show)
    step("keyring (first token read/write)", FIRST_USE, _keyring)
    step(
        "desktop_notifier + dbus_fast (first notification)",
        FIRST_USE,
        lambda: importlib.import_module("desktop_notifier.backends.dbus"),
    )
    from bench.dialog_feed import DialogFeed
    from desktop.ui.new_task_dialog import NewTaskDialog

    feed = DialogFeed()
    step("ApprovalDialog (empty, hidden)", FIRST_USE, lambda: None)
    new_task = NewTaskDialog()
    step("NewTaskDialog (hidden)", FIRST_USE, lambda: None)
    before_core = procfs.memory().rss_kib
    core = synthetic.core_with_waiting(args.rows)
    after_core = procfs.memory().rss_kib
    for approval in core.approvals():
        feed.show(approval, approval.session_id)
    app.processEvents()  # type: ignore[union-attr]
    after_dialog = procfs.memory().rss_kib
    del new_task, tray
    emit(
        "memory_parts",
        steps=steps,
        rows=args.rows,
        core_kib=after_core - before_core,
        dialog_kib=after_dialog - after_core,
        linecache_entries=len(linecache.cache),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
