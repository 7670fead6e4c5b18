"""Dialect adapters: one per Hermes gateway protocol (protocol.md §6), plus a provisional one.

Frames can arrive before the handshake fixed the dialect: the provisional adapter reads their
approvals by shape (an event with ``prompt_id`` is canonical, one without 0.19.0, a server
request B) and answers none of them until the dialect is known.
"""

from __future__ import annotations

from typing import ClassVar

from desktop.core.dialects.approval_frames import (
    approval_settled,
    fifo_event_approval,
    prompt_event_approval,
    request_cancel,
)
from desktop.core.dialects.base import DialectAdapter, EventHandler
from desktop.core.dialects.canonical import CanonicalAdapter
from desktop.core.dialects.hermes019 import Hermes019Adapter
from desktop.core.dialects.hermes020 import Hermes020Adapter
from desktop.core.dialects.tui_gateway import TuiGatewayAdapter
from desktop.core.jsonrpc import EventFrame
from desktop.core.model import Dialect
from desktop.core.settings import CoreSettings
from desktop.core.wire import WireEvent

__all__ = ["DialectAdapter", "adapter_for"]


def _approval(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    if "prompt_id" in frame.payload:
        return prompt_event_approval(adapter, frame)
    return fifo_event_approval(adapter, frame)


class ProvisionalAdapter(DialectAdapter):
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": _approval,
        "approval.settled": approval_settled,
        "request.cancel": request_cancel,
    }


def adapter_for(dialect: Dialect | None, settings: CoreSettings) -> DialectAdapter:
    """The adapter for ``dialect`` (None: the handshake has not fixed one yet)."""
    limit = settings.max_command_chars
    if dialect is Dialect.A:
        return Hermes019Adapter(limit)
    if dialect is Dialect.B:
        return TuiGatewayAdapter(limit)
    if dialect is Dialect.HERMES020:
        return Hermes020Adapter(limit)
    if dialect is Dialect.C:
        return CanonicalAdapter(limit, settings.canonical_resume_source)
    return ProvisionalAdapter(limit)
