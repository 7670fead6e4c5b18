"""JSON-RPC 2.0 frames as the fake gateway reads and writes them.

This is the fake's own small parser, on purpose: the fake is an independent peer, so a bug in the
client's frame parser (``desktop.core``) can never hide behind a parser both sides share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

JsonDict = dict[str, Any]
RpcId = int | str | None


class RpcError(Exception):
    """An error the fake answers with: ``{"code", "message"[, "data"]}``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{code} {message}")
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> JsonDict:
        """The ``error`` member of a response frame."""
        error: JsonDict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def canonical_error(reason: str, code: int = 4001) -> RpcError:
    """The canonical gateway's error shape: ``{code, message: reason, data: {reason}}``."""
    return RpcError(code, reason, {"reason": reason})


def event(params: JsonDict) -> JsonDict:
    """An event notification: ``{"jsonrpc", "method": "event", "params"}``."""
    return {"jsonrpc": "2.0", "method": "event", "params": params}


def result(rpc_id: RpcId, value: Any) -> JsonDict:
    """A success response."""
    return {"jsonrpc": "2.0", "id": rpc_id, "result": value}


def error(rpc_id: RpcId, err: RpcError) -> JsonDict:
    """An error response."""
    return {"jsonrpc": "2.0", "id": rpc_id, "error": err.to_wire()}


def request(rpc_id: str, method: str, params: JsonDict) -> JsonDict:
    """A server→client request (dialect B's ``srq-…`` frames)."""
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}


def encode(frame: JsonDict) -> str:
    """One frame as the text of one WebSocket message (compact, UTF-8 kept)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


Kind = Literal["request", "notification", "response", "invalid", "blank"]


@dataclass
class Incoming:
    """One client message, classified.

    ``request``: method + id; ``notification``: method, no id (ignored by the gateway);
    ``response``: id + result/error (an answer to a server→client request); ``invalid``: anything
    else, with ``error`` holding the reply to send; ``blank``: whitespace only, silently ignored.
    """

    kind: Kind
    raw: Any
    rpc_id: RpcId = None
    method: str = ""
    params: JsonDict = field(default_factory=dict)
    result: Any = None
    error: Any = None
    reply: RpcError | None = None


def parse(text: str | bytes) -> Incoming:
    """Classify one WebSocket message the way tui_gateway's reader does."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not text.strip():
        return Incoming("blank", text)
    try:
        obj = json.loads(text)
    except ValueError:
        return Incoming("invalid", text, reply=RpcError(-32700, "parse error"))
    if not isinstance(obj, dict):
        return Incoming("invalid", obj, reply=RpcError(-32600, "invalid request"))
    rpc_id = obj.get("id")
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str):
            return Incoming("invalid", obj, rpc_id, reply=RpcError(-32600, "invalid request"))
        params = obj.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            reply = RpcError(-32602, "params must be an object")
            return Incoming("invalid", obj, rpc_id, method, reply=reply)
        kind: Kind = "request" if "id" in obj else "notification"
        return Incoming(kind, obj, rpc_id, method, params)
    if "id" in obj and ("result" in obj or "error" in obj):
        return Incoming("response", obj, rpc_id, result=obj.get("result"), error=obj.get("error"))
    return Incoming("invalid", obj, rpc_id, reply=RpcError(-32600, "invalid request"))
