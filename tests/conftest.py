"""Guards and fixtures shared by every test tier.

Why it imports nothing Qt at module level: ``tests/core`` also runs in ``.venv-core``, which has
no PySide6 on purpose (that is how a stray Qt import in the core is caught). The Qt fixtures
(``qloop``, the widget/tray leak guard) live in ``tests/qt_fixtures.py`` and are loaded as a
plugin only when PySide6 is installed.

What every test gets:

- ``isolated_env`` (autouse): HOME, the XDG dirs and the app's own config/log dirs point into a
  fresh temporary folder; proxy and gateway variables are removed; the keyring is a backend that
  refuses, so no test can read or write the developer's real settings, secrets or logs.
- ``aloop``: a plain asyncio loop for Qt-free gateway tests that fails the test if a task is left
  pending or an exception reached the loop's handler.
- ``arun(coro, timeout=10)``: run a coroutine to completion on the test's loop: ``aloop`` if the
  test asked for it, else ``qloop`` (the qasync loop on pytest-qt's QApplication).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from desktop import logsetup
from tests.loop_guard import LoopHygiene, close_loop_or_fail

# qasync picks the first Qt binding it can import unless told; PySide6 is ours.
os.environ.setdefault("QT_API", "pyside6")
# Headless by default, so a plain `pytest` never opens windows on a developer's desktop;
# scripts/test.sh sets QT_QPA_PLATFORM=xcb (under Xvfb) for the desktop-marked tests.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Qt warns (and pytest-qt then fails the test) when XDG_RUNTIME_DIR is unset, as it is under
# CI and in containers. A private 0700 folder silences that for the whole session.
if not os.environ.get("XDG_RUNTIME_DIR"):
    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="hermes-tray-runtime-")
# GTK helpers started by desktop tests would otherwise try to reach an accessibility bus.
os.environ.setdefault("NO_AT_BRIDGE", "1")

HAVE_QT = importlib.util.find_spec("PySide6") is not None
HAVE_PYTEST_QT = importlib.util.find_spec("pytestqt") is not None
HAVE_PYTEST_TIMEOUT = importlib.util.find_spec("pytest_timeout") is not None

pytest_plugins = ["pytester"]
if HAVE_QT and HAVE_PYTEST_QT:
    pytest_plugins.append("tests.qt_fixtures")

# Environment variables that would let a test reach a real gateway or the network.
_REMOVED_ENV = (
    "HERMES_TUI_GATEWAY_URL",
    "HERMES_HOME",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)

T = TypeVar("T")


def pytest_configure(config: pytest.Config) -> None:
    """Under test, an input the approval table does not list for a row raises (not logged)."""
    from desktop.core import approvals

    approvals.STRICT = True


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the ini keys of plugins missing from ``.venv-core``.

    pyproject.toml sets ``qt_api``, ``timeout`` and friends for the full environment; with
    ``--strict-config`` an unknown key would be an error in the PySide6-free core environment,
    where pytest-qt and pytest-timeout are deliberately absent.
    """
    if not HAVE_PYTEST_QT:
        for name in ("qt_api", "qt_log_level_fail", "qt_log_ignore"):
            parser.addini(name, f"(unused: pytest-qt is not installed) {name}", type="linelist")
    if not HAVE_PYTEST_TIMEOUT:
        parser.addini("timeout", "(unused: pytest-timeout is not installed)")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Point every per-user location at a fresh folder; return that folder.

    Layout: ``home/``, ``xdg/{config,data,state,cache}/``, ``hermes-tray/{config,log}/``.
    """
    root = tmp_path_factory.mktemp("env")
    home = root / "home"
    locations = {
        "HOME": home,
        "XDG_CONFIG_HOME": root / "xdg" / "config",
        "XDG_DATA_HOME": root / "xdg" / "data",
        "XDG_STATE_HOME": root / "xdg" / "state",
        "XDG_CACHE_HOME": root / "xdg" / "cache",
        "HERMES_TRAY_CONFIG_DIR": root / "hermes-tray" / "config",
        "HERMES_TRAY_LOG_DIR": root / "hermes-tray" / "log",
    }
    for name, path in locations.items():
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(path))
    for name in _REMOVED_ENV:
        monkeypatch.delenv(name, raising=False)
    # The keyring would otherwise reach the developer's Secret Service. "fail" raises on use;
    # tests that need one install an in-memory backend with keyring.set_keyring().
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return root


@pytest.fixture(autouse=True)
def isolated_logging() -> Iterator[None]:
    """Undo ``desktop.logsetup.configure`` and registered secrets after each test."""
    root = logging.getLogger()
    level = root.level
    yield
    for handler in [h for h in root.handlers if logsetup.is_own_handler(h)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
    forget_secrets()


def forget_secrets() -> None:
    """Each test starts with no registered secret (the product only ever adds them)."""
    logsetup._secret_forms.clear()
    logsetup._secret_pattern = None


@pytest.fixture
def aloop() -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh plain asyncio loop, set as current; fails the test on leaked tasks or errors."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    hygiene = LoopHygiene(loop)
    yield loop
    close_loop_or_fail(hygiene)


@pytest.fixture
def arun(
    request: pytest.FixtureRequest,
) -> Callable[..., Any]:
    """``arun(coro, timeout=10)``: run ``coro`` on the test's loop and return its result.

    The loop is ``aloop`` when the test requested it, otherwise ``qloop``. A coroutine still
    running after ``timeout`` seconds is cancelled and the test fails with TimeoutError.
    """
    name = "aloop" if "aloop" in request.fixturenames else "qloop"
    loop: asyncio.AbstractEventLoop = request.getfixturevalue(name)

    def run(coro: Coroutine[Any, Any, T], timeout: float = 10.0) -> T:
        return loop.run_until_complete(asyncio.wait_for(coro, timeout))

    return run
