"""What the built-in demo acts out: two sessions looping at human pace.

Each round's follow-up turn is written from what actually ran, so a decision in the tray
visibly changes the course. Nothing is ever run on this machine.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

from desktop.demo.gateway import Command, DemoGateway, Session

REST_BETWEEN_ROUNDS = 6.0  # script seconds a session idles before it plays again

CLEAN_BUILD = Command(
    "rm -rf build/ dist/ .pytest_cache",
    "recursive delete",
    "recursive delete (rm -rf)",
    duration=0.8,
)
CLEAN_UNTRACKED = Command(
    "git clean -fdx -e .env", "git clean", "remove untracked and ignored files", duration=0.6
)
DROP_LEGACY = Command(
    "psql -d shop_dev -c 'DROP SCHEMA legacy CASCADE'",
    "sql drop",
    "drop database objects (DROP … CASCADE)",
    duration=1.0,
)
WEBSHOP_BATCH = (CLEAN_BUILD, CLEAN_UNTRACKED, DROP_LEGACY)
WEBSHOP_PLAN = (
    "Remove stale build artefacts",
    "Clean untracked files",
    "Drop the legacy schema",
    "Re-run the test suite",
)
FIX_PERMISSIONS = Command(
    "chmod -R 755 /srv/www", "recursive chmod", "recursive permission change", duration=0.5
)
Round = Callable[[DemoGateway, Session], Awaitable[None]]


def _plan(*statuses: str) -> list[dict[str, str]]:
    return [
        {"id": str(i + 1), "content": text, "status": status}
        for i, (text, status) in enumerate(zip(WEBSHOP_PLAN, statuses, strict=True))
    ]


async def webshop(gw: DemoGateway, s: Session) -> None:
    """Plan, ask for the three commands at once; then cross out what was blocked."""
    async with gw.turn(s):
        await gw.say(
            s, "I'll clear the old build output and the legacy schema, then re-run the tests."
        )
        await gw.plan(s, _plan("pending", "pending", "pending", "pending"))
        await gw.tick(s, 3200, 140, cost_usd=0.012, context_used=18400)
        await gw.pause(1.5)
        await gw.plan(s, _plan("in_progress", "pending", "pending", "pending"))
        ran = await gw.run(s, WEBSHOP_BATCH)
    if s.stopped:
        return
    done = ["completed" if c.command in ran else "cancelled" for c in WEBSHOP_BATCH]
    skipped = [
        step.lower()
        for c, step in zip(WEBSHOP_BATCH, WEBSHOP_PLAN, strict=False)
        if c.command not in ran
    ]
    what = "; ".join(skipped)
    async with gw.turn(s):
        await gw.plan(s, _plan(*done, "in_progress"))
        await gw.tick(s, 4100, 220, cost_usd=0.018, context_used=22500)
        if skipped:
            await gw.say(s, f"That was blocked, so I'll leave it: {what}.")
        await gw.run(s, [Command("pytest -q", output="212 passed in 14.2s", duration=2.0)])
        await gw.plan(s, _plan(*done, "completed"))
        await gw.tick(s, 2600, 90, cost_usd=0.009, context_used=24100)
        if skipped:
            await gw.say(
                s, f"Skipped what you denied ({what}); the rest is done and the suite passes."
            )
        else:
            await gw.say(s, "Build output and the legacy schema are gone; the suite passes.")


async def homeserver(gw: DemoGateway, s: Session) -> None:
    """YOLO on for routine work (no questions), YOLO off, then one command that asks."""
    async with gw.turn(s):
        await gw.say(s, "Switching to YOLO for the routine maintenance.")
        await gw.set_yolo(s, True)
        await gw.status(s, "YOLO on: commands run without asking")
        await gw.run(
            s, [Command("sudo systemctl restart nginx", "service restart (sudo)", duration=1.2)]
        )
        await gw.tick(s, 1800, 60, cost_usd=0.006, context_used=9100)
        await gw.run(
            s, [Command("docker system prune -af --volumes", "docker prune", duration=1.5)]
        )
        await gw.set_yolo(s, False)
        await gw.status(s, "YOLO off")
        await gw.pause(1.0)
        ran = await gw.run(s, [FIX_PERMISSIONS])
    if s.stopped:
        return
    async with gw.turn(s):
        await gw.tick(s, 1500, 70, cost_usd=0.005, context_used=10300)
        if FIX_PERMISSIONS.command in ran:
            await gw.say(s, "Nginx restarted, Docker pruned, web root permissions fixed.")
        else:
            await gw.say(
                s,
                "Nginx restarted and Docker pruned; I left the web root permissions as they were.",
            )


ACTS: tuple[tuple[str, str, Round], ...] = (
    ("Clean up the webshop build", "~/code/webshop", webshop),
    ("Tidy the home server", "~/ops/homeserver", homeserver),
)


def _absolute(folder: str) -> str:
    """Hermes sends absolute folders; the cards shorten the home folder to "~" again."""
    return os.path.expanduser(folder)


async def play(gw: DemoGateway) -> None:
    """Each session waits until a client resumes it, so the show never plays to nobody."""

    async def loop(session: Session, act: Round) -> None:
        await session.viewed.wait()
        while True:
            session.stopped = False  # stopped for that round; the next is a new request
            await act(gw, session)
            await gw.pause(REST_BETWEEN_ROUNDS)

    sessions = [(gw.create_session(title, _absolute(cwd)), act) for title, cwd, act in ACTS]
    await asyncio.gather(*(loop(*pair) for pair in sessions))
