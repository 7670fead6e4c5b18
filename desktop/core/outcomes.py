"""How an approval ended, in one spelling each: the UI and notifications read the reasons."""

from __future__ import annotations

from desktop.core.jsonrpc import excerpt
from desktop.core.model import Choice, Outcome, OutcomeKind

SETTLED_ELSEWHERE = "settled elsewhere"
NOT_PENDING = "answered elsewhere (Hermes no longer lists it as waiting)"
NOTHING_WAITING = "nothing was waiting on the server"
SESSION_GONE = "session gone"
SENT_UNKNOWN = "sent, outcome unknown — check the agent"
SERVER_TIMEOUT = "Hermes stopped waiting (timeout)"
LOCAL_TIMEOUT = "the approval timed out"
ASSUMED_TIMEOUT = (
    "the approval timed out after Hermes' default wait (its own setting is unknown here; "
    "answer in Hermes itself if it still asks)"
)
INTERRUPTED = "interrupted"
TURN_ENDED = "the agent's turn ended"
SESSION_STOPPED = "the session stopped running"
GATEWAY_SHUTDOWN = "the gateway shut down"
PROTOCOL_CHANGED = "the gateway came back speaking another protocol"
REPLACED = "the gateway replaced this request (its id now asks something else)"

_CANCEL_REASONS = {
    "interrupted": INTERRUPTED,
    "session_closed": SESSION_GONE,
    "resolved": SETTLED_ELSEWHERE,
    "shutdown": GATEWAY_SHUTDOWN,
}


def decided(choice: Choice) -> Outcome:
    """The outcome of a decision the server took: denied for ``deny``, else approved."""
    if choice is Choice.DENY:
        return Outcome(OutcomeKind.DENIED, Choice.DENY)
    return Outcome(OutcomeKind.APPROVED, choice)


def withdrawn(reason: str) -> Outcome:
    return Outcome(OutcomeKind.WITHDRAWN, reason=reason)


def expired(reason: str = SERVER_TIMEOUT) -> Outcome:
    return Outcome(OutcomeKind.EXPIRED, reason=reason)


def unknown(reason: str = SENT_UNKNOWN) -> Outcome:
    return Outcome(OutcomeKind.UNKNOWN, reason=reason)


def cancelled(reason: str) -> Outcome:
    if reason == "timeout":
        return expired()
    known = _CANCEL_REASONS.get(reason)
    return withdrawn(known or f"withdrawn by Hermes ({excerpt(reason or 'no reason', 40)})")
