"""Real-desktop tests run only inside tests/desktop/run_desktop_tests.sh (xcb, tray, notifyd).

The skip below applies to the items of this directory only. pytest calls a conftest's
``pytest_collection_modifyitems`` with every item of the session, so without the path check
it also skipped desktop-marked tests of other tiers that need no tray host (the Xvfb input
scenario in tests/e2e), and they never ran anywhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
WATCHER = "org.kde.StatusNotifierWatcher"


def _has_owner(name: str) -> bool:
    if not shutil.which("gdbus") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    done = subprocess.run(
        [
            "gdbus",
            "call",
            "--session",
            "-d",
            "org.freedesktop.DBus",
            "-o",
            "/org/freedesktop/DBus",
            "-m",
            "org.freedesktop.DBus.NameHasOwner",
            name,
        ],
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    )
    return "true" in done.stdout


def _here(item: pytest.Item) -> bool:
    return HERE in item.path.resolve().parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if _here(item) and "desktop" in item.keywords]
    if not mine:
        return  # nothing of this tier collected: no bus queries, nothing to skip
    ready = (
        os.environ.get("QT_QPA_PLATFORM") == "xcb"
        and bool(os.environ.get("DISPLAY"))
        # the no-tray-host desktop (test_no_tray_host's scene) and trayer's (test_other_desktops)
        # have no watcher on purpose
        and (
            bool(os.environ.get("HERMES_TRAY_NO_TRAY_HOST"))
            or os.environ.get("HERMES_TRAY_DESKTOP") == "trayer"
            or _has_owner(WATCHER)
        )
        and _has_owner("org.freedesktop.Notifications")
    )
    if ready:
        return
    skip = pytest.mark.skip(reason="needs the desktop from tests/desktop/run_desktop_tests.sh")
    for item in mine:
        item.add_marker(skip)
