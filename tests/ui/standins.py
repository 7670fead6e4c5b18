"""A stand-in GatewayClient for bridge tests: scripted status, recorded commands, no socket."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktop.core.model import DecisionResult, Dialect
from desktop.gateway.client import ConnectionState, ConnectionStatus
from desktop.gateway.errors import NotSentError


@dataclass(frozen=True)
class Endpoint:
    gateway_id: str
    name: str


class StandInClient:
    """Implements what GatewayBridge uses; ``emit`` plays a core event to the listener."""

    def __init__(self, endpoint: Endpoint, listener: Any) -> None:
        self.gateway_id = endpoint.gateway_id
        self.name = endpoint.name
        self.listener = listener
        self.status = ConnectionStatus(ConnectionState.DISCONNECTED)
        self.calls: list[tuple[Any, ...]] = []
        self.refuse: str = ""  # decide() refuses with this reason when set
        self.fail_commands = False
        self.closed = False
        self._stop = asyncio.Event()

    async def run(self) -> None:
        self.set_state(ConnectionState.CONNECTING)
        self.set_state(ConnectionState.CONNECTED, version="0.19.0", dialect=Dialect.B)
        await self._stop.wait()

    async def close(self) -> None:
        self.closed = True
        self._stop.set()

    def set_state(self, state: ConnectionState, **changes: Any) -> None:
        old = self.status
        self.status = dataclasses.replace(old, state=state, **changes)
        self.listener.on_status_changed(self.gateway_id, old, self.status)

    def emit(self, event: Any) -> None:
        self.listener.on_core_event(self.gateway_id, event)

    def decide(self, key: str, choice: Any, *, confirm_stale: bool = False) -> DecisionResult:
        self.calls.append(("decide", key, choice, confirm_stale))
        return DecisionResult(False, self.refuse) if self.refuse else DecisionResult(True)

    def answer_prompt(self, key: str, answer: str) -> DecisionResult:
        self.calls.append(("answer_prompt", key, answer))
        return DecisionResult(False, self.refuse) if self.refuse else DecisionResult(True)

    def reconnect_now(self) -> None:
        self.calls.append(("reconnect_now",))

    async def _command(self, *call: Any) -> Any:
        self.calls.append(call)
        if self.fail_commands:
            raise NotSentError(f"Not connected to {self.name} (backoff); {call[0]} was not sent.")
        return "new-session" if call[0] == "create_session" else None

    async def set_yolo(self, session_id: str, on: bool) -> None:
        await self._command("set_yolo", session_id, on)

    async def read_yolo(self, session_id: str) -> None:
        await self._command("read_yolo", session_id)

    async def set_approval_mode(self, mode: str) -> None:
        await self._command("set_approval_mode", mode)

    async def interrupt(self, session_id: str) -> None:
        await self._command("interrupt", session_id)

    async def create_session(self, cwd: str, prompt: str) -> str:
        return await self._command("create_session", cwd, prompt)


def make_factory(store: dict[str, StandInClient]) -> Callable[[Any, Any], StandInClient]:
    def factory(endpoint: Any, listener: Any) -> StandInClient:
        client = StandInClient(endpoint, listener)
        store[client.gateway_id] = client
        return client

    return factory
