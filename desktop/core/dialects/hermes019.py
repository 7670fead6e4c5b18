"""hermes-agent 0.19.0's tui_gateway (Dialect.A; protocol.md §3.2).

Approvals are ``approval.request`` events with no id; ``approval.respond {session_id, choice}``
resolves the session's *oldest* pending approval and answers ``{resolved: n}``. Nothing on the
wire withdraws a card (timeouts and interrupts are silent), which is why the lifecycle
treats every 0.19.0 row as possibly stale (``desktop.core.lifecycle``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from desktop.core import outcomes, payloads
from desktop.core.dialects.approval_frames import fifo_event_approval
from desktop.core.dialects.base import DialectAdapter, EventHandler
from desktop.core.dialects.prompt_frames import event_expired, event_prompt
from desktop.core.jsonrpc import EventFrame
from desktop.core.model import Choice, Dialect, Outcome, PromptKind
from desktop.core.wire import RowKind, WireEvent

NO_PENDING_REQUEST = 4009  # 0.19.0: "no pending request"
SESSION_NOT_FOUND = 4001


def _prompt(kind: PromptKind) -> EventHandler:
    return lambda _, frame: event_prompt(kind, frame)


def _expired(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return event_expired(frame)


PROMPT_EVENTS: dict[str, EventHandler] = {  # 0.20 sends the same ones
    "clarify.request": _prompt(PromptKind.CLARIFY),
    "sudo.request": _prompt(PromptKind.SUDO),
    "secret.request": _prompt(PromptKind.SECRET),
    "clarify.expire": _expired,
    "sudo.expire": _expired,
    "secret.expire": _expired,
}


class Hermes019Adapter(DialectAdapter):
    dialect: ClassVar[Dialect | None] = Dialect.A
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.FIFO, RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": fifo_event_approval,
        **PROMPT_EVENTS,
    }

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """``{resolved: n}``: n ≥ 1 means our decision took; 0 means nothing was pending."""
        if result is not None:
            resolved = payloads.integer(result, "resolved")
            if resolved is not None and resolved >= 1:
                return outcomes.decided(choice)
            if resolved == 0:
                return outcomes.withdrawn(outcomes.NOTHING_WAITING)
            return outcomes.unknown()
        if code == NO_PENDING_REQUEST:
            return outcomes.withdrawn(outcomes.NOTHING_WAITING)
        if code == SESSION_NOT_FOUND:
            return outcomes.withdrawn(outcomes.SESSION_GONE)
        return outcomes.unknown()
