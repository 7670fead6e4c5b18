"""JSON-RPC 2.0 framing for the Hermes gateway WebSocket: parse, classify, encode.

Untrusted bytes become Python values here, so size, nesting and encoding are bounded here and
every malformed input becomes a typed ``ProtocolErrorReceived``, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core import payloads
from desktop.core.events import ProtocolErrorReceived, RpcError
from desktop.core.text_safety import bound_text
from desktop.logsetup import redact

EXCERPT_CHARS = 120
MAX_ERRORS_PER_MESSAGE = 5
INVALID_PARAMS = -32602
NON_OBJECT_RESULT = -32098  # local code: the gateway answered with a result that is no object
_WHITESPACE = " \t\r\n"


@dataclass(slots=True)
class EventFrame:
    """``{"method": "event", "params": {"type", "session_id", "payload"}}``."""

    type: str
    session_id: str
    payload: Mapping[str, Any]
    params: Mapping[str, Any]


@dataclass(slots=True)
class ServerRequestFrame:
    """A server→client request. ``params`` is None when the frame's params was no object."""

    request_id: str | int
    method: str
    params: Mapping[str, Any] | None


@dataclass(slots=True)
class ResponseFrame:
    """An answer to one of our requests. ``rpc_id`` is None for errors about unreadable frames."""

    rpc_id: str | int | None
    result: Mapping[str, Any] | None
    error: RpcError | None


