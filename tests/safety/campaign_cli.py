"""The big decision-safety campaign, on every core: ``python -m tests.safety.campaign_cli``.

Why outside pytest: CI runs a campaign sized to finish in seconds (``test_campaign_core``);
before a release, or after touching the core's answer rules, run hundreds of thousands of
interleavings on all cores (``scripts/safety_campaign.sh``). This also measures the two 0.19.0
hazards that only exist with two pending approvals per session (``test_known_hazards``), which
are reported, not failed on. Exit status 1 when any invariant broke in the main campaigns.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from desktop.core.model import Dialect
from tests.safety.sim.engine import RunConfig, campaign, first_violation_report
from tests.safety.sim.refserver import ServerConfig

MAIN = {Dialect.A: 10_000, Dialect.B: 4_000, Dialect.C: 3_000}  # runs at scale 1
HAZARDS = {
    "A, 2 pending/session, tray sees all, nobody else answers (rule check)": RunConfig(
        Dialect.A,
        server=ServerConfig(max_open_a=2, ask_only_when_viewed=True, other_viewers=False),
        network_faults=False,
    ),
    "A, 2 pending/session, missed while away": RunConfig(
        Dialect.A, server=ServerConfig(max_open_a=2, other_viewers=False)
    ),
    "A, 2 pending/session, another surface answers": RunConfig(
        Dialect.A,
        server=ServerConfig(max_open_a=2, ask_only_when_viewed=True),
        network_faults=False,
    ),
}


def _chunk(job: tuple[RunConfig, int, int]) -> tuple[int, int, int, Counter[str], list[str]]:
    config, start, count = job
    result = campaign(config, range(start, start + count))
    kinds: Counter[str] = Counter(v.kind for _, run in result.failures for v in run.violations)
    reports = [first_violation_report(config.dialect, s, r) for s, r in result.failures[:1]]
    return result.runs, result.steps, len(result.failures), kinds, reports


def run(
    pool: ProcessPoolExecutor, workers: int, name: str, config: RunConfig, runs: int, base: int
) -> int:
    size = max(1, runs // (4 * workers))
    jobs = [(config, base + i, min(size, runs - i)) for i in range(0, runs, size)]
    started = time.perf_counter()
    total_runs = steps = failing = 0
    kinds: Counter[str] = Counter()
    first: list[str] = []
    for done_runs, done_steps, bad, k, reports in pool.map(_chunk, jobs):
        total_runs, steps, failing = total_runs + done_runs, steps + done_steps, failing + bad
        kinds.update(k)
        first = first or reports
    took = time.perf_counter() - started
    print(f"{name}: {total_runs:,} runs, {steps:,} steps, {failing} failing runs, {took:.1f}s")
    for kind, count in kinds.most_common():
        print(f"    {count:6d} x {kind}")
    if first:
        print(
            "  first failure:\n" + "\n".join("    " + line for line in first[0].splitlines()[:40])
        )
    return failing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale", type=float, default=float(os.environ.get("HERMES_TRAY_CAMPAIGN_SCALE", "1"))
    )
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=50_000_000)
    parser.add_argument("--hazards", action="store_true", help="also measure the 0.19.0 hazards")
    args = parser.parse_args(argv)
    failing = 0
    with ProcessPoolExecutor(max_workers=args.processes) as pool:
        for dialect, runs in MAIN.items():
            config = RunConfig(dialect, steps=args.steps)
            failing += run(
                pool,
                args.processes,
                f"core/{dialect.name}",
                config,
                round(runs * args.scale),
                args.seed,
            )
        if args.hazards:
            print("-- hazards (reported, not failed on) --")
            for name, config in HAZARDS.items():
                run(
                    pool,
                    args.processes,
                    name,
                    replace(config, steps=args.steps),
                    round(1000 * args.scale),
                    args.seed,
                )
    print(f"safety campaign: {'FAILED' if failing else 'ok'} ({failing} failing runs)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
