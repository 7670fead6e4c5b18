"""Read the frames that take an open request away: ``request.cancel`` and ``approval.settled``.

Why shared: main tui_gateway sends ``request.cancel`` (B), canonical gateways send
``approval.settled`` and may also send ``request.cancel`` for their server requests (seed 004).
hermes-peer.md measured where B puts the fields: ``{id, method, reason}`` in ``params.payload``
(protocol.md §3.3 suggested ``params``); both places are read, the payload first.
"""

from __future__ import annotations

from desktop.core import payloads
from desktop.core.jsonrpc import EventFrame
from desktop.core.wire import PromptSettled, RequestCancelled, WireEvent


def request_cancel(frame: EventFrame) -> list[WireEvent]:
    """``request.cancel``: which server request was withdrawn, and why."""
    source = frame.payload if "id" in frame.payload else frame.params
    reply_id = payloads.wire_id(source.get("id"))
    if reply_id is None:
        return []
    method = payloads.text(source, "method")
    return [RequestCancelled(frame.session_id, reply_id, method, payloads.text(source, "reason"))]


def approval_settled(frame: EventFrame) -> list[WireEvent]:
    """``approval.settled {prompt_id, execution_generation}``; an expiry if it says so."""
    prompt_id = payloads.text(frame.payload, "prompt_id")
    if not prompt_id:
        return []
    why = (payloads.text(frame.payload, "reason") + payloads.text(frame.payload, "status")).lower()
    generation = payloads.integer(frame.payload, "execution_generation")
    expired = "expire" in why or "timeout" in why
    return [PromptSettled(frame.session_id, prompt_id, expired, generation)]
