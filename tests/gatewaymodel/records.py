"""What tests observe: per-connection frame logs and a change signal to wait on.

Every state change of the fake (a frame in or out, an execution, a request opened or closed, a
connection opened or lost, a turn ended) calls :meth:`ChangeSignal.notify`, which re-checks the
predicates of everyone waiting in :meth:`ChangeSignal.wait_for`. Tests therefore never sleep: they
wait for the exact condition, with a real-time timeout that fails with a readable message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class ConnectionRecord:
    """One accepted WebSocket connection, as seen by the fake.

    ``received`` holds each client message: the parsed JSON object, or the raw text when it was
    not JSON. ``sent`` holds what was actually written to the socket (dicts, or raw text for
    garbage faults). ``attempt`` counts handshakes (refused ones included) from 0.
    """

    index: int
    attempt: int
    path: str = ""
    query: str = ""
    subprotocol: str | None = None
    offered_subprotocols: tuple[str, ...] = ()
    received: list[Any] = field(default_factory=list)
    sent: list[Any] = field(default_factory=list)
    open: bool = True
    close_code: int | None = None
    server_requests: bool = False  # B: the client declared client.capabilities server_requests

    def requests(self, method: str | None = None) -> list[dict[str, Any]]:
        """Received requests (objects with a method and an id), optionally of one method."""
        return [
            f
            for f in self.received
            if isinstance(f, dict)
            and "method" in f
            and "id" in f
            and (method is None or f["method"] == method)
        ]

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        """Sent event params (``{type, session_id, payload, …}``), optionally of one type."""
        out: list[dict[str, Any]] = []
        for frame in self.sent:
            if isinstance(frame, dict) and frame.get("method") == "event":
                params = frame.get("params") or {}
                if event_type is None or params.get("type") == event_type:
                    out.append(params)
        return out

    def server_requests_sent(self, method: str | None = None) -> list[dict[str, Any]]:
        """Sent server→client request frames (``srq-`` ids), optionally of one method."""
        return [
            f
            for f in self.sent
            if isinstance(f, dict)
            and "id" in f
            and "method" in f
            and f["method"] != "event"
            and (method is None or f["method"] == method)
        ]

    def response_to(self, rpc_id: Any) -> dict[str, Any] | None:
        """The response frame sent for request ``rpc_id``, if any yet."""
        for frame in self.sent:
            if (
                isinstance(frame, dict)
                and "method" not in frame
                and frame.get("id") == rpc_id
                and ("result" in frame or "error" in frame)
            ):
                return frame
        return None


class ChangeSignal:
    """A condition that sync code can notify: waiters re-check their predicate on each change."""

    def __init__(self) -> None:
        self._waiters: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self.changes = 0

    def notify(self) -> None:
        """Something changed: wake every waiter whose predicate is now truthy."""
        self.changes += 1
        for predicate, future in list(self._waiters):
            if future.done():
                continue
            try:
                value = predicate()
            except Exception as exc:  # a broken predicate fails its own test, loudly
                future.set_exception(exc)
                continue
            if value:
                future.set_result(value)

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float | None = 5.0, what: str = ""
    ) -> T:
        """The first truthy value of ``predicate()``; TimeoutError after ``timeout`` seconds.

        ``timeout=None`` waits for ever (as when waiting for a human).
        """
        value = predicate()
        if value:
            return value
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        self._waiters.append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            label = what or getattr(predicate, "__name__", repr(predicate))
            raise TimeoutError(
                f"fake gateway: condition not met within {timeout}s: {label}"
            ) from None
        finally:
            self._waiters.remove(entry)
