"""The safety tier: print what the campaign exercised at the end of every run.

``HERMES_TRAY_CAMPAIGN_SCALE`` multiplies the size of every campaign here (default 1, sized to
stay well under a minute on two cores); ``scripts/safety_campaign.sh`` runs a bigger one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.safety.canary import Capture, capture_logs
from tests.safety.tally import TALLY


@pytest.fixture
def capture(tmp_path: Path) -> Iterator[Capture]:
    """Every log record of the test, raw and as the app's handlers wrote it (canary checks)."""
    with capture_logs(tmp_path) as captured:
        yield captured


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TALLY.layers and not TALLY.planted:
        return
    terminalreporter.write_sep("-", "decision-safety campaign")
    for line in TALLY.lines():
        terminalreporter.write_line(line)
