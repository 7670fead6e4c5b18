"""Notice, open, answer and quit on the other X11 desktops Debian packages give: trayer (an
XEmbed-only tray) with xfce4-notifyd, and xfce4-panel with dunst (no notification buttons).

Each runs ``desktop_scene.py`` in a desktop of its own from the same runner, with
``HERMES_TRAY_DESKTOP`` naming the part swapped; skipped where that program is not installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.desktop import xdesk

pytestmark = pytest.mark.desktop

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("desktop", ["trayer", "dunst"])
def test_a_person_can_notice_open_answer_and_quit(desktop: str) -> None:
    if not shutil.which(desktop):
        pytest.skip(f"{desktop} is not installed (apt-get install {desktop})")
    xdesk.run_scene(HERE / "desktop_scene.py", HERMES_TRAY_DESKTOP=desktop)
