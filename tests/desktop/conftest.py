"""Real-desktop tests run only inside tests/desktop/run_desktop_tests.sh (xcb, tray, notifyd)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ready = (
        os.environ.get("QT_QPA_PLATFORM") == "xcb"
        and bool(os.environ.get("DISPLAY"))
        and _has_owner("org.kde.StatusNotifierWatcher")
        and _has_owner("org.freedesktop.Notifications")
    )
    if ready:
        return
    skip = pytest.mark.skip(reason="needs the desktop from tests/desktop/run_desktop_tests.sh")
    for item in items:
        if "desktop" in item.keywords:
            item.add_marker(skip)
