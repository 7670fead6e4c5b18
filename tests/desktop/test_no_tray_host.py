"""No tray host: the tray shows its own window and says why, on a desktop without a panel.

The desktop this tier runs on has xfce4-panel, whose tray cannot be hidden from an app; so the
scene (``no_tray_scene.py``) runs in a second desktop from the same runner, with
``HERMES_TRAY_NO_TRAY_HOST=1``: its own Xvfb and session bus, xfce4-notifyd and no panel.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.desktop

HERE = Path(__file__).resolve().parent


def test_without_a_tray_host_the_tray_shows_its_own_window_and_says_why() -> None:
    env = dict(os.environ, HERMES_TRAY_NO_TRAY_HOST="1")
    done = subprocess.run(
        ["bash", str(HERE / "run_desktop_tests.sh"), "-q", "-s", str(HERE / "no_tray_scene.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    output = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output
