"""The same campaign driven by hypothesis, so a failing interleaving shrinks to a short one.

Why both drivers: the seeded runs (``test_campaign_core``) give volume and a replayable seed;
here every choice of the engine is drawn from ``st.data()``, so hypothesis explores its own way
(it favours small, boundary choices: an empty queue, the first row, zero seconds) and, on a
failure, shrinks the run to the fewest steps that still break the invariant. ``derandomize``
keeps CI reproducible; ``HERMES_TRAY_CAMPAIGN_SCALE`` scales ``max_examples``.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.model import Dialect
from tests.safety.sim.chooser import DataChooser
from tests.safety.sim.engine import RunConfig, run_once
from tests.safety.sim.world import SIMULATED
from tests.safety.tally import TALLY, scaled

EXAMPLES = 40
STEPS = 40


def _run(dialect: Dialect, data: st.DataObject) -> None:
    started = time.perf_counter()
    result = run_once(RunConfig(dialect, steps=STEPS), DataChooser(data))
    TALLY.add(
        f"hypothesis/{dialect.name}",
        runs=1,
        steps=result.steps,
        violations=len(result.violations),
        seconds=time.perf_counter() - started,
    )
    assert not result.violations, "\n".join(
        [str(v) for v in result.violations[:3]] + result.trace[-40:]
    )


HYPOTHESIS = settings(
    max_examples=scaled(EXAMPLES),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("dialect", SIMULATED, ids=lambda d: d.name)
@HYPOTHESIS
@given(data=st.data())
def test_hypothesis_interleavings_keep_every_decision_on_its_request(
    dialect: Dialect, data: st.DataObject
) -> None:
    _run(dialect, data)
