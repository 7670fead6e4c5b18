"""The newer tui_gateway with server→client requests (Dialect.B; protocol.md §3.3).

Approvals are ``approval`` server requests with ``srq-`` ids, answered by a response frame
that gets no reply; ``request.cancel`` withdraws one, and a resume snapshot re-delivers the
open ones in ``open_requests``. An ``approval.request`` *event* is shown but never answered
(an answer without an id could resolve another command).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from desktop.core import payloads
from desktop.core.dialects.approval_frames import fifo_event_approval, request_cancel
from desktop.core.dialects.base import DialectAdapter, EventHandler
from desktop.core.jsonrpc import ServerRequestFrame
from desktop.core.model import Dialect
from desktop.core.wire import RowKind, WireEvent


def redelivered(adapter: DialectAdapter, items: list[Mapping[str, Any]]) -> list[WireEvent]:
    """Snapshot ``open_requests`` items (``{id, method, params}``) handled as if new."""
    events: list[WireEvent] = []
    for item in items:
        request_id = payloads.wire_id(item.get("id"))
        method = payloads.text(item, "method")
        if request_id is None or not method:
            continue
        params = item.get("params", {})
        frame = ServerRequestFrame(request_id, method, params if isinstance(params, dict) else None)
        events.extend(adapter.parse_server_request(frame))
    return events


class TuiGatewayAdapter(DialectAdapter):
    dialect: ClassVar[Dialect | None] = Dialect.B
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": fifo_event_approval,
        "request.cancel": request_cancel,
    }

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> list[WireEvent] | None:
        """``open_requests`` of a resume/activate snapshot, or None when the key is absent."""
        items = payloads.objects(snapshot, "open_requests")
        return None if items is None else redelivered(self, items)
