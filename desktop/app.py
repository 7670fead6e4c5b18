"""The composition root: process-wide decisions are made once, in order, and undone in reverse.

Quit goes through an ``asyncio.Event`` (``app.quit()`` would stop Qt's loop under
``run_until_complete``); a time-boxed YOLO is switched off, then clients close (1000) before
their tasks are cancelled. The icon comes first; the rest one loop turn later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.cli import CliOptions
    from desktop.demo_mode import BuiltInDemo
    from desktop.gateway.endpoints import GatewayEndpoint
    from desktop.settings.model import Settings
    from desktop.settings.tokens import TokenStore
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.settings_controller import SettingsController
    from desktop.ui.shell import TrayShell

log = logging.getLogger(__name__)

SMOKE_TIMEOUT = 30.0  # seconds until --smoke gives up
EXIT_OK, EXIT_FAILED = 0, 1


def run(options: CliOptions) -> int:
    os.environ.setdefault("QT_API", "pyside6")  # qasync would pick another binding first
    from PySide6.QtCore import qInstallMessageHandler

    from desktop.ui.pyside_sources import stop_source_caching

    stop_source_caching()  # before the bulk of the imports: see desktop.ui.pyside_sources
    from PySide6.QtWidgets import QApplication

    from desktop import logsetup
    from desktop.ui.event_loop import QuietEventLoop

    if not any(logsetup.is_own_handler(h) for h in logging.getLogger().handlers):
        logsetup.configure(options.log_level)
    app = _application(QApplication)
    previous_handler = qInstallMessageHandler(_qt_message)
    loop = QuietEventLoop(app)
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
    from desktop.platform.activation import launch_token
    from desktop.ui.single_instance import SingleInstance

    loop = asyncio.get_running_loop()
    single = SingleInstance()
    launch = launch_token(os.environ)  # the running tray's, if this launch is a second one
    if not options.smoke and not single.start(activation_token=launch):
        log.info("Hermes Tray is already running; asked it to show its approvals")
        return EXIT_OK
    from desktop.ui.icons import show_first_icon

    first_icon = show_first_icon()
    await _tray_shown()  # one loop turn: the icon is up; the rest is imported after
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.settings_controller import SettingsController, client_factory_for
    from desktop.ui.shell import TrayShell

    quit_requested = asyncio.Event()
    settings_control: SettingsController | None = None  # built once the icon is up

    def current_settings() -> Settings:  # each client gets the settings current when it is built
        assert settings_control is not None  # gateways are added after it is built
        return settings_control.settings

    bridge = GatewayBridge(client_factory_for(current_settings))
    shell = TrayShell(bridge, on_quit=quit_requested.set, first_icon=first_icon)
    single.show_approvals_requested.connect(lambda: _show_approvals(shell))
    stop_signals = _quit_on_signals(loop, quit_requested.set)
    demo: BuiltInDemo | None = None
    try:
        shell.show()
        from desktop import logsetup
        from desktop.journal import Journal
        from desktop.model.settings_apply import notify_settings
        from desktop.platform.native_notify import NativeNotifier
        from desktop.platform.paths import APP_NAME
        from desktop.settings.store import load_settings
        from desktop.settings.tokens import TokenStore
        from desktop.ui.icons import icon_dir

        tokens = TokenStore(on_secret=logsetup.register_secret)  # the log learns each token first
        settings = load_settings(token_store=tokens)
        settings_control = SettingsController(settings, tokens, bridge)
        shell.attach(
            settings=settings_control,
            journal=Journal(),
            notify_settings=notify_settings(settings),
        )
        endpoints = [] if options.demo else await _endpoints(options, settings, tokens)
        if not endpoints:
            from desktop.demo_mode import BuiltInDemo

            demo = await BuiltInDemo.start()
        for endpoint in endpoints:
            bridge.add_gateway(endpoint)
        bridge.start(loop, NativeNotifier(APP_NAME, icon_dir() / "hermes-tray.svg"))
        settings_control.report_token_storage()
        if not options.smoke:  # a check run (CI, packaging) leaves the person's home alone
            _install_launcher()
        if demo is not None:
            from desktop.demo_mode import DEMO_FIRST_BUBBLE, DEMO_GATEWAY_ID

            shell.notifications.policy.introduce(DEMO_GATEWAY_ID, DEMO_FIRST_BUBBLE)
            bridge.add_gateway(demo.endpoint)
        if options.smoke:
            return await _smoke(bridge, shell)
        await quit_requested.wait()
        log.info("quitting")
        return EXIT_OK
    finally:
        stop_signals()
        await _end_timeboxed_yolo(bridge, shell)
        shell.dispose()
        await bridge.aclose()
        if demo is not None:
            await demo.stop()
        single.close()
        bridge.deleteLater()


def _install_launcher() -> None:
    if sys.platform in ("darwin", "win32"):
        return
    from desktop.platform.autostart import launch_command
    from desktop.platform.desktop_entry import XdgLauncher
    from desktop.ui.icons import icon_dir

    launcher = XdgLauncher()
    try:
        if launcher.install(launch_command(), icon_dir() / "hermes-tray.svg"):
            log.info("desktop entry installed for this user: %s", launcher.path)
    except OSError as error:
        log.warning("could not install the desktop entry %s: %s", launcher.path, error)


async def _tray_shown() -> None:
    from PySide6.QtCore import QTimer

    turned = asyncio.get_running_loop().create_future()

    def after_turn() -> None:
        _write_startup_marker()
        if not turned.done():
            turned.set_result(None)

    QTimer.singleShot(0, after_turn)
    await turned


def _write_startup_marker() -> None:
    """Benchmarks and packaging checks wait for this file (``HERMES_TRAY_STARTUP_MARKER``)."""
    import time

    path = os.environ.get("HERMES_TRAY_STARTUP_MARKER", "")
    if not path:
        return
    try:
        with open(path, "w", encoding="utf-8") as marker:
            marker.write(f"tray_shown {time.monotonic():.6f}\n")
    except OSError as error:
        log.warning("could not write the start-up marker %s: %s", path, error)


def _show_approvals(shell: TrayShell) -> None:
    log.info("a second launch asked to show the approvals")
    shell.present()


def _quit_on_signals(
    loop: asyncio.AbstractEventLoop, quit: Callable[[], None]
) -> Callable[[], None]:
    """Quit on SIGTERM (logout) and SIGINT; dying at once would leave a YOLO box on."""
    installed = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # no such signals
            loop.add_signal_handler(signum, quit)
            installed.append(signum)

    def remove() -> None:
        for signum in installed:
            loop.remove_signal_handler(signum)

    return remove


async def _end_timeboxed_yolo(bridge: GatewayBridge, shell: TrayShell) -> None:
    """A time-boxed YOLO must not outlive the app that promised to end it."""
    sessions = shell.yolo.boxes.yolo_sessions()
    if not sessions:
        return
    try:
        await bridge.end_yolo(sessions)
    except Exception:  # quitting goes on whatever happened; the log has it
        log.exception("could not switch time-boxed YOLO off at quit")


def _url_name(url: str) -> str:
    """A person's name for a gateway given as a URL: its host and port, never its query."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        where = parts.hostname or "?"
        if parts.port:
            where += f":{parts.port}"
    except ValueError:
        where = "the address you gave"
    return f"Hermes at {where}"


async def _endpoints(
    options: CliOptions, settings: Settings, tokens: TokenStore
) -> list[GatewayEndpoint]:
    """[] means: show the demo."""
    from desktop.gateway.discovery import discover

    result = await discover(
        gateway=options.gateway,
        gateway_token=options.token_source(),  # --token-file, --token-keyring, HERMES_TRAY_TOKEN
        gateway_name=_url_name(options.gateway or ""),
        settings=lambda: settings,
        token_lookup=tokens.get,
    )
    for line in result.tried:
        log.info("discovery: %s", line)
    return list(result.endpoints)


async def _smoke(bridge: GatewayBridge, shell: TrayShell, timeout: float = SMOKE_TIMEOUT) -> int:
    """0 once connected with an approval visible in the dialog and the tray; 1 on timeout."""
    from desktop.model.snapshot import Link

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
