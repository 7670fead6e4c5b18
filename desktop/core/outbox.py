"""Frames waiting for the socket, and the requests still waiting for an answer.

A decision frame is never sent twice, so the outbox remembers which frames carry decisions,
whether the I/O adapter has taken them (``drain``), and what each open request id is for.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop.core.jsonrpc import encode_request


@dataclass(frozen=True, slots=True)
class OutboundFrame:
    """One text for the socket. ``frame_id`` lets the adapter report its fate back."""

    frame_id: int
    text: str
    is_decision: bool = False  # a decision frame is never resent, whatever happens
    rpc_id: int | None = None  # set when the frame is a request expecting a response


class Purpose(enum.Enum):
    APP = "app"  # GatewayCore.call: answered with RpcResponded
    CAPABILITIES = "capabilities"  # the handshake's client.capabilities
    DECISION = "decision"  # approval.respond carrying a person's decision
    RESUME = "resume"  # the core's own resubscription after a reconnect or a replay gap
    PENDING = "pending"  # approval.pending, to reconcile open rows
    PROMPT = "prompt"  # clarify.respond carrying a person's answer to a question


@dataclass(frozen=True, slots=True)
class PendingCall:
    rpc_id: int
    method: str
    params: Mapping[str, Any]
    purpose: Purpose
    epoch: int
    approval_key: str = ""
    watermark: int = 0  # rows that arrived up to here are covered by the answer
    session_id: str = ""  # the runtime id of the session a resume/reconcile is about


@dataclass(slots=True)
class FrameRecord:
    frame: OutboundFrame
    epoch: int
    approval_key: str = ""
    drained: bool = False


@dataclass(slots=True)
class Outbox:
    """Ids never repeat within one core."""

    _frame_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _queue: list[OutboundFrame] = field(default_factory=list)
    _frames: dict[int, FrameRecord] = field(default_factory=dict)
    _calls: dict[int, PendingCall] = field(default_factory=dict)
    issued: int = 0  # the newest request id handed out (0 before the first): marks reply order

    def request(
        self,
        method: str,
        params: Mapping[str, Any],
        purpose: Purpose,
        epoch: int,
        *,
        watermark: int = 0,
        session_id: str = "",
        approval_key: str = "",
        rpc_id: int | None = None,  # one handed out earlier (next_rpc_id), else a new one
    ) -> OutboundFrame:
        rpc_id = rpc_id or self.next_rpc_id()
        text = encode_request(rpc_id, method, params)
        self._calls[rpc_id] = PendingCall(
            rpc_id, method, dict(params), purpose, epoch, approval_key, watermark, session_id
        )
        return self._queue_frame(text, epoch, approval_key, rpc_id)

    def next_rpc_id(self) -> int:
        self.issued += 1
        return self.issued

    def reply(self, text: str, epoch: int, *, approval_key: str = "") -> OutboundFrame:
        """Queue a response to a server request (a decision when ``approval_key`` is set)."""
        return self._queue_frame(text, epoch, approval_key, None)

    def drain(self) -> list[OutboundFrame]:
        frames, self._queue = self._queue, []
        for frame in frames:
            self._frames[frame.frame_id].drained = True
        return frames

    def settle(self, frame_id: int) -> FrameRecord | None:
        return self._frames.pop(frame_id, None)

    def withdraw(self, frame_id: int) -> bool:
        """Take a not-yet-drained frame back (True), or report it already left (False)."""
        record = self._frames.get(frame_id)
        if record is None or record.drained:
            return False
        self._queue = [f for f in self._queue if f.frame_id != frame_id]
        del self._frames[frame_id]
        if record.frame.rpc_id is not None:
            self._calls.pop(record.frame.rpc_id, None)
        return True

    def awaits(self, purpose: Purpose, session_id: str) -> bool:
        return any(
            c.purpose is purpose and c.session_id == session_id for c in self._calls.values()
        )

    def resuming(self) -> set[str]:
        """The sessions whose ``session.resume`` waits for its answer."""
        return {c.session_id for c in self._calls.values() if c.method == "session.resume"}

    def take_call(self, rpc_id: object) -> PendingCall | None:
        """The open request ``rpc_id`` names, forgotten (None: no request of ours)."""
        return self._calls.pop(rpc_id, None) if isinstance(rpc_id, int) else None

    def reset(self) -> tuple[list[FrameRecord], list[PendingCall]]:
        frames, calls = list(self._frames.values()), list(self._calls.values())
        self._queue, self._frames, self._calls = [], {}, {}
        return frames, calls

    def _queue_frame(
        self, text: str, epoch: int, approval_key: str, rpc_id: int | None
    ) -> OutboundFrame:
        frame = OutboundFrame(next(self._frame_ids), text, bool(approval_key), rpc_id)
        self._queue.append(frame)
        self._frames[frame.frame_id] = FrameRecord(frame, epoch, approval_key)
        return frame
