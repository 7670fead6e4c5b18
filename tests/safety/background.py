"""Run a fake gateway on its own event loop in a thread, for code that owns ``asyncio.run``.

Why: ``desktop.gateway.doctor.run()`` calls ``asyncio.run`` itself (it is the CLI entry point),
so it cannot run inside the test's loop; the fake it talks to must live on another loop. The
thread is joined and the loop closed when the context ends.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from tests.gatewaymodel import FakeGateway

T = TypeVar("T")


class LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="fake-gateway", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 10.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@contextmanager
def fake_in_thread(dialect: str, **kwargs: Any) -> Iterator[tuple[FakeGateway, LoopThread]]:
    runner = LoopThread()
    runner.start()

    async def start() -> FakeGateway:
        return await FakeGateway(dialect, **kwargs).start()

    fake = runner.call(start())
    try:
        yield fake, runner
    finally:
        runner.call(fake.stop())
        runner.stop()
