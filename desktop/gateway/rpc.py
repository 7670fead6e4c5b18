"""Futures for the app's own JSON-RPC calls, settled by the core's ``RpcResponded`` events.

The pump reports each frame's fate and the core each answer; joined here by ``rpc_id``, so after
a drop a caller learns whether its request may have reached the gateway (``OutcomeUnknownError``)
or certainly did not (``NotSentError``). The core's own requests are not in here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.events import RpcResponded
from desktop.gateway.errors import NotSentError, OutcomeUnknownError, RpcCallError


@dataclass
class PendingCall:
    method: str
    future: asyncio.Future[Mapping[str, Any]]
    written: bool = False

    def fail(self, error: Exception) -> None:
        if not self.future.done():
            self.future.set_exception(error)


class PendingCalls:
    """rpc_id → PendingCall, for one GatewayClient (across reconnects)."""

    def __init__(self) -> None:
        self._calls: dict[int, PendingCall] = {}

    def add(self, rpc_id: int, method: str) -> PendingCall:
        call = PendingCall(method, asyncio.get_running_loop().create_future())
        self._calls[rpc_id] = call
        return call

    def pop(self, rpc_id: int) -> PendingCall | None:
        return self._calls.pop(rpc_id, None)

    def written(self, rpc_id: int) -> None:
        call = self._calls.get(rpc_id)
        if call is not None:
            call.written = True

    def failed(self, rpc_id: int, *, maybe_sent: bool, where: str) -> None:
        call = self._calls.pop(rpc_id, None)
        if call is None:
            return
        call.fail(
            OutcomeUnknownError(
                f"{call.method} may have reached {where} but the connection failed while "
                "sending it; its outcome is unknown. Check the session before doing it again."
            )
            if maybe_sent
            else NotSentError(
                f"{call.method} was not sent to {where}; nothing happened. You can retry."
            )
        )

    def responded(self, event: RpcResponded) -> None:
        call = self._calls.pop(event.rpc_id, None)
        if call is None or call.future.done():
            return
        if event.error is not None:
            call.fail(RpcCallError(event.error.code, event.error.message, event.error.reason))
        else:
            call.future.set_result(event.result if event.result is not None else {})

    def connection_lost(self, where: str) -> None:
        """Settle every open call: written → outcome unknown, unwritten → not sent."""
        calls, self._calls = self._calls, {}
        for call in calls.values():
            call.fail(
                OutcomeUnknownError(
                    f"The connection to {where} dropped after {call.method} was sent; its "
                    "outcome is unknown. Check the session before doing it again."
                )
                if call.written
                else NotSentError(
                    f"The connection to {where} dropped before {call.method} was sent; "
                    "nothing happened. You can retry."
                )
            )
