"""The composition root: QApplication, the qasync loop, gateways (or the demo), the tray, shutdown.

Why everything meets here and nowhere else: the process-wide decisions — which Qt platform
objects exist, which event loop runs, which gateways to connect to, when to stop — are made
once, in order, and undone in reverse order. Pitfalls handled here (shared/stack.md §3.3, §5):

* a tray app must not quit when its last window closes (``setQuitOnLastWindowClosed(False)``);
* Quit goes through an ``asyncio.Event``: ``app.quit()`` would stop Qt's loop under a running
  ``run_until_complete``;
* clients close with a clean 1000 close *before* their tasks are cancelled (cancelling inside
  ``connect()`` would send 1011), and every task is awaited before the loop closes;
* Qt's own messages go into logging (``qInstallMessageHandler``), the previous handler is
  restored at the end.

``--smoke`` starts everything, waits until a gateway is connected and one approval is visible,
then exits 0 (1 on timeout): packaging CI uses it to prove a build really runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.cli import CliOptions
    from desktop.demo_mode import BuiltInDemo
    from desktop.gateway.endpoints import GatewayEndpoint
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.shell import TrayShell

log = logging.getLogger(__name__)

SMOKE_TIMEOUT = 30.0  # seconds until --smoke gives up
EXIT_OK, EXIT_FAILED = 0, 1


def run(options: CliOptions) -> int:
    """Run the tray until Quit (or until the smoke check ends); return the exit status."""
    os.environ.setdefault("QT_API", "pyside6")  # qasync would pick another binding first
    import qasync
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from desktop import logsetup

    if not any(logsetup.is_own_handler(h) for h in logging.getLogger().handlers):
        logsetup.configure(options.log_level)
    app = _application(QApplication)
    previous_handler = qInstallMessageHandler(_qt_message)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(_main(options))
    finally:
        _close_loop(loop)
        asyncio.set_event_loop(None)
        qInstallMessageHandler(previous_handler)


def _application(qapplication: Any) -> Any:
    from desktop.platform.paths import APP_ID, APP_NAME

    app = qapplication.instance() or qapplication([sys.argv[0] if sys.argv else "hermes-tray"])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setDesktopFileName(APP_ID)
    app.setQuitOnLastWindowClosed(False)  # closing the dialog must not end a tray app
    from desktop.ui import icons

    app.setWindowIcon(icons.app_icon())
    return app


def _qt_message(kind: Any, context: Any, message: str) -> None:
    from desktop import logsetup

    logsetup.route_qt_message(getattr(kind, "name", str(kind)), message, context.category)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


async def _main(options: CliOptions) -> int:
    from desktop.demo_mode import BuiltInDemo
    from desktop.platform.paths import APP_NAME
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.icons import icon_dir
    from desktop.ui.native_notify import NativeNotifier
    from desktop.ui.shell import TrayShell
    from desktop.ui.single_instance import SingleInstance

    loop = asyncio.get_running_loop()
    single = SingleInstance()
    if not options.smoke and not single.start():
        log.info("Hermes Tray is already running; asked it to show its approvals")
        return EXIT_OK
    settings, tokens = _load_settings()
    quit_requested = asyncio.Event()
    bridge = GatewayBridge()
    shell = TrayShell(
        bridge,
        notify_settings=_notify_settings(settings),
        open_settings=lambda: _open_settings(shell, settings, tokens),
        on_quit=quit_requested.set,
    )
    single.show_approvals_requested.connect(shell.review)
    demo: BuiltInDemo | None = None
    try:
        endpoints = [] if options.demo else await _endpoints(options, settings, tokens)
        if not endpoints:
            demo = await BuiltInDemo.start()
        for endpoint in endpoints:
            bridge.add_gateway(endpoint)
        shell.show()
        bridge.start(loop, NativeNotifier(APP_NAME, icon_dir() / "hermes-tray.svg"))
        if demo is not None:
            demo.connect(bridge)  # adds the demo gateway and follows its sessions
        if options.smoke:
            return await _smoke(bridge, shell)
        await quit_requested.wait()
        log.info("quitting")
        return EXIT_OK
    finally:
        shell.dispose()
        await bridge.aclose()
        if demo is not None:
            await demo.stop()
        single.close()
        bridge.deleteLater()


def _load_settings() -> tuple[Any, Any]:
    from desktop.gateway.redact import register_secret
    from desktop.settings.store import load_settings
    from desktop.settings.tokens import TokenStore

    tokens = TokenStore(on_secret=register_secret)
    return load_settings(token_store=tokens), tokens


def _notify_settings(settings: Any) -> Any:
    from desktop.settings.model import NotificationApproval
    from desktop.ui.notify_policy import NotifySettings

    policy = settings.notifications
    return NotifySettings(
        show_commands=policy.show_command_text,
        approve_from_notification=policy.approve_from_notification is NotificationApproval.ONCE,
        quiet_after_start=settings.quiet_after_start_s,
    )


def _open_settings(shell: TrayShell, settings: Any, tokens: Any) -> None:
    """Open the settings dialog; saved changes apply to gateways at the next start."""
    from PySide6.QtCore import Qt

    from desktop.settings.store import save_settings
    from desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings, tokens)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)

    def edited(new: Any) -> None:
        save_settings(new)
        shell.tray.show_message(
            "Settings saved", "Gateway changes take effect the next time Hermes Tray starts."
        )

    dialog.settings_edited.connect(edited)
    dialog.open()


async def _endpoints(options: CliOptions, settings: Any, tokens: Any) -> list[GatewayEndpoint]:
    """--gateway, else the configured gateways, else discovery; [] means: show the demo."""
    from desktop.gateway.config import endpoint_from_config
    from desktop.gateway.discovery import discover
    from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint
    from desktop.gateway.redact import redact_url

    if options.gateway:
        log.info("using --gateway %s", redact_url(options.gateway))
        return [
            GatewayEndpoint("cli", "Gateway from --gateway", EndpointKind.URL, url=options.gateway)
        ]
    configured = [
        endpoint_from_config(g, tokens.get)
        for g in settings.gateways
        if g.kind.value != EndpointKind.DEMO.value
    ]
    result = await discover(configured=configured)
    for line in result.tried:
        log.info("discovery: %s", line)
    return list(result.endpoints)


async def _smoke(bridge: GatewayBridge, shell: TrayShell, timeout: float = SMOKE_TIMEOUT) -> int:
    """Wait until connected and one approval is visible in the dialog's model and the tray."""
    from desktop.ui.snapshot import Link

    def ready() -> bool:
        snapshot = bridge.snapshot
        connected = any(g.link is Link.UP for g in snapshot.gateways)
        status = shell.tray.status
        return connected and shell.dialog.pending_count() >= 1 and bool(status and status.count)

    done = asyncio.get_running_loop().create_future()

    def check(*_: object) -> None:
        if not done.done() and ready():
            done.set_result(True)

    bridge.snapshot_changed.connect(check)
    check()
    try:
        await asyncio.wait_for(done, timeout)
    except TimeoutError:
        log.error("smoke: no connected gateway with a visible approval within %.0f s", timeout)
        return EXIT_FAILED
    finally:
        bridge.snapshot_changed.disconnect(check)
    status = shell.tray.status
    assert status is not None  # ready() saw it
    log.info(
        "smoke: connected, %d approval(s) visible (tray icon %s)", status.count, status.icon_name
    )
    return EXIT_OK
