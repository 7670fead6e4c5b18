"""What the running app has imported once it is up: only what idle needs (memory at idle).

A subprocess runs the real entry point (``--demo --smoke``: tray shown, connected, an approval
visible) and lists ``sys.modules`` afterwards. Each module named here is imported on first use
instead (a token read, a config.yaml to parse, discovery, a plist, a notification), and each
costs memory for the whole day if it is imported at start-up. What still works when used is
tested beside each feature (tests/settings/test_tokens.py, tests/ui/test_notifications.py, ...).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tests.ui.dbus_fakes.private_bus import PrivateBus

NOT_AT_IDLE = (
    "keyring",  # TokenStore: only when a token is read or written
    "yaml",  # approval_timeout: only when there is a config.yaml to read
    "plistlib",  # macOS start-at-login only
    "desktop_notifier",  # NativeNotifier: started with the first notification
    "dbus_fast",
    "desktop.ui.settings_dialog",  # Settings… on first use
    "PySide6.QtSvg",  # icons: pre-rendered PNGs at the tray sizes
    "ctypes",  # tray_probe: libX11, only for an XEmbed icon on X11
)

DRIVER = """
    import linecache, os, sys
    from desktop.cli import main
    code = main(["--demo", "--smoke"])
    print("MODULES", " ".join(sorted(sys.modules)))
    tasks = os.listdir("/proc/self/task")
    print("THREADS", " ".join(open(f"/proc/self/task/{t}/comm").read().strip() for t in tasks))
    print("LINECACHE", len(linecache.cache))
    sys.exit(code)
"""

TRAY_ONLY = """
    from PySide6 import QtWidgets
    app = QtWidgets.QApplication([])
    from desktop.ui.bridge import GatewayBridge
    from desktop.ui.tray import TrayController
    TrayController(GatewayBridge(lambda endpoint, listener: None)).tray.show()  # no gateway
    print("QMessageBox" in vars(QtWidgets))
"""


def run_idle_app() -> tuple[set[str], int, list[str]]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    with PrivateBus() as bus:  # nothing on it: no notification service, as in test_app
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(DRIVER)],
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    return set(lines["MODULES"].split()), int(lines["LINECACHE"]), lines["THREADS"].split()


def test_the_running_app_has_not_imported_what_idle_does_not_need():
    modules, cached_sources, threads = run_idle_app()
    assert "desktop.ui.shell" in modules  # the probe really ran the app
    loaded = sorted(m for m in modules if m.split(".")[0] in NOT_AT_IDLE or m in NOT_AT_IDLE)
    assert loaded == []
    # PySide6's import hook did not leave the sources of the app's modules in linecache.
    assert cached_sources < 10, cached_sources
    # Headless, no panel is watched: Qt's D-Bus thread (and its memory) is never started.
    assert "QDBusConnection" not in threads, threads


def test_the_tray_makes_its_question_box_type_only_when_it_asks():
    """PySide6 builds a class (with its enums) when it is first named: ~0.3 MiB at idle."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    code = textwrap.dedent(TRAY_ONLY)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split()[-1:] == ["False"], done.stderr[-3000:]
