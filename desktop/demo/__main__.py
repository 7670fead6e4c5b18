"""Run the demo gateway on its own: ``python -m desktop.demo [--dialect B] [--speed 1]``.

Prints the URL to dial, then plays the same story as the app's ``--demo``
(:mod:`desktop.demo.story`) until Ctrl+C; each session starts when a client
attaches to it. Handy for trying the tray against the fake by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from desktop.demo import DemoGateway
from desktop.demo.story import play


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m desktop.demo", description=__doc__)
    parser.add_argument("--dialect", choices=("A", "B", "C"), default="B")
    parser.add_argument("--speed", type=float, default=1.0, help="real s per script s")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--token", default=None, help="the ?token= for A/B (minted if unset)")
    parser.add_argument("--loops", type=int, default=None, help="rounds per session")
    return parser.parse_args(argv)


async def _serve(args: argparse.Namespace) -> None:
    async with DemoGateway(
        args.dialect, speed=args.speed, port=args.port, token=args.token
    ) as fake:
        sys.stdout.write(f"fake Hermes gateway (dialect {args.dialect}) at {fake.url}\n")
        sys.stdout.flush()
        await play(fake, loops=args.loops)
        await asyncio.Event().wait()  # keep serving after the last loop, until Ctrl+C


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(_parse(argv)))


if __name__ == "__main__":
    main()
