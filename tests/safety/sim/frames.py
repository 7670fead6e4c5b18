"""Server→client frames of the reference gateways, built from protocol.md §1.4, §3 and §4.

Why hand-built strings: the campaign must feed the core exactly what a gateway puts on the wire
(including key order and optional keys), not objects the core's own encoder produced.
"""

from __future__ import annotations

import json
from typing import Any


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


def event(kind: str, session_id: str, payload: dict[str, Any] | None = None, **params: Any) -> str:
    """``{"method": "event", "params": {type, session_id, payload?, ...}}``."""
    body: dict[str, Any] = {"type": kind, "session_id": session_id}
    if payload is not None:
        body["payload"] = payload
    body.update(params)
    return _dump({"jsonrpc": "2.0", "method": "event", "params": body})


def server_request(request_id: str, method: str, params: dict[str, Any]) -> str:
    """A server→client request (dialect B's ``approval``)."""
    return _dump({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def result(rpc_id: Any, body: dict[str, Any]) -> str:
    return _dump({"jsonrpc": "2.0", "id": rpc_id, "result": body})


def error(rpc_id: Any, code: int, message: str, reason: str = "") -> str:
    err: dict[str, Any] = {"code": code, "message": message}
    if reason:
        err["data"] = {"reason": reason}
    return _dump({"jsonrpc": "2.0", "id": rpc_id, "error": err})


def gateway_ready(extra: dict[str, Any] | None = None) -> str:
    return event("gateway.ready", "", {"skin": {"name": "default"}, **(extra or {})})
