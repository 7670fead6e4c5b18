"""Where the app's resident memory goes: RSS after each import group and after N rows.

Why a separate probe: VmRSS of the whole app says *how much*, not *what*. This process repeats
the app's start-up in steps (Qt, qasync, websockets, the core, the gateway client, the
notifier's D-Bus stack, keyring, the UI modules, the shell's widgets) and prints the RSS after
each, then adds ``--rows`` waiting approvals first to a bare core and then to a hidden
``ApprovalDialog``, so the loaded figure splits into protocol state and widgets.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

from bench import procfs, synthetic
from bench.lines import emit

STEPS = (
    ("python", ()),
    ("PySide6 QtWidgets + QApplication", ("PySide6.QtWidgets",)),
    ("qasync (with asyncio, ssl/OpenSSL)", ("qasync",)),
    ("websockets client", ("websockets.asyncio.client",)),
    ("desktop.core", ("desktop.core.gateway_core",)),
    ("desktop.gateway.client", ("desktop.gateway.client",)),
    ("desktop_notifier + dbus_fast", ("desktop_notifier", "desktop.ui.native_notify")),
    ("keyring + settings", ("keyring", "desktop.settings.store", "desktop.settings.tokens")),
    ("desktop.ui (shell, dialog, tray)", ("desktop.ui.shell", "desktop.ui.bridge")),
    ("desktop.app + logging", ("desktop.app", "desktop.logsetup")),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    os.environ.setdefault("QT_API", "pyside6")
    steps = []
    app = None
    for label, modules in STEPS:
        started = time.perf_counter()
        for module in modules:
            importlib.import_module(module)
        if app is None and "PySide6.QtWidgets" in modules:
            from PySide6.QtWidgets import QApplication

            app = QApplication(sys.argv[:1])
        steps.append((label, procfs.memory().rss_kib, time.perf_counter() - started))
    from desktop.ui.approvals.dialog import ApprovalDialog
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.new_task_dialog import NewTaskDialog
    from desktop.ui.tray import TrayController

    def step(label: str) -> None:
        app.processEvents()  # type: ignore[union-attr]
        steps.append((label, procfs.memory().rss_kib, 0.0))

    bridge = GatewayBridge()
    tray = TrayController(bridge)
    tray.show()
    step("TrayController (icon, menu)")
    dialog = ApprovalDialog()
    step("ApprovalDialog (empty, hidden)")
    new_task = NewTaskDialog()
    step("NewTaskDialog (hidden)")
    before_core = procfs.memory().rss_kib
    core = synthetic.core_with_waiting(args.rows)
    after_core = procfs.memory().rss_kib
    for approval in core.approvals():
        dialog.upsert("bench", "Bench gateway", approval, approval.session_id)
    app.processEvents()  # type: ignore[union-attr]
    after_dialog = procfs.memory().rss_kib
    del new_task, tray
    emit(
        "memory_parts",
        steps=[{"step": s, "rss_kib": r, "seconds": round(t, 4)} for s, r, t in steps],
        rows=args.rows,
        core_kib=after_core - before_core,
        dialog_kib=after_dialog - after_core,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
