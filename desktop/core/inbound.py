"""Frames in: one WebSocket message → classified frames → wire events → state.

Why the handshake is handled here and not in an adapter: ``gateway.ready`` decides which
adapter reads everything after it (protocol.md §1.3, §6.2), so it is read before any adapter.
"""

from __future__ import annotations

from desktop.core import jsonrpc
from desktop.core.core_state import CoreState
from desktop.core.handshake import CAPABILITIES_METHOD, CAPABILITIES_PARAMS
from desktop.core.jsonrpc import EventFrame, ResponseFrame, ServerRequestFrame
from desktop.core.outbox import Purpose
from desktop.core.responses import handle_response
from desktop.core.wire_effects import apply_wire


def receive(core: CoreState, data: str | bytes) -> None:
    """Feed one WebSocket message (several newline-separated objects are fine). Never raises."""
    frames = jsonrpc.parse_message(
        data, max_bytes=core.settings.max_frame_bytes, max_depth=core.settings.max_json_depth
    )
    for frame in frames:
        if isinstance(frame, EventFrame):
            _event(core, frame)
        elif isinstance(frame, ServerRequestFrame):
            for event in core.adapter.parse_server_request(frame):
                apply_wire(core, event)
        elif isinstance(frame, ResponseFrame):
            handle_response(core, frame)
        else:
            core.emit(frame)


def _event(core: CoreState, frame: EventFrame) -> None:
    if frame.type == "gateway.ready":
        if core.connected and core.handshake.ready(frame.payload):
            core.outbox.request(
                CAPABILITIES_METHOD, CAPABILITIES_PARAMS, Purpose.CAPABILITIES, core.epoch
            )
        return
    for event in core.adapter.parse_event(frame):
        apply_wire(core, event)
