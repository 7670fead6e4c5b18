"""Notice, open, answer and quit on the other X11 desktops Debian packages give: trayer (an
XEmbed-only tray) with xfce4-notifyd, and xfce4-panel with dunst (no notification buttons).

Each runs ``desktop_scene.py`` in a desktop of its own from the same runner, with
``HERMES_TRAY_DESKTOP`` naming the part swapped; skipped where that program is not installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.desktop

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("desktop", ["trayer", "dunst"])
def test_a_person_can_notice_open_answer_and_quit(desktop: str) -> None:
    if not shutil.which(desktop):
        pytest.skip(f"{desktop} is not installed (apt-get install {desktop})")
    done = subprocess.run(
        ["bash", str(HERE / "run_desktop_tests.sh"), "-q", "-s", str(HERE / "desktop_scene.py")],
        env=dict(os.environ, HERMES_TRAY_DESKTOP=desktop),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    output = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output
