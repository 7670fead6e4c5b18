"""Whether a person may answer an approval right now, and if not, why (in plain words).

This is the rule that keeps a click from resolving the wrong command. Strictest on 0.19.0:
``approval.respond`` resolves the session's *oldest* pending approval, so only the head of the
session's FIFO may be answered, and never when the server may already have given up on it (too
close to its timeout). Rows of a kind the connected gateway cannot take, rows seen before the
handshake, over-long commands, rows of a session the tray does not follow (first seen in the
approval itself, or unwatched) and anything while disconnected are never answerable.

A FIFO row can also *look* like the head without being it: after the tray resumed a 0.19.0
session mid-turn, an approval published while it was away is never re-sent, so the first one it
sees may sit behind an unseen one. Such rows start STALE with :data:`HEAD_UNSURE` (the approval
lifecycle decides when) and are answered only through the explicit confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.model import ApprovalPhase, Dialect
from desktop.core.wire import RowKind

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
    """What answerability depends on besides the row itself."""

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
    stale_reason: str,
    ctx: AnswerContext,
    followed: bool = True,
) -> tuple[bool, str]:
    """``(answerable, blocked_reason)`` for one approval."""
    if phase is ApprovalPhase.RESOLVED:
        return False, ""
    if phase is ApprovalPhase.SENDING:
        return False, SENDING
    if too_long:
        return False, TOO_LONG
    if not ctx.connected:
        return False, DISCONNECTED
    if ctx.dialect is None:
        return False, NO_HANDSHAKE
    if kind not in ctx.answers:
        return False, WRONG_SHAPE
    if not followed:
        return False, NOT_FOLLOWED
    if kind is RowKind.FIFO:
        if not is_head:
            return False, NOT_HEAD
        if in_margin(expires_at, ctx.now, ctx.margin):
            return False, TOO_CLOSE
    if phase is ApprovalPhase.STALE:
        return True, stale_reason
    return True, ""


def in_margin(expires_at: float | None, now: float, margin: float) -> bool:
    """Whether ``now`` is within ``margin`` of (or past) an approval's local timeout."""
    return expires_at is not None and now >= expires_at - margin
