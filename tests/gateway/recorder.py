"""A GatewayListener that records everything and lets a test await a condition."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from desktop.core.events import CoreEvent
from desktop.gateway.client import ConnectionState, ConnectionStatus


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, CoreEvent]] = []
        self.statuses: list[ConnectionStatus] = []
        self.entered: list[bool] = []  # per status: True when the state itself changed
        self._changed = asyncio.Event()

    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        self.events.append((gateway_id, event))
        self._changed.set()

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        assert old != new
        self.statuses.append(new)
        self.entered.append(new.state is not old.state)
        self._changed.set()

    @property
    def states(self) -> list[ConnectionState]:
        return [s.state for s in self.statuses]

    def count(self, state: ConnectionState) -> int:
        """How often the client entered ``state`` (a version update while CONNECTED is not)."""
        return len(self._entries(state))

    def _entries(self, state: ConnectionState) -> list[ConnectionStatus]:
        return [
            s for s, e in zip(self.statuses, self.entered, strict=True) if e and s.state is state
        ]

    def of_type(self, kind: type) -> list[CoreEvent]:
        return [e for _g, e in self.events if isinstance(e, kind)]

    async def wait_for(self, predicate: Callable[[], object], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    async def wait_state(
        self, state: ConnectionState, count: int = 1, timeout: float = 5.0
    ) -> ConnectionStatus:
        await self.wait_for(lambda: self.count(state) >= count, timeout)
        return self._entries(state)[count - 1]
