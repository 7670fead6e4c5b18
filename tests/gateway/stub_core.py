"""A minimal stand-in for ``GatewayCore`` so the transport can be tested on its own.

Why: the client's transport duties (frame fate, RPC futures, reconnect, backoff, close codes)
do not depend on approval semantics. This stub speaks just enough JSON-RPC: it answers
``gateway.ready`` with ``client.capabilities``, reports ``HandshakeCompleted`` once that is
answered (any answer), turns responses to app calls into ``RpcResponded``, answers unknown
server requests with -32601, and records every fate report. It is swapped in with
``monkeypatch.setattr(client_module, "GatewayCore", StubCore)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from desktop.core.events import CoreEvent, HandshakeCompleted, RpcError, RpcResponded
from desktop.core.gateway_core import CoreSettings, OutboundFrame
from desktop.core.model import Choice, DecisionResult, Dialect, SessionState


class StubCore:
    def __init__(self, *, clock: Callable[[], float], settings: CoreSettings | None = None) -> None:
        self.clock = clock
        self._out: list[OutboundFrame] = []
        self._events: list[CoreEvent] = []
        self._next_frame = 0
        self._next_rpc = 0
        self._handshake_rpc: int | None = None
        self._epoch = 0
        self._dialect: Dialect | None = None
        self._subprotocol: str | None = None
        self.written: list[int] = []
        self.failed: list[tuple[int, bool]] = []
        self.lost = 0
        self.ticks = 0
        self.deadline: float | None = None
        self.received: list[Any] = []
        self.watched: list[tuple[str, str]] = []

    def _queue(
        self, payload: Mapping[str, Any], *, rpc_id: int | None = None, decision: bool = False
    ) -> OutboundFrame:
        self._next_frame += 1
        frame = OutboundFrame(self._next_frame, json.dumps(payload), decision, rpc_id)
        self._out.append(frame)
        return frame

    def connection_opened(self, epoch: int, *, subprotocol: str | None = None) -> None:
        self._epoch = epoch
        self._subprotocol = subprotocol
        self._dialect = None

    def connection_lost(self, *, too_big: bool = False) -> None:
        self.lost += 1

    def receive_text(self, data: str | bytes) -> None:
        frame = json.loads(data)
        self.received.append(frame)
        if frame.get("method") == "event":
            params = frame["params"]
            if params.get("type") == "gateway.ready":
                payload = params.get("payload") or {}
                if self._subprotocol == "hermes-gateway-v1":
                    self._dialect = Dialect.C
                elif "replay_epoch" in payload:
                    self._dialect = Dialect.B
                else:
                    self._dialect = Dialect.A
                self._handshake_rpc = self.call("client.capabilities", {"server_requests": True})
            return
        if "method" in frame and "id" in frame:
            self._queue(
                {
                    "jsonrpc": "2.0",
                    "id": frame["id"],
                    "error": {"code": -32601, "message": "unknown method"},
                }
            )
            return
        rpc_id = frame.get("id")
        if rpc_id == self._handshake_rpc and self._dialect is not None:
            self._handshake_rpc = None
            self._events.append(HandshakeCompleted(self._dialect, self._epoch))
            return
        error = frame.get("error")
        self._events.append(
            RpcResponded(
                rpc_id,
                frame.get("result"),
                RpcError(
                    error["code"], error["message"], (error.get("data") or {}).get("reason", "")
                )
                if error
                else None,
            )
        )

    def tick(self) -> None:
        self.ticks += 1
        self.deadline = None

    def next_deadline(self) -> float | None:
        return self.deadline

    def data_to_send(self) -> list[OutboundFrame]:
        out, self._out = self._out, []
        return out

    def events_received(self) -> list[CoreEvent]:
        out, self._events = self._events, []
        return out

    def frame_written(self, frame_id: int) -> None:
        self.written.append(frame_id)

    def frame_failed(self, frame_id: int, *, maybe_sent: bool) -> None:
        self.failed.append((frame_id, maybe_sent))

    def call(self, method: str, params: Mapping[str, Any]) -> int:
        self._next_rpc += 1
        self._queue(
            {"jsonrpc": "2.0", "id": self._next_rpc, "method": method, "params": dict(params)},
            rpc_id=self._next_rpc,
        )
        return self._next_rpc

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        self._queue(
            {"jsonrpc": "2.0", "id": key, "result": {"choice": choice.value}}, decision=True
        )
        return DecisionResult(True)

    def watch_session(self, session_id: str, *, stored_session_id: str = "") -> None:
        self.watched.append((session_id, stored_session_id))

    @property
    def dialect(self) -> Dialect | None:
        return self._dialect

    @property
    def epoch(self) -> int:
        return self._epoch

    def sessions(self) -> tuple[SessionState, ...]:
        return ()

    def approvals(self) -> tuple[Any, ...]:
        return ()
