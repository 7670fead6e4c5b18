"""The canonical gateway, session authority (Dialect.C; protocol.md §2.3, §3.4).

Approvals are ``approval.request`` events keyed by ``prompt_id`` and ``execution_generation``;
the answer is ``approval.respond`` with exactly those keys plus ``session_id`` and ``choice``,
answered ``{status: resolved|already_resolved}``. ``approval.settled`` withdraws a prompt (and
also reaches the viewer that answered). ``session_id`` is the durable id; a resume snapshot
lists open prompts in ``prompts[]``. Every event may carry the session's current
``execution_generation``, which an interrupt must quote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from desktop.core import outcomes, payloads
from desktop.core.dialects.approval_frames import (
    approval_settled,
    prompt_event_approval,
    request_cancel,
)
from desktop.core.dialects.base import DialectAdapter, EventHandler
from desktop.core.dialects.prompt_frames import canonical_prompt
from desktop.core.dialects.tui_gateway import redelivered
from desktop.core.jsonrpc import EventFrame
from desktop.core.model import Choice, Dialect, Outcome, SessionState
from desktop.core.wire import RowKind, WireEvent

GONE_REASONS = frozenset({"not_found", "permission_denied", "profile_mismatch"})
CLARIFY_KIND = "clarify"


def _approval(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    if payloads.text(frame.payload, "kind") == CLARIFY_KIND:
        return canonical_prompt(frame.session_id, frame.payload, frame.params)
    return prompt_event_approval(adapter, frame)


def _clarify(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return canonical_prompt(frame.session_id, frame.payload, frame.params)


class CanonicalAdapter(DialectAdapter):
    dialect: ClassVar[Dialect | None] = Dialect.C
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.PROMPT, RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": _approval,
        "approval.settled": approval_settled,
        "clarify.request": _clarify,
        "clarify.settled": approval_settled,
        "request.cancel": request_cancel,
    }

    def __init__(self, max_command_chars: int, resume_source: str = "") -> None:
        super().__init__(max_command_chars)
        self.resume_source = resume_source

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """``resolved`` → our decision took; ``already_resolved`` → someone else's did."""
        status = payloads.text(result, "status") if result is not None else ""
        if status == "resolved":
            return outcomes.decided(choice)
        if status == "already_resolved" or reason == "not_found":
            return outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
        return outcomes.unknown()

    def resume_params(self, session: SessionState, source: str) -> dict[str, Any] | None:
        """``{session_id}`` (the durable id); ``source`` only when configured (closed keys)."""
        params: dict[str, Any] = {"session_id": session.session_id}
        if self.resume_source:
            params["source"] = self.resume_source
        return params

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> list[WireEvent] | None:
        """``prompts[]`` (plus any ``open_requests``) of a snapshot; None if neither is listed."""
        prompts = payloads.objects(snapshot, "prompts")
        requests = payloads.objects(snapshot, "open_requests")
        if prompts is None and requests is None:
            return None
        session_id = payloads.text(snapshot, "session_id")
        events: list[WireEvent] = []
        for prompt in prompts or []:
            frame = EventFrame("approval.request", session_id, prompt, snapshot)
            events.extend(_approval(self, frame))
        return events + redelivered(self, requests or [])
