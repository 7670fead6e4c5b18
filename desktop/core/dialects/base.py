"""What differs between the gateways' protocols: one stateless adapter per dialect.

Events every dialect shapes alike are read in ``desktop.core.wire_effects``; an adapter reads
approvals and prompts with their withdrawals, judges the reply to a decision it carried by RPC,
and knows how its sessions are resumed and what their snapshots and pending lists hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from desktop.core.dialects.approval_frames import server_request_approval
from desktop.core.dialects.prompt_frames import PROMPT_METHODS, server_request_prompt
from desktop.core.jsonrpc import METHOD_NOT_FOUND, EventFrame, ServerRequestFrame, excerpt
from desktop.core.model import Choice, Dialect, Outcome, SessionState
from desktop.core.wire import RowKind, ServerRequestRefused, WireEvent

EventHandler = Callable[["DialectAdapter", EventFrame], list[WireEvent]]


class DialectAdapter:
    dialect: ClassVar[Dialect | None] = None
    answers: ClassVar[frozenset[RowKind]] = frozenset()
    event_handlers: ClassVar[dict[str, EventHandler]] = {}

    def __init__(self, max_command_chars: int) -> None:
        self.max_command_chars = max_command_chars

    def parse_server_request(self, frame: ServerRequestFrame) -> list[WireEvent]:
        """Approvals become rows, clarify/sudo/secret prompts; the rest is refused (-32601)."""
        if frame.method == "approval":
            return server_request_approval(frame, self.max_command_chars)
        if frame.method in PROMPT_METHODS:
            return server_request_prompt(frame)
        message = f"the tray does not handle {excerpt(frame.method, 60)}"
        return [ServerRequestRefused(frame.request_id, frame.method, METHOD_NOT_FOUND, message)]

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """The final outcome of an RPC-carried decision from its result or error."""
        raise NotImplementedError

    def resume_params(self, session: SessionState, source: str) -> dict[str, Any] | None:
        """``session.resume`` params (tui_gateway: the *stored* id), or None when it cannot be."""
        if not session.stored_session_id:
            return None
        return {
            "session_id": session.stored_session_id,
            "source": source,
            "close_on_disconnect": False,
        }

    def pending_requests(self, session_id: str, items: list[Mapping[str, Any]]) -> list[WireEvent]:
        """Rows an ``approval.pending`` list shows that the tray may not know yet (0.20 only)."""
        return []

    def snapshot_prompts(self, snapshot: Mapping[str, Any]) -> list[WireEvent]:
        """Questions a resume snapshot lists apart from its requests (0.20's pending_clarify)."""
        return []

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> list[WireEvent] | None:
        """The open requests a snapshot re-delivers; None if it lists none (0.19.0 lists none)."""
        return None
