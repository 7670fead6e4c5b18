"""Child side of the parent's commands: JSON lines on stdin, delivered on the asyncio loop.

Why a reader thread: a blocking ``readline`` in a daemon thread works the same on a plain
asyncio loop and on qasync, and wakes the loop only when the parent actually writes (so it
adds no idle wake-ups). End of input means "quit".
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

Handler = Callable[[dict[str, Any]], None]


def listen(loop: asyncio.AbstractEventLoop, handler: Handler) -> threading.Thread:
    """Call ``handler(command)`` on ``loop`` for each stdin line; ``{"cmd": "quit"}`` at EOF."""

    def read() -> None:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                command = json.loads(line)
            except ValueError:
                command = {"cmd": "invalid", "line": line[:200]}
            loop.call_soon_threadsafe(handler, command)
        loop.call_soon_threadsafe(handler, {"cmd": "quit"})

    thread = threading.Thread(target=read, name="bench-stdin", daemon=True)
    thread.start()
    return thread
