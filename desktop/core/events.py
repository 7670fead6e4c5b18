"""Typed events the core emits, named as things that happened (the Qt bridge re-emits each)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.model import Approval, CallContext, Dialect, Prompt, RunResult, SessionState


@dataclass(frozen=True, slots=True)
class HandshakeCompleted:
    dialect: Dialect
    epoch: int
    server_requests: tuple[str, ...] = ()  # B: methods the server may send us
    replay_epoch: str = ""


@dataclass(frozen=True, slots=True)
class ProtocolErrorReceived:
    """A frame the core could not use. The connection stays up; the frame is dropped."""

    reason: str  # e.g. "not JSON", "frame too large", "params is not an object"
    excerpt: str  # a short, bounded, printable excerpt for the log (never a token)


@dataclass(frozen=True, slots=True)
class RpcError:
    code: int
    message: str
    reason: str = ""  # canonical data.reason, when present


@dataclass(frozen=True, slots=True)
class RpcResponded:
    """The answer to ``GatewayCore.call``: exactly one of result and error."""

    rpc_id: int
    result: Mapping[str, Any] | None
    error: RpcError | None


@dataclass(frozen=True, slots=True)
class SessionChanged:
    """A session appeared or any of its shown state changed. Carries the new full value."""

    session: SessionState


@dataclass(frozen=True, slots=True)
class SessionRemoved:
    session_id: str
    reason: str  # closed, reclaimed, not_found, ...


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    approval: Approval


@dataclass(frozen=True, slots=True)
class ApprovalChanged:
    """An existing row changed: phase, answerability, or its one final outcome."""

    approval: Approval


@dataclass(frozen=True, slots=True)
class PromptAsked:
    """A question waits on the person, or its answerability changed (same key: replaces)."""

    prompt: Prompt


@dataclass(frozen=True, slots=True)
class PromptEnded:
    """The prompt is no longer open; ``reason`` is one of ``desktop.core.prompt_book``'s."""

    prompt: Prompt
    reason: str


@dataclass(frozen=True, slots=True)
class CommandRan:
    """A command ran without a row in the tray (allowed for the session, YOLO, smart mode)."""

    session_id: str
    command: str
    result: RunResult
    context: CallContext
    approval_note: str = ""  # Hermes says it asked (elsewhere) and how it was answered


@dataclass(frozen=True, slots=True)
class NoticeReceived:
    """Something the gateway wants a person to read (``error``, ``notification.show``)."""

    session_id: str
    text: str
    level: str = "info"


CoreEvent = (
    HandshakeCompleted
    | ProtocolErrorReceived
    | RpcResponded
    | SessionChanged
    | SessionRemoved
    | ApprovalRequested
    | ApprovalChanged
    | PromptAsked
    | PromptEnded
    | CommandRan
    | NoticeReceived
)
