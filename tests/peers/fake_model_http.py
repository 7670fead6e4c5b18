"""HTTP side of the fake model: request parsing, OpenAI-shaped JSON and SSE responses.

Kept apart from :mod:`tests.peers.fake_model` (scripts and recording) so each stays small. The
handler speaks HTTP/1.1 with keep-alive (the OpenAI client reuses connections) and chunked
transfer encoding for streams. Open connections are tracked so ``stop()`` can close idle
keep-alive sockets at once instead of leaving handler threads blocked in ``readline``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from tests.peers.fake_script import (
    AUX_TEXT,
    COMPLETION_TOKENS,
    MODEL_NAME,
    PROMPT_TOKENS,
    RecordedRequest,
    ToolCall,
    Turn,
    locate_turn,
    resolve_call,
)

if TYPE_CHECKING:
    from tests.peers.fake_model import FakeModel

CREATED = 1_700_000_000  # fixed "created" stamp: responses are deterministic
_open: dict[int, set[socket.socket]] = {}
_open_lock = threading.Lock()


def _usage() -> dict[str, int]:
    return {
        "prompt_tokens": PROMPT_TOKENS,
        "completion_tokens": COMPLETION_TOKENS,
        "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
    }


def _wire_calls(calls: list[ToolCall], number: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"call_{number}_{i}",
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
        }
        for i, c in enumerate(calls)
    ]


def completion_json(text: str, calls: list[ToolCall], number: int, model: str) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` body."""
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = _wire_calls(calls, number)
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": _usage(),
    }


def stream_chunks(
    text: str, calls: list[ToolCall], number: int, model: str
) -> list[dict[str, Any]]:
    """The SSE ``chat.completion.chunk`` objects for one answer (text words, then tool calls
    as a header delta plus the arguments split in two, then finish, then a usage chunk)."""
    base = {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    words = text.split(" ") if text else []
    out += [chunk({"content": w if i == 0 else " " + w}) for i, w in enumerate(words)]
    for index, call in enumerate(_wire_calls(calls, number)):
        args = call["function"]["arguments"]
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        out.append(chunk({"tool_calls": [head]}))
        half = len(args) // 2
        for part in (args[:half], args[half:]):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    out.append({**base, "choices": [], "usage": _usage()})
    return out


class FakeModelServer(ThreadingHTTPServer):
    """The HTTP server, holding the :class:`FakeModel` its handlers answer for."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], fake_model: FakeModel) -> None:
        super().__init__(address, FakeModelHandler)
        self.fake_model = fake_model


class FakeModelHandler(BaseHTTPRequestHandler):
    """Routes ``/v1/models`` and ``/v1/chat/completions``; everything else is a recorded 404."""

    protocol_version = "HTTP/1.1"
    timeout = 60  # idle keep-alive connections end on their own
    server: FakeModelServer

    @property
    def model(self) -> FakeModel:
        return self.server.fake_model

    # -- connection tracking -----------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        with _open_lock:
            _open.setdefault(id(self.server), set()).add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with _open_lock:
                _open.get(id(self.server), set()).discard(self.connection)

    @staticmethod
    def close_all(server: ThreadingHTTPServer) -> None:
        """Shut down every open connection of ``server`` (their threads then exit)."""
        with _open_lock:
            sockets = list(_open.pop(id(server), set()))
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log (tests read ``FakeModel.requests`` instead)."""

    # -- routing -----------------------------------------------------------------------------
    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.model.record(RecordedRequest("GET", self.path, None))
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": MODEL_NAME,
                            "object": "model",
                            "created": CREATED,
                            "owned_by": "tests",
                        }
                    ],
                },
            )
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:
        body = self._read_body()
        if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            self.model.record(RecordedRequest("POST", self.path, body))
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})
            return
        self._complete(body)

    def _complete(self, body: dict[str, Any]) -> None:
        model_name = str(body.get("model") or MODEL_NAME)
        number = self.model.next_call_number()
        offered = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
        if offered:
            script, index = locate_turn(body.get("messages") or [])
            turn: Turn = self.model.turn_for(script, index)
            self.model.record(RecordedRequest("POST", self.path, body, script, index))
            if turn.delay_s and self.model.stopping.wait(turn.delay_s):
                self.close_connection = True
                return
            text, calls = turn.text, [resolve_call(c, offered) for c in turn.calls]
        else:
            self.model.record(RecordedRequest("POST", self.path, body))
            text, calls = AUX_TEXT, []
        if not body.get("stream"):
            self._send_json(200, completion_json(text, calls, number, model_name))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [
            f"data: {json.dumps(c)}\n\n" for c in stream_chunks(text, calls, number, model_name)
        ]
        for event in [*events, "data: [DONE]\n\n"]:
            data = event.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
