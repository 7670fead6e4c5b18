"""The composition root, as a real process: ``hermes-tray --demo --smoke`` offscreen.

A subprocess because ``desktop.app.run`` owns the whole process (its QApplication settings, its
qasync loop, Qt's message handler); packaging CI runs exactly this command on a built app.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.ui.dbus_fakes.private_bus import PrivateBus


def run_app(
    *args: str,
    timeout: float = 60,
    extra_env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6", **(extra_env or {}))
    with PrivateBus() as bus:  # nothing on it: the app must fall back, not reach a real desktop
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return subprocess.run(
            [sys.executable, "-W", "error", *(command or ["-m", "desktop", *args])],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def test_demo_smoke_connects_shows_an_approval_and_exits_cleanly():
    done = run_app("--demo", "--smoke")
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    assert "started the built-in demo" in log
    assert "gateway demo: connected" in log
    assert "smoke: connected, " in log
    assert "(tray icon waiting)" in log
    assert "Traceback" not in log
    assert "Task was destroyed" not in log
    assert "gateway demo: disconnected" in log  # closed by us, cleanly, before the loop ended


def test_a_smoke_run_installs_no_desktop_entry_or_icon() -> None:
    data_home = Path(os.environ["XDG_DATA_HOME"])  # isolated_env's, empty
    done = run_app("--demo", "--smoke")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "smoke: connected, " in done.stderr
    assert sorted(data_home.rglob("*")) == []


def test_startup_marker_is_written_once_the_tray_is_shown(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    done = run_app("--demo", "--smoke", extra_env={"HERMES_TRAY_STARTUP_MARKER": str(marker)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert marker.read_text().startswith("tray_shown ")


def test_the_icon_is_shown_before_the_bridge_and_the_core_are_imported(tmp_path: Path) -> None:
    """Start-up shows the icon first: the marker is written before the heavy modules load."""
    marker = tmp_path / "started"
    probe = (
        "import os, sys\n"
        "import desktop.app as app\n"
        "write = app._write_startup_marker\n"
        "def marked():\n"
        "    write()\n"
        "    heavy = [n for n in ('desktop.ui.bridge', 'desktop.core') if n in sys.modules]\n"
        "    with open(os.environ['HERMES_TRAY_STARTUP_MARKER'], 'a') as f:\n"
        "        f.write('loaded: ' + ','.join(heavy))\n"
        "app._write_startup_marker = marked\n"
        "from desktop.cli import main\n"
        "sys.exit(main(['--demo', '--smoke']))\n"
    )
    env = {"HERMES_TRAY_STARTUP_MARKER": str(marker)}
    done = run_app(extra_env=env, command=["-c", probe])
    assert done.returncode == 0, done.stderr[-3000:]
    text = marker.read_text()
    assert text.startswith("tray_shown ")
    assert text.endswith("loaded: "), text
