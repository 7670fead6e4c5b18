"""Synthetic dialect-B frames: a core with N approvals waiting, and message.delta frames.

Why synthetic here (the rest of the bench uses real transcripts or the fake gateway): the
scaling figures need an *exact* number of waiting approvals in a core with no I/O around it,
built in milliseconds. The frame shapes follow the recorded 0.22.2 transcripts.
"""

from __future__ import annotations

import json
import time
from typing import Any

PATTERN = "delete in root path"


def _dump(frame: dict[str, Any]) -> str:
    return json.dumps(frame)


def delta(session_id: str, seq: int) -> str:
    """One ``message.delta`` event as the B gateway sends it."""
    params = {
        "type": "message.delta",
        "session_id": session_id,
        "payload": {"text": "token "},
        "seq": seq,
    }
    return _dump({"jsonrpc": "2.0", "method": "event", "params": params})


def event(kind: str, session_id: str, payload: dict[str, Any]) -> str:
    """Any event frame of ``kind`` for ``session_id``."""
    params = {"type": kind, "session_id": session_id, "payload": payload}
    return _dump({"jsonrpc": "2.0", "method": "event", "params": params})


def tool_call(session_id: str, n: int) -> list[str]:
    """A terminal call's ``tool.start`` and ``tool.complete``, as B sends them."""
    call = {"tool_id": f"call-{n}", "name": "terminal"}
    return [
        event("tool.start", session_id, {**call, "command": f"ls /tmp/bench-{n}"}),
        event("tool.complete", session_id, {**call, "result": '{"exit_code": 0}'}),
    ]


def asked_and_withdrawn(session_id: str, n: int) -> list[str]:
    """A B ``approval`` request and the ``request.cancel`` that withdraws it."""
    cancel = {"id": f"srq-{n}", "method": "approval", "reason": "bench"}
    return [approval(n, session_id), event("request.cancel", session_id, cancel)]


def approval(n: int, session_id: str) -> str:
    """One B server→client ``approval`` request (id ``srq-<n>``)."""
    params = {
        "session_id": session_id,
        "command": f"rm -rf /tmp/hermes-scratch/bench/x{n}",
        "pattern_key": PATTERN,
        "pattern_keys": [PATTERN],
        "description": PATTERN,
        "allow_permanent": True,
        "allow_session": True,
        "choices": ["once", "session", "always", "deny"],
        "request_id": f"r{n}",
    }
    return _dump({"jsonrpc": "2.0", "id": f"srq-{n}", "method": "approval", "params": params})


def connected_core() -> Any:
    """A GatewayCore past a dialect-B handshake (capabilities answered)."""
    from desktop.core.gateway_core import GatewayCore

    core = GatewayCore(clock=time.monotonic)
    core.connection_opened(1)
    ready = {"type": "gateway.ready", "payload": {"change_events": True}}
    core.receive_text(_dump({"jsonrpc": "2.0", "method": "event", "params": ready}))
    for frame in core.data_to_send():
        request = json.loads(frame.text)
        result = {"server_requests": ["approval"]}
        core.receive_text(_dump({"jsonrpc": "2.0", "id": request["id"], "result": result}))
    core.events_received()
    return core


def core_with_waiting(count: int, per_session: int = 10) -> Any:
    """A connected core with ``count`` approvals waiting, ``per_session`` per session."""
    core = connected_core()
    for n in range(count):
        core.receive_text(approval(n, f"s{n // per_session}"))
    core.events_received()
    core.data_to_send()
    waiting = sum(1 for a in core.approvals() if a.phase.name == "WAITING")
    if waiting != count:
        raise RuntimeError(f"set-up gave {waiting} waiting approvals, wanted {count}")
    return core


def core_observing(count: int) -> Any:
    """A core past a 0.20 handshake observing ``count`` sessions that other clients run.

    All of them work, so each is on a polling plan; their first pending lists came back empty.
    """
    from desktop.core.gateway_core import GatewayCore

    core = GatewayCore(clock=time.monotonic)
    core.connection_opened(1)
    ready = {"type": "gateway.ready", "payload": {"change_events": True}}
    core.receive_text(_dump({"jsonrpc": "2.0", "method": "event", "params": ready}))
    for frame in core.data_to_send():  # 0.20 refuses client.capabilities, as 0.19.0 does
        error = {"code": -32601, "message": "unknown method: client.capabilities"}
        rpc_id = json.loads(frame.text)["id"]
        core.receive_text(_dump({"jsonrpc": "2.0", "id": rpc_id, "error": error}))
    core.watch_session("s0")
    sessions = [{"id": f"t{n:07d}", "status": "working", "title": "other"} for n in range(count)]
    core.observe_sessions({"sessions": sessions})
    for frame in core.data_to_send():
        rpc_id = json.loads(frame.text)["id"]
        core.receive_text(_dump({"jsonrpc": "2.0", "id": rpc_id, "result": {"approvals": []}}))
    core.events_received()
    if len(core.observed_sessions) != count:
        raise RuntimeError(
            f"set-up observes {len(core.observed_sessions)} sessions, wanted {count}"
        )
    return core
