"""Decision safety, core level: thousands of seeded interleavings per dialect, no sockets.

The claim under test (design.md §2, protocol.md §3): every decision frame that leaves the core
resolves exactly the request the person acted on — judged by the reference server at the moment
the frame *arrives* (for 0.19.0: the session's FIFO head then must be that very approval) — at
most once, with a choice the server offered; when the core cannot be sure, nothing is sent and
the row says why. See ``tests/safety/sim`` for the model and the environment it assumes:

* frames keep their order and spend at most ``MAX_ONE_WAY`` (2 s) in flight each way, so a
  round trip fits in the core's 5 s staleness margin;
* 0.19.0 (A): the tray's local timeout equals the gateway's ``approvals.timeout``; one pending
  approval per session (measured); after our answer or a timeout the next command asks at
  once; no second person answers the same session within a round trip of our click (no client
  can tell two such answers apart without ids; see ``test_known_hazards``);
* a person confirms a stale row only if Hermes really still shows it (the dialog's wording);
* B/C: the gateway may re-use a request id for another command (``sim/id_reuse``), but not
  while an answer the core sent for the id's earlier meaning can still be on its way.

Each failing run prints its dialect, seed and the last steps; ``RandomChooser(seed)`` replays it.
"""

from __future__ import annotations

import pytest

from desktop.core.model import Dialect
from tests.safety.sim.engine import RunConfig, campaign, first_violation_report
from tests.safety.sim.world import SIMULATED
from tests.safety.tally import TALLY, scaled

RUNS = {Dialect.A: 1500, Dialect.B: 700, Dialect.C: 550}  # ~same wall time per dialect
STEPS = 60
SEED_BASE = {Dialect.A: 1_000_000, Dialect.B: 2_000_000, Dialect.C: 3_000_000}
# What a campaign of this size must at least exercise, or it proves little.
FLOORS = {
    "decision_resolved_target": 20,
    "decisions_refused": 200,
    "drops": 100,
    "server_timeouts": 5,
    "other_viewer_answers": 50,
    "interrupts": 50,
}
# B and C: the gateway re-uses ids (``sim/id_reuse``), and rows under re-used ids get answered.
ID_REUSE_FLOORS = {"ids_reused": 100, "ids_replaced": 50, "reused_id_answered": 3}


@pytest.mark.parametrize("dialect", SIMULATED, ids=lambda d: d.name)
def test_seeded_interleavings_keep_every_decision_on_its_request(dialect: Dialect) -> None:
    runs = scaled(RUNS[dialect])
    seeds = range(SEED_BASE[dialect], SEED_BASE[dialect] + runs)
    result = campaign(RunConfig(dialect, steps=STEPS), seeds)
    TALLY.add(
        f"core/{dialect.name}",
        runs=result.runs,
        steps=result.steps,
        violations=result.violations,
        seconds=result.seconds,
    )
    assert result.runs == runs
    if result.failures:
        seed, run = result.failures[0]
        pytest.fail(
            f"{len(result.failures)} of {runs} runs broke an invariant; first:\n"
            + first_violation_report(dialect, seed, run)
        )
    floors = FLOORS if dialect is Dialect.A else FLOORS | ID_REUSE_FLOORS
    thin = {
        k: result.stats[k] for k, floor in floors.items() if result.stats[k] < floor * runs / 500
    }
    assert not thin, f"the campaign exercised too little of: {thin}"
