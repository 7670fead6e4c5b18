"""The app's built-in demo: a fake gateway with two sessions acting out a looping scenario.

What a person sees in the tray (dialect B by default, at human pace):

* **"Clean up the webshop build"**: the agent plans four todos, then asks to run a batch of three
  destructive commands at once (``rm -rf``, ``git clean -fdx``, a ``DROP SCHEMA``); they run in
  order as they are approved; the plan moves on; usage ticks after every model call.
* **"Tidy the home server"**: the agent switches YOLO on, restarts a service and prunes Docker
  without asking, switches YOLO off again, then asks for one last command.

Every command is simulated (recorded, never run). Each session's loop starts once a client views
it (``session.resume``/``activate``), so the show begins when the tray attaches, and an unanswered
request times out (``approval_timeout``) so an unattended demo keeps looping.

Use from the app::

    async with DemoGateway(speed=1.0) as demo:
        connect_to(demo.url)  # ws://127.0.0.1:<port>/api/ws?token=...
        await until_quit()
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from desktop.gateway.fake.model import Session
from desktop.gateway.fake.script import (
    Batch,
    Command,
    Pause,
    Say,
    SetYolo,
    Status,
    Title,
    Todo,
    Turn,
    UsageTick,
)
from desktop.gateway.fake.server import FakeGateway


def _plan(*statuses: str) -> Todo:
    items = ("Remove stale build artefacts", "Clean untracked files", "Drop the legacy schema",
             "Re-run the test suite")  # fmt: skip
    return Todo(
        tuple(
            {"id": str(i + 1), "content": text, "status": status}
            for i, (text, status) in enumerate(zip(items, statuses, strict=True))
        )
    )


def webshop_turn() -> Turn:
    """Session 1: a batch of three approvals, a moving plan, usage ticks."""
    return Turn(
        [
            Title("Clean up the webshop build"),
            Say("I'll clear the old build output and the legacy schema before re-running tests."),
            _plan("pending", "pending", "pending", "pending"),
            UsageTick(input=3200, output=140, cost_usd=0.012),
            Pause(1.5),
            _plan("in_progress", "pending", "pending", "pending"),
            Batch(
                (
                    Command(
                        "rm -rf build/ dist/ .pytest_cache",
                        "recursive delete",
                        description="recursive delete (rm -rf)",
                        duration=0.8,
                    ),
                    Command(
                        "git clean -fdx -e .env",
                        "git clean",
                        description="remove untracked and ignored files",
                        duration=0.6,
                    ),
                    Command(
                        "psql -d shop_dev -c 'DROP SCHEMA legacy CASCADE'",
                        "sql drop",
                        description="drop database objects (DROP … CASCADE)",
                        duration=1.0,
                    ),
                )
            ),
            _plan("completed", "completed", "completed", "in_progress"),
            UsageTick(input=4100, output=220, cost_usd=0.018),
            Command("pytest -q", output="212 passed in 14.2s", duration=2.0),
            _plan("completed", "completed", "completed", "completed"),
            UsageTick(input=2600, output=90, cost_usd=0.009),
            Say("Build output and the legacy schema are gone; the suite passes."),
        ]
    )


def homeserver_turn() -> Turn:
    """Session 2: YOLO on (no questions), YOLO off again, then one approval."""
    return Turn(
        [
            Title("Tidy the home server"),
            Say("Switching to YOLO for the routine maintenance."),
            SetYolo(True),
            Status("YOLO on: commands run without asking"),
            Command("sudo systemctl restart nginx", "service restart (sudo)", duration=1.2),
            UsageTick(input=1800, output=60, cost_usd=0.006),
            Command("docker system prune -af --volumes", "docker prune", duration=1.5),
            SetYolo(False),
            Status("YOLO off"),
            Pause(1.0),
            Command(
                "chmod -R 755 /srv/www",
                "recursive chmod",
                description="recursive permission change",
                duration=0.5,
            ),
            UsageTick(input=1500, output=70, cost_usd=0.005),
            Say("Nginx restarted, Docker pruned, web root permissions fixed."),
        ]
    )


@dataclass
class DemoScript:
    """Which sessions the demo runs, and how long it rests between rounds (script seconds)."""

    turns: tuple[tuple[str, str, Turn], ...] = field(
        default_factory=lambda: (
            ("Clean up the webshop build", "~/code/webshop", webshop_turn()),
            ("Tidy the home server", "~/ops/homeserver", homeserver_turn()),
        )
    )
    rest: float = 6.0


async def run_demo(
    fake: FakeGateway,
    script: DemoScript | None = None,
    *,
    loops: int | None = None,
    wait_for_viewer: bool = True,
) -> list[Session]:
    """Create the demo sessions and loop their turns (``loops=None``: until cancelled)."""
    script = script or DemoScript()
    sessions = [fake.create_session(title=title, cwd=cwd) for title, cwd, _ in script.turns]
    runs = [
        _loop(fake, session, turn, script.rest, loops, wait_for_viewer)
        for session, (_, _, turn) in zip(sessions, script.turns, strict=True)
    ]
    await asyncio.gather(*runs)
    return sessions


async def _loop(
    fake: FakeGateway,
    session: Session,
    turn: Turn,
    rest: float,
    loops: int | None,
    wait_for_viewer: bool,
) -> None:
    if wait_for_viewer:
        await fake.wait_for(lambda: bool(session.viewers), None, "a viewer")
    done = 0
    while loops is None or done < loops:
        fake.submit(session.sid, session.title, turn)
        await fake.wait_for_idle(session.sid, timeout=None)
        done += 1
        if loops is None or done < loops:
            await fake.clock.sleep(rest)


class DemoGateway:
    """A started fake gateway plus the running demo: ``async with DemoGateway() as demo``.

    Args:
        dialect: the wire dialect the demo speaks (B shows batches best).
        speed: real seconds per script second (1.0 is human pace).
        loops: how many rounds each session plays (None: until closed).
        approval_timeout: script seconds before an unanswered approval times out.
        **options: passed to :class:`FakeGateway` (``token``, ``port``, ``clock``, …);
            ``history`` defaults to 200 here.
    """

    def __init__(
        self,
        dialect: str = "B",
        *,
        speed: float = 1.0,
        loops: int | None = None,
        approval_timeout: float | None = 90.0,
        script: DemoScript | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("history", 200)  # a day-long demo must not grow without bound
        self.fake = FakeGateway(dialect, speed=speed, approval_timeout=approval_timeout, **options)
        self.loops = loops
        self.script = script
        self.task: asyncio.Task[list[Session]] | None = None

    @property
    def url(self) -> str:
        """Where the app connects (with ``?token=`` on A/B)."""
        return self.fake.url

    async def __aenter__(self) -> DemoGateway:
        await self.fake.start()
        self.task = asyncio.get_running_loop().create_task(
            run_demo(self.fake, self.script, loops=self.loops)
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await self.fake.stop()
