"""Scripted faults: what goes wrong, and on which connection attempt.

Plan faults per handshake attempt with ``FakeGateway(attempt_faults=[...])`` or
``fake.plan_attempts(...)`` (index 0 = first handshake; ``None`` = behave), or trigger them on a
live connection with ``fake.drop()``, ``fake.stall()``, ``fake.send_garbage()``,
``fake.restart()``, ``fake.replay_gap()`` and ``fake.set_response_delay()``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, TypeAlias

GarbageKind = Literal[
    "not_json", "not_object", "bad_params", "bad_payload", "bad_id", "huge", "binary"
]


@dataclass(frozen=True)
class Refuse:
    """Refuse the opening handshake with an HTTP status (403 like a wrong token)."""

    status: int = 403


@dataclass(frozen=True)
class CloseOnOpen:
    """Accept, then close at once with ``code`` (4401: bad token/ticket, 4403: forbidden)."""

    code: int = 4401
    reason: str = "unauthorized"


@dataclass(frozen=True)
class DropAfter:
    """Abort the TCP connection (no close frame) once ``frames`` frames have been sent.

    ``frames=0`` drops before ``gateway.ready``; ``frames=1`` right after it.
    """

    frames: int = 1


@dataclass(frozen=True)
class StallAfter:
    """Stop reading and answering once ``frames`` frames have been sent (no pong either)."""

    frames: int = 1


@dataclass(frozen=True)
class Garbage:
    """Send one malformed message right after ``gateway.ready`` (see :func:`garbage`)."""

    kind: GarbageKind = "not_json"
    size: int = 9 * 1024 * 1024


@dataclass(frozen=True)
class DelayResponses:
    """Answer the listed methods (all when empty) ``seconds`` later, so replies overtake."""

    seconds: float = 0.5
    methods: tuple[str, ...] = ()


Fault: TypeAlias = Refuse | CloseOnOpen | DropAfter | StallAfter | Garbage | DelayResponses


def garbage(kind: GarbageKind, size: int = 9 * 1024 * 1024) -> str | bytes:
    """One malformed message.

    ``not_json``: text that is not JSON. ``not_object``: a JSON array. ``bad_params``: an event
    whose ``params`` is a string. ``bad_payload``: a ``session.info`` event whose payload has wrong
    types everywhere. ``bad_id``: a response to an id the client never used, with a list as
    ``result``. ``huge``: a valid event padded to ``size`` bytes (above the client's 8 MiB cap by
    default). ``binary``: a binary frame.
    """
    if kind == "not_json":
        return "{this is not json"
    if kind == "not_object":
        return json.dumps([1, 2, 3])
    if kind == "bad_params":
        return json.dumps({"jsonrpc": "2.0", "method": "event", "params": "session.info"})
    if kind == "bad_payload":
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "event",
                "params": {
                    "type": "session.info",
                    "session_id": 12345,
                    "payload": {"yolo": "maybe", "running": [], "usage": "lots", "title": {"x": 1}},
                },
            }
        )
    if kind == "bad_id":
        return json.dumps({"jsonrpc": "2.0", "id": {"nested": True}, "result": [1, 2]})
    if kind == "huge":
        pad = "x" * max(0, size)
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "event",
                "params": {"type": "notification.show", "session_id": "", "payload": {"text": pad}},
            }
        )
    return b"\x00\xff\x00garbage"