Incoming = EventFrame | ServerRequestFrame | ResponseFrame | ProtocolErrorReceived


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short printable excerpt of untrusted text for a log line, with secrets masked."""
    masked = redact(text[: limit * 4])
    one_line = masked.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return bound_text(one_line, limit)[0]


def parse_message(data: str | bytes, *, max_bytes: int, max_depth: int) -> list[Incoming]:
    """Split one WebSocket message into classified frames. Never raises."""
    text = _decode(data, max_bytes)
    if isinstance(text, ProtocolErrorReceived):
        return [text]
    out: list[Incoming] = []
    errors = 0
    position, end = 0, len(text)
    while True:
        while position < end and text[position] in _WHITESPACE:
            position += 1
        if position >= end:
            return out
        try:
            value, position = _raw_decode(text, position)
        except RecursionError:
            broken = ProtocolErrorReceived("nested too deeply", _near(text, position))
        except ValueError as exc:  # JSONDecodeError, bad constants, over-long integers
            broken = ProtocolErrorReceived(f"not JSON ({_first_line(exc)})", _near(text, position))
        else:
            if _depth(value) > max_depth:
                out.append(ProtocolErrorReceived(f"nested deeper than {max_depth} levels", ""))
            else:
                out.append(classify(value))
            continue
        errors += 1
        if errors > MAX_ERRORS_PER_MESSAGE:
            out.append(ProtocolErrorReceived("too many broken frames in one message", ""))
            return out
        out.append(broken)
        newline = text.find("\n", position)  # resynchronise at the next line
        if newline < 0:
            return out
        position = newline + 1


def classify(obj: object) -> Incoming:
    if not isinstance(obj, dict):
        return _junk("not a JSON object", obj)
    if obj.get("jsonrpc") != "2.0":
        return _junk("not JSON-RPC 2.0", obj)
    method = obj.get("method")
    if method is None:
        if "id" in obj:
            return _classify_response(obj)
        return _junk("neither an event, a request nor a response", obj)
    if method != "event" or obj.get("id") is not None:
        return _classify_call(obj, method)
    params = obj.get("params")
    if not isinstance(params, dict):
        return _junk("event params is not an object", obj)
    event_type = params.get("type")
    if not isinstance(event_type, str) or not event_type:
        return _junk("event has no type", obj)
    session_id = params.get("session_id")
    if session_id is None:
        session_id = ""
    elif not isinstance(session_id, str):
        return _junk("event session_id is not a string", obj)
    payload = params.get("payload")
    if payload is None:
        payload = {}
    elif not isinstance(payload, dict):
        return _junk("event payload is not an object", obj)
    return EventFrame(event_type, session_id, payload, params)


def encode_request(rpc_id: int, method: str, params: Mapping[str, Any]) -> str:
    """A client→server request; TypeError/ValueError for ``params`` JSON cannot carry (NaN too)."""
    return _dump({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": dict(params)})


def encode_result(request_id: str | int, result: Mapping[str, Any]) -> str:
    return _dump({"jsonrpc": "2.0", "id": request_id, "result": dict(result)})


def encode_error(request_id: str | int, code: int, message: str) -> str:
    return _dump({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


_dump = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def _decode(data: object, max_bytes: int) -> str | ProtocolErrorReceived:
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > max_bytes:
            return ProtocolErrorReceived(f"frame too large ({len(raw)} bytes)", "")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return ProtocolErrorReceived(
                f"not UTF-8 (byte {exc.start})", excerpt(raw[:200].decode("utf-8", "replace"))
            )
    elif isinstance(data, str):
        text = data
        if len(text) > max_bytes or (
            len(text) * 4 > max_bytes and len(text.encode("utf-8", "surrogatepass")) > max_bytes
        ):
            return ProtocolErrorReceived(f"frame too large ({len(text)} characters)", "")
    else:
        return ProtocolErrorReceived("not text", type(data).__name__)
    return text[1:] if text.startswith("\ufeff") else text


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_raw_decode = _DECODER.raw_decode


def _near(text: str, position: int) -> str:
    return excerpt(text[position : position + EXCERPT_CHARS * 4])


def _first_line(exc: Exception) -> str:
    return bound_text(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 80)[0]


def _depth(value: object) -> int:
    """The nesting of ``value``, a level at a time (the children are gathered in C)."""
    deepest, level = 0, [value] if isinstance(value, dict | list) else []
    while level:
        deepest += 1
        children: list[object] = []
        for item in level:
            children.extend(item.values() if isinstance(item, dict) else item)
        level = [child for child in children if isinstance(child, dict | list)]
    return deepest


def _classify_call(obj: dict[str, Any], method: object) -> Incoming:
    if not isinstance(method, str) or not method:
        return _junk("method is not a string", obj)
    raw_id = obj.get("id")
    if raw_id is None:
        return _junk(f"unexpected notification {method!r}", obj)
    request_id = payloads.wire_id(raw_id)
    if request_id is None:
        return _junk("request id is neither a string nor an integer", obj)
    params = obj.get("params", {})
    return ServerRequestFrame(request_id, method, params if isinstance(params, dict) else None)


def _classify_response(obj: dict[str, Any]) -> Incoming:
    raw_id = obj.get("id")
    rpc_id = payloads.wire_id(raw_id)
    if raw_id is not None and rpc_id is None:
        return _junk("response id is neither a string nor an integer", obj)
    if ("result" in obj) == ("error" in obj):
        return _junk("response needs exactly one of result and error", obj)
    if "error" in obj:
        error = obj["error"]
        code = payloads.integer(error, "code") if isinstance(error, dict) else None
        if not isinstance(error, dict) or code is None:
            return _junk("error is not an object with an integer code", obj)
        data = payloads.mapping(error, "data") or payloads.EMPTY
        message = payloads.text(error, "message")
        return ResponseFrame(rpc_id, None, RpcError(code, message, payloads.text(data, "reason")))
    result = obj["result"]
    if isinstance(result, dict):
        return ResponseFrame(rpc_id, result, None)
    return ResponseFrame(rpc_id, None, RpcError(NON_OBJECT_RESULT, "result is not an object"))


def _junk(reason: str, obj: object) -> ProtocolErrorReceived:
    try:
        shown = json.dumps(obj, ensure_ascii=False)
    except (TypeError, ValueError):  # pragma: no cover - decoded JSON always re-encodes
        shown = repr(obj)
    return ProtocolErrorReceived(reason, excerpt(shown))
