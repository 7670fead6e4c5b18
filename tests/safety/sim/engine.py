"""The seeded interleaver: one run = one fresh core + reference server, N random steps.

Every step picks one action among everything that could happen next — a frame reaching either
side, the pump writing, time passing, the person clicking, the agent or another viewer acting,
the connection dropping, reconnecting or the gateway restarting — weighted so that races are
common. After every step the state invariants run (``checks``); the wire invariant runs inside
the reference server each time a decision frame arrives (``RefServer.verdict``).

A run stops early at its first violation when asked to (the planted-bug tests time that).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from desktop.core.gateway_core import CoreSettings, GatewayCore
from desktop.core.model import Dialect
from tests.safety.sim import network, person
from tests.safety.sim.checks import check_state
from tests.safety.sim.chooser import Chooser, RandomChooser, chance, weighted
from tests.safety.sim.model import Violation
from tests.safety.sim.refserver import ServerConfig
from tests.safety.sim.world import SimWorld

Step = tuple[str, int, Callable[[], None]]

MARGIN = 5.0
MAX_ONE_WAY = 2.0  # 2 x MAX_ONE_WAY < MARGIN: a round trip fits inside the safety margin


@dataclass(frozen=True)
class RunConfig:
    dialect: Dialect
    steps: int = 60
    server: ServerConfig = field(default_factory=ServerConfig)
    core_settings: CoreSettings | None = None
    max_one_way: float = MAX_ONE_WAY
    stop_at_first: bool = False
    network_faults: bool = True  # drops, restarts and failed writes
    core_factory: Callable[..., GatewayCore] = GatewayCore

    def settings(self) -> CoreSettings:
        if self.core_settings is not None:
            return self.core_settings
        # The tray is configured with the gateway's approvals.timeout (A: it counts locally).
        return CoreSettings(
            a_approval_timeout=self.server.approval_timeout,
            staleness_margin=MARGIN,
        )


@dataclass
class RunResult:
    steps: int
    violations: list[Violation]
    stats: Counter[str]
    trace: list[str]


def run_once(config: RunConfig, chooser: Chooser) -> RunResult:
    world = SimWorld(
        config.dialect,
        chooser,
        server_config=config.server,
        core_settings=config.settings(),
        max_one_way=config.max_one_way,
        core_factory=config.core_factory,
    )
    world.network_faults = config.network_faults
    network.connect(world)
    done = 0
    for step in range(config.steps):
        world.step = step
        name, _, action = weighted(chooser, [(w, (n, w, a)) for n, w, a in menu(world)])
        world.note(name)
        action()
        check_state(world)
        done = step + 1
        if config.stop_at_first and world.violations:
            break
    world.stats.update(world.server.stats)
    return RunResult(done, world.violations, world.stats, list(world.trace))


def menu(world: SimWorld) -> list[Step]:
    """Everything that could happen next, with weights."""
    c = world.chooser
    steps: list[Step] = [
        ("time passes a little", 5, lambda: network.advance(world, 0.1 * (1 + c.below(30)))),
        ("time passes a lot", 1, lambda: network.advance(world, 10.0 + c.below(60))),
        ("person clicks a row", 8, lambda: person.click_any(world)),
        ("person double-clicks", 1, lambda: person.double_click(world)),
        ("person approves all", 1, lambda: person.approve_all(world)),
        ("person sends nonsense", 1, lambda: person.bogus(world)),
    ]
    if world.to_client:
        steps.append(("frame reaches the core", 10, lambda: network.deliver_to_core(world)))
    if world.pump:
        steps.append(("pump writes a frame", 8, lambda: network.write_one(world)))
    if world.to_server:
        steps.append(("frame reaches the server", 8, lambda: network.deliver_to_server(world)))
    faults = world.network_faults
    if world.connected:
        if faults:
            steps.append(("connection drops", 1, lambda: network.drop(world)))
        if chance(c, 40):
            steps.append(("person interrupts", 1, lambda: person.interrupt(world)))
        if world.dialect is Dialect.B:
            steps.append(("app reconciles", 1, lambda: person.reconcile(world)))
    else:
        steps.append(("tray reconnects", 6, lambda: network.connect(world)))
    if faults and chance(c, 30):
        keep = chance(c, 50)
        steps.append(("gateway restarts", 1, lambda: network.restart(world, keep)))
    for name, weight, action in world.server.agent_actions():
        steps.append((f"agent: {name}", weight, _then_sync(world, action)))
    return steps


def _then_sync(world: SimWorld, action: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        action()
        world.sync_server()

    return run


@dataclass
class CampaignResult:
    dialect: Dialect
    runs: int = 0
    steps: int = 0
    seconds: float = 0.0
    failures: list[tuple[int, RunResult]] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for _, r in self.failures)


def campaign(config: RunConfig, seeds: Iterable[int]) -> CampaignResult:
    """Run ``config`` once per seed; keep the failing runs (seed, result)."""
    result = CampaignResult(config.dialect)
    started = time.perf_counter()
    for seed in seeds:
        run = run_once(config, RandomChooser(seed))
        result.runs += 1
        result.steps += run.steps
        result.stats.update(run.stats)
        if run.violations:
            result.failures.append((seed, run))
    result.seconds = time.perf_counter() - started
    return result


@dataclass
class Hunt:
    """How long the campaign took to catch a (planted) bug."""

    found: bool
    runs: int
    steps: int
    seconds: float
    seed: int | None = None
    report: str = ""


def hunt(config: RunConfig, seeds: Iterable[int], *, budget_seconds: float) -> Hunt:
    """Run seeds until the first violation (or the time budget runs out)."""
    started = time.perf_counter()
    runs = steps = 0
    for seed in seeds:
        run = run_once(replace(config, stop_at_first=True), RandomChooser(seed))
        runs += 1
        steps += run.steps
        if run.violations:
            took = time.perf_counter() - started
            report = first_violation_report(config.dialect, seed, run)
            return Hunt(True, runs, steps, took, seed, report)
        if time.perf_counter() - started > budget_seconds:
            break
    return Hunt(False, runs, steps, time.perf_counter() - started)


def first_violation_report(dialect: Dialect, seed: int, run: RunResult) -> str:
    """A readable reproduction: the violations and the last steps that led there."""
    lines = [f"dialect {dialect.name} seed {seed}: {len(run.violations)} violation(s)"]
    lines += [f"  {v}" for v in run.violations[:5]]
    lines.append("  last steps:")
    lines += [f"    {line}" for line in run.trace[-60:]]
    return "\n".join(lines)


def with_steps(config: RunConfig, steps: int) -> RunConfig:
    return replace(config, steps=steps)
