"""Before the handshake fixes the dialect: read everything, answer nothing.

Why: frames can arrive between ``gateway.ready`` and the ``client.capabilities`` answer (or on
a gateway that is slow to say). Approvals seen then are queued as rows, recognised by shape
(an event with ``prompt_id`` is canonical, one without is 0.19.0, a server request is B), but
:attr:`answers` is empty, so none of them can be answered until the dialect is known.
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
from desktop.core.jsonrpc import EventFrame
from desktop.core.wire import WireEvent


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
