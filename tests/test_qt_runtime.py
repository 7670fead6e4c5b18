"""The installed Qt binding is one the app can live with for hours.

Why: PySide6 6.12.0 on Python < 3.12 drops a reference to ``None`` on every call that returns
nothing (``label.setText``, ``processEvents``...). Where None is not immortal (PEP 683 made it so
in 3.12) its count reaches zero after a few thousand calls and the interpreter aborts with
"Fatal Python error: none_dealloc" -- in a test run after a few hundred Qt tests, in the tray
after minutes of use. pyproject.toml keeps that release off Python 3.11; this test catches any
other release with the same defect.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QLabel

CALLS = 500  # enough to see the loss, few enough not to abort the run where it happens


def test_void_calls_keep_none_alive(qapp: QApplication) -> None:
    if sys.version_info >= (3, 12):
        pytest.skip("None is immortal from Python 3.12 on; the defect cannot hurt there")
    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(CALLS):
        label.setText("x")
        QCoreApplication.processEvents()
    lost = before - sys.getrefcount(None)
    label.deleteLater()
    assert lost < 50, (
        f"this PySide6 build lost {lost} references to None in {CALLS * 2} calls; "
        "a long run will abort with 'none_dealloc'. Use another PySide6 release (pyproject.toml)."
    )
