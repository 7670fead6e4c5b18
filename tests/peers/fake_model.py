"""A scripted OpenAI-compatible model server on 127.0.0.1 for driving the real Hermes agent.

Why: the real gateway only asks for approvals when *its model* decides to run a dangerous
terminal command. This server plays that model deterministically: a test registers a script
(a list of :class:`Turn`) under a name and starts its prompt with the marker ``[[script:NAME]]``.

How a request is answered (stateless, so Hermes retries get the same answer):

* ``POST /v1/chat/completions`` *with* ``tools``: find the latest user message carrying a marker;
  the turn index is the number of assistant messages after it. Streaming requests (Hermes
  always streams the main loop) get SSE chunks with ``tool_calls`` deltas; others get one JSON.
* the same *without* ``tools`` (titles and other auxiliary calls): a fixed short text.
* ``GET /v1/models``: one model, ``fake-model``.

It runs in a thread (stdlib ``http.server``) rather than on an asyncio loop so that it works the
same under plain asyncio, qasync and sync tests. Every request is recorded. Usage numbers are
constants per call, so totals in Hermes' usage events are predictable.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Self

from tests.peers.fake_model_http import FakeModelHandler, FakeModelServer
from tests.peers.fake_script import (
    AUX_TEXT,
    COMPLETION_TOKENS,
    FALLBACK_TEXT,
    MARKER_RE,
    MODEL_NAME,
    PROMPT_TOKENS,
    RecordedRequest,
    Todo,
    ToolCall,
    Turn,
    commands_script,
    terminal,
    todo,
)

__all__ = [
    "AUX_TEXT",
    "COMPLETION_TOKENS",
    "MODEL_NAME",
    "PROMPT_TOKENS",
    "FakeModel",
    "RecordedRequest",
    "Todo",
    "ToolCall",
    "Turn",
    "commands_script",
    "terminal",
    "todo",
]


class FakeModel:
    """The server. Use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._host = host
        self._scripts: dict[str, list[Turn]] = {}
        self._requests: list[RecordedRequest] = []
        self._cond = threading.Condition()
        self._calls = 0
        self.stopping = threading.Event()
        self._server: FakeModelServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> Self:
        server = FakeModelServer((self._host, 0), self)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="fake-model", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            FakeModelHandler.close_all(self._server)
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "FakeModel is not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------------
    def add_script(self, name: str, turns: Sequence[Turn]) -> str:
        """Register ``turns`` under ``name``; returns the marker to put in the prompt."""
        if not MARKER_RE.fullmatch(f"[[script:{name}]]"):
            raise ValueError(f"bad script name {name!r}")
        with self._cond:
            self._scripts[name] = list(turns)
        return f"[[script:{name}]]"

    def prompt(self, name: str, text: str = "please go ahead") -> str:
        """The user text that selects script ``name``."""
        return f"[[script:{name}]] {text}"

    def next_call_number(self) -> int:
        with self._cond:
            self._calls += 1
            return self._calls

    def turn_for(self, script: str | None, index: int) -> Turn:
        with self._cond:
            turns = self._scripts.get(script or "", [])
        return turns[index] if index < len(turns) else Turn(text=FALLBACK_TEXT)

    # -- recording -------------------------------------------------------------------------
    def record(self, request: RecordedRequest) -> None:
        with self._cond:
            self._requests.append(request)
            self._cond.notify_all()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._requests)

    def chat_requests(self, script: str | None = None) -> list[RecordedRequest]:
        """Main-loop completions (those offering tools), optionally for one script."""
        return [
            r
            for r in self.requests
            if r.path.endswith("/chat/completions")
            and r.tool_names
            and (script is None or r.script == script)
        ]

    def wait_for(
        self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float
    ) -> list[RecordedRequest]:
        """Block until ``predicate(requests)`` holds (raise TimeoutError after ``timeout``)."""
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self._requests), timeout=timeout):
                raise TimeoutError(f"fake model: condition not met within {timeout}s")
            return list(self._requests)

    def iter_scripts(self) -> Iterator[str]:
        with self._cond:
            yield from list(self._scripts)
