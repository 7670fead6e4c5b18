"""What the built-in demo acts out, and how it reacts to the person's answers.

Two sessions play in a loop on the fake gateway, at human pace:

* **"Clean up the webshop build"**: the agent plans four steps, then asks for a batch of three
  destructive commands at once (``rm -rf``, ``git clean``, a ``DROP SCHEMA``). Approved ones
  "run"; a denied one is blocked, its plan step is crossed out and the agent says what it left
  alone. Usage and cost tick after every model call.
* **"Tidy the home server"**: the agent switches YOLO on, restarts a service and prunes Docker
  without asking, switches YOLO off again, then asks for one last command.

Why an opening and a follow-up turn per round: a fixed turn would mark the plan done whatever
the person answered, so Deny would look like it did nothing. Here each round is an *opening*
turn (up to the approvals) and a *follow-up* turn written from what actually ran, so a decision
in the tray visibly changes the course. The app's ``--demo`` and ``python -m
desktop.demo`` play this same story. The vocabulary (``Turn``, ``Batch``…) is the fake
gateway's; nothing is ever run on this machine: the fake only records commands as "executed".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop.demo import (
    Batch,
    Command,
    DemoGateway,
    Pause,
    Say,
    SetYolo,
    Status,
    Title,
    Todo,
    Turn,
    UsageTick,
)
from desktop.demo.model import Session
from desktop.demo.script import Step

REST_BETWEEN_ROUNDS = 6.0  # script seconds a session idles before it plays again


@dataclass(frozen=True)
class Act:
    """One demo session: its opening turn, and the follow-up written from what ran."""

    title: str
    cwd: str
    opening: Turn
    follow_up: Callable[[frozenset[str]], Turn]  # commands that really "ran" this round


# -- session 1: a batch of three, a plan that moves ------------------------------------------

CLEAN_BUILD = Command(
    "rm -rf build/ dist/ .pytest_cache",
    "recursive delete",
    description="recursive delete (rm -rf)",
    duration=0.8,
)
CLEAN_UNTRACKED = Command(
    "git clean -fdx -e .env",
    "git clean",
    description="remove untracked and ignored files",
    duration=0.6,
)
DROP_LEGACY = Command(
    "psql -d shop_dev -c 'DROP SCHEMA legacy CASCADE'",
    "sql drop",
    description="drop database objects (DROP … CASCADE)",
    duration=1.0,
)
WEBSHOP_BATCH = (CLEAN_BUILD, CLEAN_UNTRACKED, DROP_LEGACY)
WEBSHOP_PLAN = (
    "Remove stale build artefacts",
    "Clean untracked files",
    "Drop the legacy schema",
    "Re-run the test suite",
)


def _plan(*statuses: str) -> Todo:
    return Todo(
        tuple(
            {"id": str(i + 1), "content": text, "status": status}
            for i, (text, status) in enumerate(zip(WEBSHOP_PLAN, statuses, strict=True))
        )
    )


def webshop_opening() -> Turn:
    """Plan, think, then ask for the three commands at once."""
    return Turn(
        [
            Title("Clean up the webshop build"),
            Say("I'll clear the old build output and the legacy schema, then re-run the tests."),
            _plan("pending", "pending", "pending", "pending"),
            UsageTick(input=3200, output=140, cost_usd=0.012, context_used=18400),
            Pause(1.5),
            _plan("in_progress", "pending", "pending", "pending"),
            Batch(WEBSHOP_BATCH),
        ]
    )


def webshop_follow_up(ran: frozenset[str]) -> Turn:
    """Cross out what was blocked, run the tests, and say what was left alone."""
    done = ["completed" if c.command in ran else "cancelled" for c in WEBSHOP_BATCH]
    skipped = [
        step for c, step in zip(WEBSHOP_BATCH, WEBSHOP_PLAN, strict=False) if c.command not in ran
    ]
    steps: list[Step] = [
        _plan(*done, "in_progress"),
        UsageTick(input=4100, output=220, cost_usd=0.018, context_used=22500),
    ]
    what = "; ".join(s.lower() for s in skipped)
    if skipped:
        steps.append(Say(f"That was blocked, so I'll leave it: {what}."))
    steps += [
        Command("pytest -q", output="212 passed in 14.2s", duration=2.0),
        _plan(*done, "completed"),
        UsageTick(input=2600, output=90, cost_usd=0.009, context_used=24100),
    ]
    summary = (
        "Build output and the legacy schema are gone; the suite passes."
        if not skipped
        else f"Skipped what you denied ({what}); the rest is done and the suite passes."
    )
    steps.append(Say(summary))
    return Turn(steps)


# -- session 2: YOLO on and off, then one approval -------------------------------------------

FIX_PERMISSIONS = Command(
    "chmod -R 755 /srv/www",
    "recursive chmod",
    description="recursive permission change",
    duration=0.5,
)


def homeserver_opening() -> Turn:
    """YOLO on for routine work (no questions), YOLO off, then one command that asks."""
    return Turn(
        [
            Title("Tidy the home server"),
            Say("Switching to YOLO for the routine maintenance."),
            SetYolo(True),
            Status("YOLO on: commands run without asking"),
            Command("sudo systemctl restart nginx", "service restart (sudo)", duration=1.2),
            UsageTick(input=1800, output=60, cost_usd=0.006, context_used=9100),
            Command("docker system prune -af --volumes", "docker prune", duration=1.5),
            SetYolo(False),
            Status("YOLO off"),
            Pause(1.0),
            FIX_PERMISSIONS,
        ]
    )


def homeserver_follow_up(ran: frozenset[str]) -> Turn:
    """Report, depending on whether the last command was allowed."""
    if FIX_PERMISSIONS.command in ran:
        text = "Nginx restarted, Docker pruned, web root permissions fixed."
    else:
        text = "Nginx restarted and Docker pruned; I left the web root permissions as they were."
    return Turn([UsageTick(input=1500, output=70, cost_usd=0.005, context_used=10300), Say(text)])


def default_acts() -> tuple[Act, ...]:
    """The two sessions the tray's demo shows."""
    return (
        Act("Clean up the webshop build", "~/code/webshop", webshop_opening(), webshop_follow_up),
        Act("Tidy the home server", "~/ops/homeserver", homeserver_opening(), homeserver_follow_up),
    )


