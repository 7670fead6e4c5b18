"""Desktop integration of the composition root: one instance per user, close-to-tray, and a
clean quit on SIGTERM (logout).

The process tests run ``python -m desktop`` for real (offscreen, a private D-Bus, the isolated
config dirs of tests/conftest.py), because ``desktop.app.run`` owns the whole process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop import app as app_module
from desktop.settings.model import Settings
from desktop.settings.tokens import TokenStore
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import SettingsController
from desktop.ui.shell import TrayShell
from desktop.ui.single_instance import SingleInstance
from tests.ui.dbus_fakes.private_bus import PrivateBus
from tests.ui.standins import Endpoint, make_factory
from tests.waiting import poll_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets and signals")
OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore("This plugin does not support")


@pytest.fixture
def app_env() -> Iterator[dict[str, str]]:
    with PrivateBus() as bus:  # nothing on it: the app must not reach a real desktop
        yield dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            QT_API="pyside6",
            DBUS_SESSION_BUS_ADDRESS=bus.address,
        )


async def qt_turns(count: int) -> None:
    """Let Qt run its event loop ``count`` times (each turn handles what was posted before)."""
    for _ in range(count):
        turned = asyncio.get_running_loop().create_future()
        QTimer.singleShot(0, lambda done=turned: done.done() or done.set_result(None))
        await turned


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-W", "error", "-m", "desktop", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_until(process: subprocess.Popen[str], needle: str) -> list[str]:
    """Lines of the process's log up to and including the first that contains ``needle``."""
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} never logged; the log was:\n{''.join(lines)}")


def test_a_second_launch_exits_0_and_the_first_quits_cleanly_on_sigterm(app_env):
    url = f"ws://127.0.0.1:{closed_port()}/api/ws"  # nobody listens: it just keeps retrying
    first = launch(app_env, "--gateway", url)
    try:
        read_until(first, "using --gateway")  # past the single-instance claim
        second = subprocess.run(
            [sys.executable, "-W", "error", "-m", "desktop"],
            env=app_env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 0, second.stderr[-2000:]
        assert "already running" in second.stderr
        assert "using --gateway" not in second.stderr  # it connected to nothing
        read_until(first, "a second launch asked to show the approvals")
        first.send_signal(signal.SIGTERM)  # what the session manager does at logout
        rest = first.communicate(timeout=60)[1]
        assert first.returncode == 0, rest[-3000:]
        assert "quitting" in rest
        assert "Traceback" not in rest
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()


@OFFSCREEN_WINDOWS
def test_the_running_app_shows_its_approval_dialog_for_a_second_launch(
    tray_app, qloop, arun, app_env
):
    async def scenario():
        clients: dict = {}
        bridge = GatewayBridge(make_factory(clients))
        bridge.add_gateway(Endpoint("g1", "Local"))
        shell = TrayShell(bridge, on_quit=lambda: None)
        single = SingleInstance()  # the per-user name desktop.app uses
        assert single.start()
        single.show_approvals_requested.connect(lambda: app_module._show_approvals(shell))
        bridge.start(qloop)
        assert not shell.dialog.isVisible()
        second = launch(app_env)
        await poll_until(lambda: second.poll() is not None, timeout=60)
        assert second.returncode == 0
        await poll_until(shell.dialog.isVisible)
        second.communicate()
        single.close()
        shell.dispose()
        await bridge.aclose()
        shell.deleteLater()
        bridge.deleteLater()

    arun(scenario(), timeout=90)


@OFFSCREEN_WINDOWS
def test_closing_the_dialog_and_settings_never_quits_the_tray_app(qapp, qloop, arun, tmp_path):
    saved = (qapp.quitOnLastWindowClosed(), qapp.applicationName(), qapp.desktopFileName())
    display, icon = qapp.applicationDisplayName(), qapp.windowIcon()
    app_module._application(QApplication)  # as desktop.app.run sets the application up
    assert not qapp.quitOnLastWindowClosed()

    async def scenario():
        clients: dict = {}
        quits: list = []
        bridge = GatewayBridge(make_factory(clients))
        control = SettingsController(Settings(), TokenStore(tmp_path), bridge, path=tmp_path / "s")
        shell = TrayShell(bridge, on_quit=lambda: quits.append(True))
        shell.attach(settings=control)
        bridge.start(qloop)
        shell.review()
        control.open_dialog()
        await poll_until(lambda: shell.dialog.isVisible() and control.dialog.isVisible())
        shell.dialog.close()
        control.dialog.close()  # the window manager's close button does the same
        await poll_until(lambda: control.dialog is None and not shell.dialog.isVisible())
        # Were quitting on the last closed window still on, Qt would now stop this loop and
        # arun() would fail with "Event loop stopped before Future completed".
        await qt_turns(5)
        assert quits == []
        shell.dispose()
        await bridge.aclose()
        shell.deleteLater()
        bridge.deleteLater()

    try:
        arun(scenario(), timeout=30)
    finally:
        qapp.setQuitOnLastWindowClosed(saved[0])
        qapp.setApplicationName(saved[1])
        qapp.setDesktopFileName(saved[2])
        qapp.setApplicationDisplayName(display)
        qapp.setWindowIcon(icon)
