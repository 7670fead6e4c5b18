"""The shared guards really fail the tests they are meant to fail.

Each guard is exercised in a child pytest run (pytester) that loads our conftest as a plugin,
so a guard that silently stopped working shows up here rather than as flaky tests elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

GUARDED = """
import asyncio, os
from pathlib import Path

import pytest


def test_aloop_clean(aloop, arun):
    assert arun(asyncio.sleep(0, result=5)) == 5


def test_aloop_leaks_task(aloop):
    aloop.create_task(asyncio.sleep(3600), name="forgotten")


def test_aloop_unretrieved_exception(aloop, arun):
    async def boom():
        raise ValueError("lost")
    task = aloop.create_task(boom())
    arun(asyncio.sleep(0.01))
    del task


def test_arun_times_out(aloop, arun):
    with pytest.raises(TimeoutError):
        arun(asyncio.sleep(3600), timeout=0.01)


def test_env_is_isolated(isolated_env):
    assert Path.home() == isolated_env / "home"
    assert os.environ["HERMES_TRAY_CONFIG_DIR"].startswith(str(isolated_env))
    assert "HERMES_TUI_GATEWAY_URL" not in os.environ
    assert "HTTPS_PROXY" not in os.environ
"""

GUARDED_QT = """
import asyncio

from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QLabel, QSystemTrayIcon, QWidget

KEEP = []


def test_qloop_clean(qloop, arun):
    assert arun(asyncio.sleep(0, result=6)) == 6
    assert asyncio.get_event_loop() is qloop


def test_qloop_leaks_task(qloop, arun):
    async def start():
        asyncio.get_running_loop().create_task(asyncio.sleep(3600), name="forgotten-on-qt")
    arun(start())


def test_widget_registered_with_qtbot_is_fine(qtbot):
    label = QLabel("ok")
    qtbot.addWidget(label)
    label.show()


def test_widget_leak(qtbot):
    widget = QWidget()
    widget.setWindowTitle("leaky window")
    KEEP.append(widget)


def test_tray_leak(qapp):
    tray = QSystemTrayIcon(QIcon(QPixmap(16, 16)))
    tray.setObjectName("leaky-tray")
    KEEP.append(tray)


def test_after_the_leaks_all_is_clean_again(qtbot):
    assert True
"""


@pytest.fixture
def child(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose child runs load tests/conftest.py (and thus the Qt fixtures) as a plugin."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pytester.makeini("[pytest]\nqt_api = pyside6\n")
    return pytester


def run_child(child: pytest.Pytester) -> pytest.RunResult:
    return child.runpytest_subprocess("-p", "tests.conftest", "-p", "no:cacheprovider", timeout=120)


def test_loop_guards_fail_dirty_tests_and_pass_clean_ones(child: pytest.Pytester) -> None:
    child.makepyfile(test_guarded=GUARDED)
    result = run_child(child)
    result.assert_outcomes(passed=5, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_aloop_leaks_task*",
            "*task left pending: forgotten*",
            "*ERROR at teardown of test_aloop_unretrieved_exception*",
            "*loop error: Task exception was never retrieved: ValueError('lost')*",
        ],
        consecutive=False,
    )


def test_qt_guards_fail_leaky_tests_and_pass_clean_ones(child: pytest.Pytester) -> None:
    pytest.importorskip("PySide6")
    child.makepyfile(test_guarded_qt=GUARDED_QT)
    result = run_child(child)
    result.assert_outcomes(passed=6, errors=3)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_qloop_leaks_task*",
            "*task left pending: forgotten-on-qt*",
            "*ERROR at teardown of test_widget_leak*",
            "*QWidget title='leaky window' visible=False*",
            "*ERROR at teardown of test_tray_leak*",
            "*QSystemTrayIcon objectName='leaky-tray'*",
        ],
        consecutive=False,
    )
