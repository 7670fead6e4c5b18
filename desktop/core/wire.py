"""What a frame *means*, whatever dialect carried it; core-only, so not frozen (that costs)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from desktop.core.events import ProtocolErrorReceived
from desktop.core.model import Choice, PromptKind


class RowKind(enum.Enum):
    FIFO = "fifo"  # 0.19.0 event with no id: approval.respond resolves the session's oldest
    SERVER_REQUEST = "server request"  # `approval` server->client request: answer by its id
    PROMPT = "prompt"  # canonical event: prompt_id + execution_generation
    BY_ID = "by id"  # 0.20 event with a request_id: approval.respond resolves exactly that one


@dataclass(slots=True)
class ApprovalAsked:
    """A command waits for a person (new, or re-delivered)."""

    session_id: str
    kind: RowKind
    command: str
    description: str = ""
    pattern_keys: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = (Choice.ONCE, Choice.DENY)
    smart_denied: bool = False
    reply_id: str | int | None = None  # SERVER_REQUEST: the frame id to answer
    request_id: str = ""  # B params.request_id, C prompt_id, A (newer builds) request_id
    execution_generation: int | None = None  # PROMPT
    too_long: bool = False  # the command was cut to the configured bound; never answerable


class PromptVia(enum.Enum):
    EVENT = "event"  # 0.19.0 / 0.20 ``*.request`` event: ``clarify.respond {request_id, answer}``
    SERVER_REQUEST = "server request"  # B: answer the ``srq-`` frame with ``{answer}``
    CANONICAL = "canonical"  # C: prompt_id + generation, ``clarify.respond`` with both


@dataclass(slots=True)
class PromptOpened:
    """A question now waits (``cut``/``several``: never answerable here, only in Hermes)."""

    session_id: str
    kind: PromptKind
    via: PromptVia
    ident: str | int  # request_id, srq- id or prompt_id
    question: str = ""
    choices: tuple[str, ...] = ()
    free_text: bool = True
    env_var: str = ""
    command: str = ""
    execution_generation: int | None = None
    question_id: str = ""  # B: the ``qid`` the answer is keyed by (``{answers: {qid: …}}``)
    cut: bool = False  # some of its text did not fit the bounds
    several: bool = False  # more than one question at once


@dataclass(slots=True)
class ToolCompleted:
    """``tool.complete``. ``blocked``: denied, timed out or withdrawn before it ran."""

    session_id: str
    tool_id: str
    name: str
    blocked: bool = False
    timed_out: bool = False
    command: str = ""  # args.command, for terminal calls
    exit_code: int | None = None
    output: str = ""
    approval_note: str = ""  # result.approval: Hermes says it asked and how it was answered


WireEvent = ApprovalAsked | PromptOpened | ProtocolErrorReceived  # well formed, or not usable
