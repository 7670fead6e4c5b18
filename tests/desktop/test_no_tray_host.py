"""No tray host: the tray shows its own window and says why, on a desktop without a panel.

The desktop this tier runs on has xfce4-panel, whose tray cannot be hidden from an app; so the
scene (``no_tray_scene.py``) runs in a second desktop from the same runner, with
``HERMES_TRAY_NO_TRAY_HOST=1``: its own Xvfb and session bus, xfce4-notifyd and no panel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.desktop import xdesk

pytestmark = pytest.mark.desktop

HERE = Path(__file__).resolve().parent


def test_without_a_tray_host_the_tray_shows_its_own_window_and_says_why() -> None:
    xdesk.run_scene(HERE / "no_tray_scene.py", HERMES_TRAY_NO_TRAY_HOST="1")
