"""Learn the Hermes version from the gateway's public ``/api/status``, in the background.

The handshake does not carry it (0.19.0's ``gateway.ready`` has only the skin), but the same
server answers ``GET /api/status`` without auth. A failure leaves the version unknown.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from desktop.gateway.dashboard import http_get


class VersionProbe:
    def __init__(self, timeout: float, on_version: Callable[[str], None]) -> None:
        self.timeout = timeout
        self.version = ""
        self._on_version = on_version
        self._task: asyncio.Task[str] | None = None

    def start(self, target: tuple[str, int] | None) -> None:
        """Probe ``host:port`` unless a probe is running."""
        if target is None or self._task is not None:
            return
        self._task = asyncio.get_running_loop().create_task(self._probe(*target))
        self._task.add_done_callback(self._done)

    async def _probe(self, host: str, port: int) -> str:
        status, body = await http_get(host, port, "/api/status", timeout=self.timeout)
        info = json.loads(body) if status == 200 else {}
        return str(info.get("version", "")) if isinstance(info, dict) else ""

    def _done(self, task: asyncio.Task[str]) -> None:
        self._task = None
        if not task.cancelled() and task.exception() is None:
            self.version = task.result()
            self._on_version(self.version)

    async def settled(self) -> str:
        task = self._task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        return self.version

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
