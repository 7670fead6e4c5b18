"""Real-Hermes smoke tests: the shared peer fixtures plus the ``realhermes`` marker."""

from __future__ import annotations

import pytest

from tests.peers.fixtures import (  # noqa: F401  (pytest finds fixtures by name)
    fake_model,
    hermes_019,
    hermes_axisrow,
    hermes_iot,
    scratch_dir,
    start_hermes,
)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker here too, so these tests run under ``--strict-markers`` on their own."""
    config.addinivalue_line(
        "markers", "realhermes: runs the real Hermes gateway (installs it into .cache on first use)"
    )
