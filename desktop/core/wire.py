"""Internal typed wire events: what a frame *means*, whatever dialect carried it.

The dialects (protocol.md §6) say the same things in different shapes — an approval
is an event with no id (A), a server→client request (B) or an event with a prompt id (C); a
withdrawal is silence (A), ``request.cancel`` (B) or ``approval.settled`` (C). The dialect
adapters (``desktop.core.dialects``) turn frames into these values, and the rest of the core
only ever reasons about these values. They never leave the core, so they are not frozen
(a frozen dataclass costs a ``object.__setattr__`` per field on every frame).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.model import Choice, TodoList


class RowKind(enum.Enum):
    """How an approval is addressed on the wire, and so how it may be answered."""

    FIFO = "fifo"  # 0.19.0 event with no id: approval.respond resolves the session's oldest
    SERVER_REQUEST = "server request"  # `approval` server->client request: answer by its id
    PROMPT = "prompt"  # canonical event: prompt_id + execution_generation
    BY_ID = "by id"  # 0.20 event with a request_id: approval.respond resolves exactly that one


@dataclass(slots=True)
class ApprovalAsked:
    """A command waits for a person (new, or re-delivered after a reconnect)."""

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


@dataclass(slots=True)
class RequestCancelled:
    """``request.cancel``: the server withdrew server request ``reply_id``."""

    session_id: str
    reply_id: str | int
    method: str
    reason: str


@dataclass(slots=True)
class PromptSettled:
    """``approval.settled``: a canonical prompt was answered, expired or left behind.

    ``execution_generation`` names which prompt of that id (None when the frame did not say):
    a prompt id can come back in a later generation, and a settle for the old one must not
    close the new one.
    """

    session_id: str
    prompt_id: str
    expired: bool = False
    execution_generation: int | None = None


@dataclass(slots=True)
class InfoReceived:
    """``session.info`` / ``session.updated``: merge these keys into the session."""

    session_id: str
    info: Mapping[str, Any]


@dataclass(slots=True)
class TitleReceived:
    session_id: str
    title: str
    stored_session_id: str = ""


@dataclass(slots=True)
class UsageReceived:
    """A ``session.usage`` event payload, flat or nested (see ``desktop.core.usage``)."""

    session_id: str
    payload: Mapping[str, Any]


@dataclass(slots=True)
class TodosReceived:
    session_id: str
    todos: TodoList


@dataclass(slots=True)
class TurnStarted:
    session_id: str


@dataclass(slots=True)
class TurnEnded:
    """``message.complete``: the turn is over (``status`` complete|error|interrupted)."""

    session_id: str
    status: str
    usage: Mapping[str, Any] | None = None


@dataclass(slots=True)
class ToolStarted:
    session_id: str
    tool_id: str
    name: str = ""
    command: str = ""  # args.command, for terminal calls (not sent by 0.19.0)


@dataclass(slots=True)
class AgentSaid:
    """``message.interim``: what the agent said just before its next tool call."""

    session_id: str
    text: str


@dataclass(slots=True)
class ToolCompleted:
    """``tool.complete``. ``blocked``: denied, timed out or withdrawn before it ran."""

    session_id: str
    tool_id: str
    name: str
    blocked: bool = False
    timed_out: bool = False
    todos: TodoList | None = None
    command: str = ""  # args.command, for terminal calls
    exit_code: int | None = None
    output: str = ""


@dataclass(slots=True)
class GenerationSeen:
    """A canonical event stamp: the session's current execution generation."""

    session_id: str
    generation: int


@dataclass(slots=True)
class ReplayGap:
    """The canonical gateway retired this viewer's subscription: resume for a snapshot."""

    session_id: str


@dataclass(slots=True)
class SessionGone:
    session_id: str
    reason: str


@dataclass(slots=True)
class Notice:
    session_id: str
    text: str
    level: str = "info"


@dataclass(slots=True)
class ServerRequestRefused:
    """A server request the tray cannot handle: answer it with this error at once."""

    reply_id: str | int
    method: str
    code: int
    message: str


@dataclass(slots=True)
class Malformed:
    """A frame that had the right outline but unusable content."""

    reason: str
    excerpt: str


WireEvent = (
    ApprovalAsked
    | RequestCancelled
    | PromptSettled
    | InfoReceived
    | TitleReceived
    | UsageReceived
    | TodosReceived
    | TurnStarted
    | TurnEnded
    | ToolStarted
    | AgentSaid
    | ToolCompleted
    | GenerationSeen
    | ReplayGap
    | SessionGone
    | Notice
    | ServerRequestRefused
    | Malformed
)
