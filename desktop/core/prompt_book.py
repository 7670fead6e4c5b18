"""The open clarify, sudo and secret prompts an agent waits on; only clarify is ever answered.

Nothing is ever sent for sudo and secret prompts, not even a refusal (it would beat the answer
of the window that asked). An answer goes only to a prompt open now under the key the person
saw, on the same connection, outside the margin of a local timeout; else nothing, and why.
Ends (protocol.md §1.4): ``*.expire``, the turn's end and a local timeout (0.19.0/0.20),
``request.cancel`` or a ``clarify`` ``tool.complete`` (B), settled (C), a lost connection.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from desktop.core.events import CoreEvent, PromptAsked, PromptEnded
from desktop.core.jsonrpc import encode_result
from desktop.core.model import DecisionResult, Dialect, Prompt, PromptKind
from desktop.core.outbox import Outbox, Purpose
from desktop.core.wire import PromptOpened, PromptVia

MAX_ANSWER_CHARS = 4000
MAX_OPEN = 200  # open prompts per core; more are dropped (a flood, not a person's work)
CLARIFY_TOOL = "clarify"
# Local waits where no frame says when Hermes gives up (0.19.0: 300 s, sudo 120 s).
EVENT_TIMEOUTS = {PromptKind.CLARIFY: 300.0, PromptKind.SUDO: 120.0, PromptKind.SECRET: 300.0}

# Why a prompt ended (PromptEnded.reason); the UI shows "expired" for all but ANSWERED.
ANSWERED = "answered"
ANSWERED_ELSEWHERE = "answered elsewhere"
EXPIRED = "expired"
CANCELLED = "cancelled"
TURN_ENDED = "turn ended"
SESSION_GONE = "session gone"
CONNECTION_LOST = "connection lost"
REPLACED = "replaced"
# Ends after which the question's tool call still returns (a tool.complete follows).
TOOL_RETURNS = frozenset({ANSWERED, ANSWERED_ELSEWHERE, EXPIRED, CANCELLED})
CANCEL_REASONS = {
    "timeout": EXPIRED,
    "resolved": ANSWERED_ELSEWHERE,
    "session_closed": SESSION_GONE,
}

NOT_FOLLOWED = "the tray does not follow this session; answer in the window that runs it"
ONLY_THERE = {
    PromptKind.SUDO: "a password is only ever typed in the window that asked",
    PromptKind.SECRET: "a secret is only ever typed in the window that asked",
}
CUT = "the question is longer than the tray shows; answer it in Hermes"
SEVERAL = "several questions at once; answer them in Hermes"
NO_TEXT = "the question has no text; answer it in Hermes"


SHOWN_FIELDS = ("session_id", "kind", "question", "choices", "free_text", "env_var", "command")


@dataclass(slots=True)
class _Open:
    prompt: Prompt
    opened: PromptOpened
    epoch: int


class PromptBook:
    def __init__(
        self,
        emit: Callable[[CoreEvent], None],
        outbox: Outbox,
        clock: Callable[[], float],
        followed: Callable[[str], bool],
        margin: float,
    ) -> None:
        self._emit = emit
        self._outbox = outbox
        self._clock = clock
        self._followed = followed
        self._margin = margin
        self._open: dict[str, _Open] = {}
        self._keys = itertools.count(1)
        self._sent: dict[int, Prompt] = {}  # answers by RPC, until the reply says if taken
        # per session: coming clarify ``tool.complete``s of prompts that already ended here
        self._tool_owed: dict[str, int] = {}

    def sessions(self) -> frozenset[str]:
        return frozenset(entry.prompt.session_id for entry in self._open.values())

    def next_deadline(self) -> float | None:
        times = [e.prompt.expires_at for e in self._open.values() if e.prompt.expires_at]
        return min(times) if times else None

    def opened(self, event: PromptOpened, epoch: int, dialect: Dialect | None) -> None:
        """A prompt arrived; a re-delivery of the same one changes nothing."""
        same = self._find(event.via, event.ident, event.execution_generation)
        if same is not None:
            if same.opened == event:
                return
            self._end(same, REPLACED)  # the id now names another question
        if len(self._open) >= MAX_OPEN:
            return
        now = self._clock()
        timeout = EVENT_TIMEOUTS[event.kind] if event.via is PromptVia.EVENT else None
        prompt = Prompt(
            key=f"p{next(self._keys)}",
            arrived_at=now,
            expires_at=None if timeout is None else now + timeout,
            **{name: getattr(event, name) for name in SHOWN_FIELDS},
        )
        entry = _Open(self._judged(prompt, event, dialect), event, epoch)
        self._open[prompt.key] = entry
        self._emit(PromptAsked(entry.prompt))

    def closed(
        self, via: PromptVia, ident: str | int, reason: str, generation: int | None = None
    ) -> bool:
        """The gateway withdrew or settled prompt ``ident``; True if it was one of ours."""
        entry = self._find(via, ident, generation)
        if entry is None:
            return False
        self._end(entry, reason)
        return True

    def turn_ended(self, session_id: str) -> None:
        """0.19.0/0.20: a turn that ended waits on nothing any more."""
        for entry in self._of(session_id):
            if entry.opened.via is PromptVia.EVENT:
                self._end(entry, TURN_ENDED)

    def tool_completed(self, session_id: str, name: str) -> None:
        """The ``clarify`` tool returned: its question was answered (elsewhere, if still open)."""
        if name != CLARIFY_TOOL:
            return
        owed = self._tool_owed.get(session_id, 0)
        if owed:  # the tool call of a question that already ended here
            self._tool_owed[session_id] = owed - 1
            return
        for entry in self._of(session_id):
            if entry.prompt.kind is PromptKind.CLARIFY:
                self._end(entry, ANSWERED_ELSEWHERE, by_tool=True)
                return  # one tool call, one question: the oldest

    def session_gone(self, session_id: str) -> None:
        for entry in self._of(session_id):
            self._end(entry, SESSION_GONE)
        self._tool_owed.pop(session_id, None)

    def connection_lost(self) -> None:
        for entry in list(self._open.values()):
            self._end(entry, CONNECTION_LOST)
        self._sent.clear()
        self._tool_owed.clear()  # tool calls that return while away are never seen

    def rejudge(self, dialect: Dialect | None) -> None:
        """A session was followed or let go, or the dialect became known."""
        for entry in self._open.values():
            judged = self._judged(entry.prompt, entry.opened, dialect)
            if judged != entry.prompt:
                entry.prompt = judged
                self._emit(PromptAsked(judged))

    def tick(self) -> None:
        if not self._open:
            return
        now = self._clock()
        for entry in list(self._open.values()):
            expires = entry.prompt.expires_at
            if expires is not None and now >= expires:
                self._end(entry, EXPIRED)

    def answer(self, key: str, text: object, epoch: int, connected: bool) -> DecisionResult:
        """Queue the one frame answering clarify ``key`` with ``text``, or refuse and say why."""
        entry = self._open.get(key)
        if entry is None:
            return DecisionResult(False, "expired: the question is no longer open")
        prompt = entry.prompt
        if prompt.kind is not PromptKind.CLARIFY:
            return DecisionResult(False, ONLY_THERE[prompt.kind])
        if not connected or entry.epoch != epoch:
            return DecisionResult(False, "expired: the connection changed since it was asked")
        if prompt.expires_at is not None and self._clock() >= prompt.expires_at - self._margin:
            return DecisionResult(False, "expired: Hermes stops waiting for it now")
        if not prompt.answerable:
            return DecisionResult(False, prompt.blocked_reason or "cannot be answered here")
        if not isinstance(text, str) or not text.strip():
            return DecisionResult(False, "an answer needs some text")
        if len(text) > MAX_ANSWER_CHARS:
            return DecisionResult(False, f"an answer is at most {MAX_ANSWER_CHARS} characters")
        if not prompt.free_text and prompt.choices and text not in prompt.choices:
            return DecisionResult(False, "only the offered choices are taken for this question")
        self._queue(entry, text, epoch)
        self._end(entry, ANSWERED)
        return DecisionResult(True)

    def answer_replied(self, rpc_id: int, result: Mapping[str, Any] | None) -> Prompt | None:
        """The reply to an answer RPC: the prompt it answered when the gateway did not take it."""
        prompt = self._sent.pop(rpc_id, None)
        if prompt is None:
            return None
        status = result.get("status") if result is not None else "error"
        taken = result is not None and status in (None, "ok", "resolved", "answered")
        return None if taken else prompt

    def _queue(self, entry: _Open, text: str, epoch: int) -> None:
        opened = entry.opened
        if opened.via is PromptVia.SERVER_REQUEST:
            result: dict[str, Any] = {"answer": text}
            if opened.question_id:
                result = {"answers": {opened.question_id: text}}
            self._outbox.reply(encode_result(opened.ident, result), epoch)
            return
        params: dict[str, Any]
        if opened.via is PromptVia.CANONICAL:
            params = {
                "session_id": opened.session_id,
                "execution_generation": opened.execution_generation,
                "prompt_id": opened.ident,
                "answer": text,
            }
        else:
            params = {"request_id": opened.ident, "answer": text}
        frame = self._outbox.request(
            "clarify.respond", params, Purpose.PROMPT, epoch, session_id=opened.session_id
        )
        if frame.rpc_id is not None:
            self._sent[frame.rpc_id] = entry.prompt

    def _judged(self, prompt: Prompt, opened: PromptOpened, dialect: Dialect | None) -> Prompt:
        reason = ""
        if prompt.kind is not PromptKind.CLARIFY:
            reason = ONLY_THERE[prompt.kind]
        elif opened.several:
            reason = SEVERAL
        elif opened.cut:
            reason = CUT
        elif not prompt.question.strip():
            reason = NO_TEXT
        elif dialect is None:
            reason = "the gateway's protocol is not known yet"
        elif not self._followed(prompt.session_id):
            reason = NOT_FOLLOWED
        return replace(prompt, answerable=not reason, blocked_reason=reason)

    def _find(self, via: PromptVia, ident: str | int, generation: int | None) -> _Open | None:
        for entry in self._open.values():
            opened = entry.opened
            any_generation = generation is None or opened.execution_generation is None
            same = any_generation or opened.execution_generation == generation
            if opened.via is via and opened.ident == ident and same:
                return entry
        return None

    def _of(self, session_id: str) -> list[_Open]:
        return [e for e in self._open.values() if e.prompt.session_id == session_id]

    def _end(self, entry: _Open, reason: str, *, by_tool: bool = False) -> None:
        if self._open.pop(entry.prompt.key, None) is None:
            return
        sid = entry.prompt.session_id
        if entry.prompt.kind is PromptKind.CLARIFY and reason in TOOL_RETURNS and not by_tool:
            self._tool_owed[sid] = min(self._tool_owed.get(sid, 0) + 1, MAX_OPEN)
        self._emit(PromptEnded(entry.prompt, reason))
