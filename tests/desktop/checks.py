"""What the by-hand desktop scenes share: one printed line per check, waits that never raise.

``try_sway.sh``, ``try_plasma.sh`` and ``try_gnome.sh`` run a scene as a script (not under
pytest): a person reads the lines, and the scene goes on after a failed check where it can, so
one run shows every gap at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tests.desktop import xdesk

results: list[tuple[bool, str]] = []


def check(ok: bool, what: str) -> bool:
    results.append((ok, what))
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    return ok


def note(*words: object) -> None:
    """A line that is not a check: a screenshot's path, a figure, a log line."""
    print("     ", *words, flush=True)


async def until(probe: Callable[[], Awaitable[Any]], timeout: float) -> Any:
    """The first truthy answer of ``probe`` within ``timeout`` seconds, else None."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            found = await probe()
        except Exception:  # not up yet: a name with no owner, no window
            found = None
        if found or loop.time() > deadline:
            return found or None
        await asyncio.sleep(0.2)


async def menu_labels(item: str) -> list[str]:
    """The top-level labels of ``item``'s menu as the tray host receives them."""
    async with xdesk.session_bus() as bus:
        menu = await xdesk.item_menu(bus, item)
        _revision, layout = await menu.call_get_layout(0, 1, ["label"])
    return [c.value[1]["label"].value for c in layout[2] if "label" in c.value[1]]


async def ended_log(process: asyncio.subprocess.Process) -> str:
    """The app's log (its stderr) once it ended (killed if it has not), checked for tracebacks."""
    if process.returncode is None:
        process.kill()
    _out, err = await process.communicate()
    log = err.decode(errors="replace")
    check("Traceback" not in log, "no traceback in the app's log")
    return log


def run(scene: Callable[[], Awaitable[None]]) -> int:
    """Run ``scene``, print the tally; the exit status is 1 when a check failed."""
    asyncio.run(scene())
    failed = [what for ok, what in results if not ok]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed", flush=True)
    return 1 if failed else 0
