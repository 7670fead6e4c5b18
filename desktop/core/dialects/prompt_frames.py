"""Read clarify, sudo and secret prompts from frames (protocol.md §1.4, §2.3).

* 0.19.0 and 0.20: ``clarify.request {request_id, question, choices}``, ``sudo.request``,
  ``secret.request {request_id, prompt, env_var}`` events, ended by ``*.expire {request_id}``;
* B: ``clarify``, ``sudo {command}`` and ``secret {env_var, prompt}`` server requests. Measured
  on iot 0.22.2.post1: ``clarify`` carries ``questions: [{qid, question, choices, ...}]``,
  answered ``{answers: {qid: answer}}`` (several questions, or answers already locked, are left
  to Hermes); older builds send one ``question``, answered ``{answer}``;
* C: prompts keyed by ``prompt_id`` + ``execution_generation`` in a ``clarify.request``, an
  ``approval.request`` of ``kind: "clarify"`` or a snapshot's ``prompts[]`` (all three read).

All text is hostile: sizes are bounded, and a prompt whose text did not fit is marked ``cut``
so that nobody answers a question they were not shown in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.core import payloads
from desktop.core.jsonrpc import EventFrame, ServerRequestFrame, excerpt
from desktop.core.model import PromptKind
from desktop.core.wire import Malformed, PromptClosed, PromptOpened, PromptVia, WireEvent

MAX_QUESTION_CHARS = 4000
MAX_CHOICES = 20
MAX_CHOICE_CHARS = 200
MAX_NAME_CHARS = 128  # env_var
MAX_COMMAND_CHARS = 4000  # the sudo command, shown only
PROMPT_METHODS = {
    "clarify": PromptKind.CLARIFY,
    "sudo": PromptKind.SUDO,
    "secret": PromptKind.SECRET,
}
_FREE_TEXT_FLAGS = ("allow_free_text", "allow_other", "free_text", "allow_custom")


def read_prompt(
    kind: PromptKind,
    session_id: str,
    payload: Mapping[str, Any],
    via: PromptVia,
    ident: str | int,
    generation: int | None = None,
) -> PromptOpened:
    """One prompt from its payload (any dialect), bounded."""
    questions = payloads.objects(payload, "questions")
    outer = payload
    if kind is PromptKind.CLARIFY and questions:
        payload = questions[0]  # the one question (a batch is shown by its first)
    cut = False

    def bounded(text: str, limit: int) -> str:
        nonlocal cut
        cut |= len(text) > limit
        return text[:limit]

    question = bounded(_question(payload), MAX_QUESTION_CHARS)
    raw_choices = payloads.strings(payload, "choices")
    cut |= len(raw_choices) > MAX_CHOICES or len(raw_choices) != len(_list(payload, "choices"))
    choices: list[str] = []
    for choice in raw_choices[:MAX_CHOICES]:
        text = bounded(choice, MAX_CHOICE_CHARS)
        if text not in choices:
            choices.append(text)
    env_var = bounded(payloads.text(payload, "env_var"), MAX_NAME_CHARS)
    command = bounded(payloads.text(payload, "command"), MAX_COMMAND_CHARS)
    question_id = bounded(payloads.text(payload, "qid"), MAX_NAME_CHARS)
    locked = payloads.mapping(outer, "answers")
    return PromptOpened(
        session_id=session_id,
        kind=kind,
        via=via,
        ident=ident,
        question=question,
        choices=tuple(choices),
        free_text=not any(
            payloads.flag(source, name) is False
            for source in (payload, outer)
            for name in _FREE_TEXT_FLAGS
        ),
        env_var=env_var,
        command=command,
        execution_generation=generation,
        question_id=question_id,
        cut=cut,
        several=len(questions or ()) > 1 or bool(locked),
    )


def event_prompt(kind: PromptKind, frame: EventFrame) -> list[WireEvent]:
    """0.19.0 / 0.20: a ``clarify.request``, ``sudo.request`` or ``secret.request`` event."""
    request_id = payloads.text(frame.payload, "request_id")
    if not frame.session_id or not request_id or len(request_id) > MAX_NAME_CHARS:
        return [Malformed(f"{kind.value}.request without a session or request_id", "")]
    return [read_prompt(kind, frame.session_id, frame.payload, PromptVia.EVENT, request_id)]


def event_expired(frame: EventFrame) -> list[WireEvent]:
    """0.19.0 / 0.20: ``sudo.expire`` / ``secret.expire`` (and ``clarify.expire``, if sent)."""
    request_id = payloads.text(frame.payload, "request_id")
    if not request_id:
        return []
    return [PromptClosed(frame.session_id, PromptVia.EVENT, request_id, "expired")]


def server_request_prompt(frame: ServerRequestFrame) -> list[WireEvent]:
    """B (and C): a ``clarify``/``sudo``/``secret`` request, never refused with an error.

    Another window may be the one to answer it (first answer wins): a refusal would beat it.
    """
    kind = PROMPT_METHODS[frame.method]
    params = frame.params
    session_id = payloads.text(params, "session_id") if params is not None else ""
    if params is None or not session_id:
        return [Malformed(f"{frame.method} request without a session", excerpt(repr(params)))]
    return [read_prompt(kind, session_id, params, PromptVia.SERVER_REQUEST, frame.request_id)]


def canonical_prompt(
    session_id: str, payload: Mapping[str, Any], stamp: Mapping[str, Any]
) -> list[WireEvent]:
    """C: a clarify prompt (event payload or snapshot ``prompts[]`` item)."""
    prompt_id = payloads.text(payload, "prompt_id")
    generation = payloads.integer(payload, "execution_generation")
    if generation is None:
        generation = payloads.integer(stamp, "execution_generation")
    if not session_id or not prompt_id or generation is None:
        return [Malformed("clarify prompt without session, prompt_id or generation", "")]
    opened = read_prompt(
        PromptKind.CLARIFY, session_id, payload, PromptVia.CANONICAL, prompt_id, generation
    )
    return [opened]


def _question(payload: Mapping[str, Any]) -> str:
    return payloads.text(payload, "question") or payloads.text(payload, "prompt")


def _list(payload: Mapping[str, Any], key: str) -> list[Any]:
    value = payload.get(key)
    return value if isinstance(value, list) else []
