"""One seeded end-to-end scenario: a scripted turn, a random person, random faults.

The person clicks open rows (mostly an offered choice, sometimes any choice, sometimes twice),
and at random moments — often right after a click, while the answer is on its way — the
connection drops, the gateway restarts with new epochs, another viewer answers first (B/C) or
the person interrupts the session. What is checked afterwards is in ``verdicts``.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field

from desktop.core.model import Approval, ApprovalPhase, Choice
from desktop.gateway.errors import GatewayError
from tests.core.frames import wire_of
from tests.gatewaymodel import Batch, Command, Turn
from tests.gatewaymodel.model import PendingRequest
from tests.safety.e2e.rig import Rig
from tests.safety.e2e.taps import Click

OPEN = (ApprovalPhase.WAITING, ApprovalPhase.STALE)
KEYS = ("delete in root path", "find -delete", "world-writable")
OTHER = "other-viewer"


@dataclass
class Plan:
    dialect: str
    seed: int
    commands: tuple[Command, ...]
    batch: bool


@dataclass
class Result:
    violations: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)


def plan(dialect: str, seed: int) -> Plan:
    rng = random.Random(seed)
    count = rng.randint(2, 4)
    commands = tuple(
        Command(
            f"rm -rf /tmp/hermes-scratch/s{seed}-{i}",
            rng.choice(KEYS),
            exit_code=1 if rng.random() < 0.15 else 0,
            allow_permanent=rng.random() < 0.8,
            allow_session=rng.random() < 0.9,
        )
        for i in range(count)
    )
    return Plan(dialect, seed, commands, batch=dialect != "A")


def turn_of(p: Plan) -> Turn:
    if p.batch:
        return Turn([Batch(p.commands)], reply="done")
    return Turn(list(p.commands), reply="done")


def request_of(rig: Rig, row: Approval) -> PendingRequest | None:
    for req in rig.fake.requests:
        if req.command is None or req.command.command != row.command:
            continue
        if rig.fake.dialect == "B" and req.srq_id != wire_of(rig.client.core, row.key).srq_id:
            continue
        if (
            rig.fake.dialect == "C"
            and req.prompt_id != wire_of(rig.client.core, row.key).request_id
        ):
            continue
        if rig.fake.dialect == "A" and not req.is_open:
            continue
        return req
    return None


def still_shows(rig: Rig, req: PendingRequest | None) -> bool:
    """What an honest person checks in Hermes before confirming a stale row."""
    if req is None or not req.is_open:
        return False
    if rig.fake.dialect == "A":
        pending = rig.fake.world.open_approvals(req.session)
        return bool(pending) and pending[0] is req
    return True


def click(rig: Rig, rng: random.Random, row: Approval, result: Result) -> bool:
    offered = list(row.choices)
    choice = rng.choice(offered) if rng.random() < 0.75 else rng.choice(list(Choice))
    confirm = still_shows(rig, request_of(rig, row))
    wire = wire_of(rig.client.core, row.key)
    record = Click(
        row.key,
        choice.value,
        False,
        row.command,
        wire.srq_id,
        wire.request_id,
        wire.execution_generation,
    )
    with rig.tap.clicking(record):
        outcome = rig.client.decide(row.key, choice, confirm_stale=confirm)
    record.sent = outcome.sent
    result.stats["clicks_sent" if outcome.sent else "clicks_refused"] += 1
    if not outcome.sent and not outcome.reason:
        result.violations.append(f"refusal without a reason for {row.key}")
    return outcome.sent


def other_viewer(rig: Rig, rng: random.Random, result: Result) -> None:
    """Another viewer answers an open request first (B: by frame, so no cancel reaches us)."""
    pending = [r for r in rig.fake.open_requests() if r.method == "approval"]
    if not pending:
        return
    req = rng.choice(pending)
    choice = rng.choice(req.choices)
    result.stats["other_viewer_answers"] += 1
    rig.fake.world.reqs.answer(req, choice, via=OTHER)


async def fault(rig: Rig, rng: random.Random, result: Result) -> None:
    roll = rng.random()
    if roll < 0.6:
        result.stats["drops"] += 1
        rig.fake.drop()
    else:
        result.stats["restarts"] += 1
        await rig.fake.restart(how=rng.choice(["abort", "close"]))


async def person(rig: Rig, p: Plan, sid: str, result: Result, *, budget: float, steps: int) -> bool:
    """Click, fault and interfere until the turn ends; True when it ended within the budget."""
    rng = random.Random(p.seed * 7919 + 1)
    clicks, faults = rng.choice([(0.6, 0.05), (0.4, 0.15), (0.3, 0.3)])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    for _ in range(steps):
        session = rig.fake.world.find_session(sid)
        if session is None or (session.turn_task is None and not rig.fake.open_requests()):
            return True
        if loop.time() > deadline:
            return False
        await rig.wake.wait(0.03)
        rows = [a for a in rig.client.core.approvals() if a.phase in OPEN]
        others = 0.06 if p.dialect != "A" else 0.0
        action = rng.choices(
            ["click", "fault", "other", "interrupt", "wait"],
            weights=[clicks, faults, others, 0.01, max(0.0, 1 - clicks - faults - others - 0.01)],
        )[0]
        if action == "click" and rows:
            row = rng.choice(rows)
            sent = click(rig, rng, row, result)
            if sent and rng.random() < 0.15:
                click(rig, rng, row, result)  # a double click: must be refused
            if sent and rng.random() < faults:
                await fault(rig, rng, result)  # while the decision is on its way
        elif action == "fault":
            await fault(rig, rng, result)
        elif action == "other":
            other_viewer(rig, rng, result)
        elif action == "interrupt":
            result.stats["interrupts"] += 1
            try:
                await rig.client.interrupt(sid)
            except GatewayError:
                result.stats["interrupt_not_sent"] += 1
    return False
