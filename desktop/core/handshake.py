"""Fix the dialect of one connection from its handshake, never by guessing mid-session.

Rules (protocol.md §1.2-1.3, §6.2):

* The canonical gateway is dialled with the ``hermes-gateway-v1`` subprotocol and echoes it:
  that alone fixes dialect C, at once (whether or not a ``gateway.ready`` follows).
* Otherwise the tray waits for ``gateway.ready`` and then asks ``client.capabilities
  {"server_requests": true}``. A result means main tui_gateway (B), which from then on sends
  approvals as server requests; ``-32601`` means 0.19.0 (A), which has no such method. Any
  other error is read as A too: A's rules (answer only the FIFO head) are the strictest.
* hermes-agent 0.20 also refuses ``client.capabilities`` (-32601) but says
  ``change_events`` in its ``gateway.ready``, which 0.19.0 never sends: that fixes
  HERMES020, whose approvals carry a ``request_id`` that its ``approval.respond`` honours.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from desktop.core import payloads
from desktop.core.model import Dialect

CANONICAL_SUBPROTOCOL = "hermes-gateway-v1"
CAPABILITIES_METHOD = "client.capabilities"
CAPABILITIES_PARAMS: Mapping[str, Any] = {"server_requests": True}


class Stage(enum.Enum):
    CLOSED = "closed"  # no connection
    AWAITING_READY = "awaiting gateway.ready"
    AWAITING_CAPABILITIES = "awaiting client.capabilities"
    DONE = "done"


class Handshake:
    """The handshake of the current connection."""

    def __init__(self) -> None:
        self.stage = Stage.CLOSED
        self.dialect: Dialect | None = None
        self.replay_epoch = ""
        self.server_requests: tuple[str, ...] = ()
        self.change_events = False

    @property
    def done(self) -> bool:
        return self.stage is Stage.DONE

    def opened(self, subprotocol: str | None) -> bool:
        """A new connection; True when the subprotocol alone fixed the dialect (C)."""
        self.dialect, self.replay_epoch, self.server_requests = None, "", ()
        self.change_events = False
        if subprotocol == CANONICAL_SUBPROTOCOL:
            self.stage, self.dialect = Stage.DONE, Dialect.C
            return True
        self.stage = Stage.AWAITING_READY
        return False

    def ready(self, payload: Mapping[str, Any]) -> bool:
        """``gateway.ready`` arrived; True when ``client.capabilities`` must now be asked."""
        self.replay_epoch = payloads.text(payload, "replay_epoch") or self.replay_epoch
        if self.stage is Stage.AWAITING_READY:
            self.change_events = "change_events" in payload
        if self.stage is not Stage.AWAITING_READY:
            return False
        self.stage = Stage.AWAITING_CAPABILITIES
        return True

    def capabilities(self, result: Mapping[str, Any] | None) -> Dialect:
        """The ``client.capabilities`` answer (None for an error response) fixes A or B."""
        if result is None:
            self.dialect = Dialect.HERMES020 if self.change_events else Dialect.A
        else:
            self.dialect = Dialect.B
            self.server_requests = payloads.strings(result, "server_requests")
        self.stage = Stage.DONE
        return self.dialect

    def closed(self) -> None:
        self.stage = Stage.CLOSED