# -- playing ---------------------------------------------------------------------------------


async def play(
    fake: DemoGateway,
    acts: Sequence[Act] | None = None,
    *,
    rest: float = REST_BETWEEN_ROUNDS,
    loops: int | None = None,
) -> list[Session]:
    """Create one session per act and loop it (``loops=None``: until cancelled).

    Each session starts only once a client views it (``session.resume``), so the show begins
    when the tray attaches instead of playing to nobody.
    """
    acts = default_acts() if acts is None else tuple(acts)
    sessions = [fake.create_session(title=act.title, cwd=act.cwd) for act in acts]
    await asyncio.gather(
        *(_loop(fake, s, act, rest, loops) for s, act in zip(sessions, acts, strict=True))
    )
    return sessions


async def _loop(
    fake: DemoGateway, session: Session, act: Act, rest: float, loops: int | None
) -> None:
    await fake.wait_for(lambda: bool(session.viewers), None, "a viewer")
    done = 0
    while loops is None or done < loops:
        before = list(fake.executed)  # kept alive, so identities below cannot be reused
        fake.submit(session.sid, act.title, act.opening)
        await fake.wait_for_idle(session.sid, timeout=None)
        ran = frozenset(
            e.command
            for e in fake.executed
            if e.session_id == session.sid and not any(e is old for old in before)
        )
        fake.submit(session.sid, act.title, act.follow_up(ran))
        await fake.wait_for_idle(session.sid, timeout=None)
        done += 1
        if loops is None or done < loops:
            await fake.clock.sleep(rest)
