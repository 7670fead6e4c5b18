"""The environment every benchmark child process gets: offscreen Qt, isolated dirs, no bus.

Why one function for all children: a ratio is only fair when the app and its reference start
the same way — same interpreter, same platform plugin, same environment. Choices made here:

* ``QT_QPA_PLATFORM=offscreen``: no display on this machine. Offscreen never offers a system
  tray (``isSystemTrayAvailable()`` is False), so "tray shown" is defined by the bench as
  "``QSystemTrayIcon.show()`` returned and one event-loop turn ran" (``bench.probes.hooks``).
* Config, data, log and runtime dirs point into a private temporary folder, so the bench never
  reads or writes a developer's real settings, and the single-instance socket is private.
* No D-Bus session bus and a keyring that refuses: no desktop notification service, no
  secret service; the app falls back to the tray balloon, as it does on such machines.
* Byte-code caching on, into a bench-owned prefix (``artifacts/pycache``): an installed app
  has its ``.pyc`` files, but a shell with ``PYTHONDONTWRITEBYTECODE=1`` (as here) would make
  every start compile the app's newest modules from source and charge that to its cold start.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REMOVED = (
    "PYTHONDONTWRITEBYTECODE",
    "DBUS_SESSION_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "HERMES_TUI_GATEWAY_URL",
    "HERMES_HOME",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
ROOT = Path(__file__).resolve().parent.parent


def child_env(scratch: Path) -> dict[str, str]:
    """The environment for one benchmark child, with its private dirs under ``scratch``."""
    env = {k: v for k, v in os.environ.items() if k not in REMOVED}
    runtime = scratch / "runtime"
    for sub in ("runtime", "config", "data", "log", "home"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        QT_API="pyside6",
        NO_AT_BRIDGE="1",
        XDG_RUNTIME_DIR=str(runtime),
        HOME=str(scratch / "home"),
        HERMES_TRAY_CONFIG_DIR=str(scratch / "config"),
        HERMES_TRAY_DATA_DIR=str(scratch / "data"),
        HERMES_TRAY_LOG_DIR=str(scratch / "log"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
        PYTHONPYCACHEPREFIX=str(ROOT / "artifacts" / "pycache"),
    )
    return env


def scratch_dir() -> Path:
    """A fresh private folder for one benchmark run's child processes."""
    return Path(tempfile.mkdtemp(prefix="hermes-tray-bench-"))


def python() -> str:
    """The interpreter running the bench (the project's .venv when started from it)."""
    return sys.executable
