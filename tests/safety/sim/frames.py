"""Server→client frames of the reference gateways, as text, framed by the gateway model's wire.

Why text: the campaign must feed the core exactly what a gateway puts on the wire (including
key order and optional keys), not objects the core's own encoder produced. The framing is the
gateway model's (``tests.gatewaymodel.wire``), so both peers put the same bytes on the wire.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import wire


def event(kind: str, session_id: str, payload: dict[str, Any] | None = None, **params: Any) -> str:
    """``{"method": "event", "params": {type, session_id, payload?, ...}}``."""
    body: dict[str, Any] = {"type": kind, "session_id": session_id}
    if payload is not None:
        body["payload"] = payload
    body.update(params)
    return wire.encode(wire.event(body))


def server_request(request_id: str, method: str, params: dict[str, Any]) -> str:
    """A server→client request (dialect B's ``approval``)."""
    return wire.encode(wire.request(request_id, method, params))


def result(rpc_id: Any, body: dict[str, Any]) -> str:
    return wire.encode(wire.result(rpc_id, body))


def error(rpc_id: Any, code: int, message: str, reason: str = "") -> str:
    data = {"reason": reason} if reason else None
    return wire.encode(wire.error(rpc_id, wire.RpcError(code, message, data)))
