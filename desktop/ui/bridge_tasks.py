"""The bridge's one task spawner: coroutines on the running qasync loop, kept until they end.

The loop holds tasks weakly (a command started from a click could be collected mid-flight), and
a failure must come back as a notice saying what failed, where and what to do. Qt-free.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from desktop.gateway.errors import GatewayError
from desktop.model.bridge_events import Notice

log = logging.getLogger(__name__)


class TaskRunner:
    """Starts, keeps and finally cancels the bridge's background coroutines."""

    def __init__(self, report: Callable[[Notice], None]) -> None:
        self._report = report
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.closing = False  # set once at quit: nothing more is reported

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The running loop once :meth:`start` ran; None before."""
        return self._loop

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def spawn(
        self,
        coro: Coroutine[Any, Any, object],
        what: str,
        where: str,
        advice: str,
        gateway_id: str = "",
        *,
        log_only: bool = False,
    ) -> asyncio.Task[None]:
        """Run ``coro``; if it raises, log it and (unless ``log_only``) report a ``Notice``."""
        if self._loop is None:
            coro.close()
            raise RuntimeError("GatewayBridge.start() has not run")
        task = self._loop.create_task(self._guard(coro, what, where, advice, gateway_id, log_only))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def cancel_all(self, more: list[asyncio.Task[None]]) -> None:
        """Cancel every kept task and ``more``, and wait until they have ended."""
        tasks = [*more, *self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    async def _guard(
        self,
        coro: Coroutine[Any, Any, object],
        what: str,
        where: str,
        advice: str,
        gateway_id: str,
        log_only: bool,
    ) -> None:
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = str(exc) if isinstance(exc, GatewayError) else "unexpected error; see the log"
            log.warning(
                "%s (%s): %s", what, where, reason, exc_info=not isinstance(exc, GatewayError)
            )
            if not log_only and not self.closing:
                self._report(
                    Notice("error", what, where, f"{reason}. {advice}".strip(), gateway_id)
                )
