"""hermes-agent 0.20's tui_gateway (Dialect.HERMES020; the axisrow 0.20.1.2 build).

0.19.0's protocol, but each ``approval.request`` carries a 32-hex ``request_id`` and
``approval.respond {session_id, choice, request_id}`` resolves exactly that entry
(``{resolved: 1}``; an unknown id ``{resolved: 0}``), so rows are answered in any order.
Several wait at once (``delegate_task`` sub-agents ask on the parent session). Nothing on the
wire withdraws one on a timeout or an interrupt, nor do the parent's turn end or tool
completion: ``approval.pending {session_id}`` (every waiting entry, oldest first) and the
timeout end them. A resume lists only the oldest in ``pending_approval``, so snapshots
reconcile nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from desktop.core import payloads
from desktop.core.dialects.approval_frames import by_id_approval
from desktop.core.dialects.base import DialectAdapter, EventHandler
from desktop.core.dialects.hermes019 import PROMPT_EVENTS, Hermes019Adapter
from desktop.core.dialects.prompt_frames import event_prompt
from desktop.core.jsonrpc import EventFrame
from desktop.core.model import Dialect, PromptKind
from desktop.core.wire import RowKind, WireEvent


def _approval(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    return by_id_approval(frame.session_id, frame.payload, adapter.max_command_chars)


class Hermes020Adapter(Hermes019Adapter):
    dialect: ClassVar[Dialect | None] = Dialect.HERMES020
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.BY_ID})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": _approval,
        **PROMPT_EVENTS,
    }

    def snapshot_prompts(self, snapshot: Mapping[str, Any]) -> list[WireEvent]:
        """``pending_clarify``: the clarify still blocking the session, as its event was."""
        pending = payloads.mapping(snapshot, "pending_clarify")
        session_id = payloads.text(snapshot, "session_id")
        if pending is None or not session_id:
            return []
        frame = EventFrame("clarify.request", session_id, pending, snapshot)
        return event_prompt(PromptKind.CLARIFY, frame)

    def pending_requests(self, session_id: str, items: list[Mapping[str, Any]]) -> list[WireEvent]:
        """``approval.pending`` entries, as requests (new ones become rows, known ones match)."""
        events: list[WireEvent] = []
        for item in items:
            events.extend(by_id_approval(session_id, item, self.max_command_chars))
        return events
