"""A person's decision: whether it may be sent, and exactly one frame for the request they saw.

A decision that lands on the wrong request runs a command nobody approved. 0.19.0 resolves
the *oldest* pending approval and approves on any choice string but ``"deny"``, so only its
FIFO head is answerable, never close to Hermes' timeout, and only a :class:`Choice` encodes.
Frames per row kind: protocol.md §3 (B never ``all``, 0.20 never an empty id, C its four keys).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from desktop.core.model import Action, Approval, ApprovalPhase, Choice, Dialect
from desktop.core.wire import ApprovalAsked, RowKind

NO_HANDSHAKE = "waiting for the gateway's handshake"
DISCONNECTED = "not connected to Hermes"
TOO_LONG = "the command is too long to show in full; answer it in Hermes itself"
WRONG_SHAPE = "this gateway cannot take an answer for a request of this shape"
NOT_HEAD = "answer the earlier command first (Hermes 0.19 answers in arrival order)"
TOO_CLOSE = "too close to Hermes' own timeout to answer safely"
SENDING = "an answer is on its way"
NOT_FOLLOWED = (
    "the tray does not follow this session, so it cannot vouch for what Hermes asks there; "
    "answer it in the window that runs the session"
)
# STALE reasons, not blocks: the person may still answer after checking Hermes (confirm).
HEAD_UNSURE = (
    "the tray was not following this session while it ran, so Hermes 0.19 may hold an earlier "
    "command that an answer would resolve instead; answer only if Hermes shows this one as the "
    "oldest waiting"
)
HEAD_AFTER_UNKNOWN = (
    "an answer to an earlier command of this session may or may not have reached Hermes 0.19, "
    "which may still hold that command as the one an answer would resolve; answer only if Hermes "
    "shows this one as the oldest waiting"
)
ANSWER_UNDER_ID = (
    "Hermes re-used this request's id while an answer for the earlier command under it was on "
    "its way, and may have taken that answer for this one; answer only if Hermes still asks it"
)


@dataclass(frozen=True, slots=True)
class AnswerContext:
    dialect: Dialect | None
    answers: frozenset[RowKind]  # the row kinds the connected gateway takes answers for
    connected: bool
    now: float
    margin: float  # seconds before the local timeout at which FIFO rows stop being answerable


def assess(
    phase: ApprovalPhase,
    expires_at: float | None,
    kind: RowKind,
    *,
    too_long: bool,
    is_head: bool,
    head_only: bool,
    stale_reason: str,
    ctx: AnswerContext,
    followed: bool = True,
) -> tuple[bool, str]:
    """``(answerable, blocked_reason)``; a ``head_only`` (FIFO) row also closes near its timeout."""
    if phase is ApprovalPhase.RESOLVED:
        return False, ""
    if phase is ApprovalPhase.SENDING:
        return False, SENDING
    if not ctx.connected:
        return False, DISCONNECTED
    if ctx.dialect is None:
        return False, NO_HANDSHAKE
    if kind not in ctx.answers:
        return False, WRONG_SHAPE
    if not followed:
        return False, NOT_FOLLOWED
    if head_only and not is_head:
        return False, NOT_HEAD
    if head_only and in_margin(expires_at, ctx.now, ctx.margin):
        return False, TOO_CLOSE
    if too_long:  # last, so TOO_LONG means "answerable but for that": Deny may still go
        return False, TOO_LONG
    if phase is ApprovalPhase.STALE:
        return True, stale_reason
    return True, ""


class RefusalKind(enum.Enum):
    """What stands between a person's choice and a frame (each surface words it its own way)."""

    NOT_A_CHOICE = "not a choice"  # not a :class:`Choice`: never encoded
    DONE = "done"  # the row is resolved
    ON_ITS_WAY = "on its way"  # an answer to it is already on its way
    NOT_OFFERED = "not offered"  # Hermes did not offer this choice for the command
    RECONFIRM_FIRST = "re-confirm first"  # stale: the person must confirm Hermes still asks it
    WAIT = "wait"  # cannot be answered now (``Approval.blocked_reason`` says why)


@dataclass(frozen=True, slots=True)
class Refusal:
    kind: RefusalKind
    reason: str


ALREADY_SENDING = "an answer is already on its way"


def refusal(approval: Approval, choice: object, *, confirmed: bool = False) -> Refusal | None:
    """Why ``choice`` may not go for ``approval`` now, or None: for ``decide`` and every surface."""
    if not isinstance(choice, Choice):  # callers outside mypy may pass anything
        return Refusal(RefusalKind.NOT_A_CHOICE, "only once, session, always or deny can be sent")
    action = approval.action
    if action is Action.DONE:
        kind = approval.outcome.kind.value if approval.outcome else "resolved"
        return Refusal(RefusalKind.DONE, f"already {kind}")
    if action is Action.SENDING:
        return Refusal(RefusalKind.ON_ITS_WAY, ALREADY_SENDING)
    if choice not in approval.choices:
        return Refusal(RefusalKind.NOT_OFFERED, f"{choice.value!r} is not offered for this command")
    if action is Action.WAIT:
        too_long = approval.blocked_reason == TOO_LONG  # assess's last check: else answerable
        if choice is Choice.DENY and too_long and approval.phase is ApprovalPhase.WAITING:
            return None  # a command too long to show can still be denied
        return Refusal(RefusalKind.WAIT, approval.blocked_reason or "cannot be answered now")
    if action is Action.RECONFIRM and not confirmed:
        why = approval.blocked_reason or "Hermes may no longer ask exactly this command"
        return Refusal(RefusalKind.RECONFIRM_FIRST, f"{why} (confirm to answer anyway)")
    return None


def in_margin(expires_at: float | None, now: float, margin: float) -> bool:
    """Whether ``now`` is within ``margin`` of (or past) an approval's local timeout."""
    return expires_at is not None and now >= expires_at - margin


def decision(asked: ApprovalAsked, choice: Choice) -> tuple[str | int | None, dict[str, Any]]:
    """``(reply_id, result)`` answering a server request, or ``(None, approval.respond params)``."""
    if not isinstance(choice, Choice):
        raise TypeError(f"only Choice values can be encoded, not {type(choice).__name__}")
    if asked.kind is RowKind.SERVER_REQUEST:
        if asked.reply_id is None:
            raise ValueError("server request without an id")
        return asked.reply_id, {"choice": choice.value}
    params: dict[str, Any] = {"session_id": asked.session_id, "choice": choice.value}
    if asked.kind is RowKind.BY_ID:
        if not asked.request_id:  # an empty id falls back to the oldest: never send one
            raise ValueError("a request answered by id without its id")
        params["request_id"] = asked.request_id
    elif asked.kind is RowKind.PROMPT:
        if not asked.request_id or asked.execution_generation is None:
            raise ValueError("prompt without prompt_id or execution_generation")
        params = {
            "session_id": asked.session_id,
            "execution_generation": asked.execution_generation,
            "prompt_id": asked.request_id,
            "choice": choice.value,
        }
    elif asked.request_id:
        params["request_id"] = asked.request_id
    return None, params
