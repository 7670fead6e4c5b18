"""One connection's handshake, and the requests the core sends on its own over it.

The dialect is fixed by the handshake, never guessed mid-session (protocol.md §1.2-1.3, §6.2):
the ``hermes-gateway-v1`` subprotocol echoed means canonical (C) at once; otherwise, after
``gateway.ready``, ``client.capabilities {"server_requests": true}`` answered means main
tui_gateway (B). Any error means 0.19.0 (A: it has no such method, and its FIFO-head rule is
the strictest guess), unless the ready frame said ``change_events`` (0.19.0 never does): 0.20.

A new socket is a new viewer: tui_gateway streams a session only to the socket that last
created or resumed it (and reaps orphans after 20 s), canonical only to connections that
resumed it, so every followed session is resumed after each handshake (protocol.md §5).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from desktop.core import payloads
from desktop.core.model import Dialect
from desktop.core.outbox import Purpose

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

CANONICAL_SUBPROTOCOL = "hermes-gateway-v1"
CAPABILITIES_METHOD = "client.capabilities"
CAPABILITIES_PARAMS: Mapping[str, Any] = {"server_requests": True}
POLLS_PENDING = (Dialect.B, Dialect.HERMES020)


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
        self.declines_not_shown = False  # B counts a 4404 decline (``window_requests``)

    @property
    def done(self) -> bool:
        return self.stage is Stage.DONE

    def opened(self, subprotocol: str | None) -> bool:
        """A new connection; True when the subprotocol alone fixed the dialect (C)."""
        self.dialect, self.replay_epoch, self.server_requests = None, "", ()
        self.change_events = self.declines_not_shown = False
        if subprotocol == CANONICAL_SUBPROTOCOL:
            self.stage, self.dialect = Stage.DONE, Dialect.C
            return True
        self.stage = Stage.AWAITING_READY
        return False

    def ready(self, payload: Mapping[str, Any]) -> bool:
        """``gateway.ready`` arrived; True when ``client.capabilities`` must now be asked."""
        self.replay_epoch = payloads.text(payload, "replay_epoch") or self.replay_epoch
        if self.stage is not Stage.AWAITING_READY:
            return False
        self.change_events = "change_events" in payload
        self.stage = Stage.AWAITING_CAPABILITIES
        return True

    def capabilities(self, result: Mapping[str, Any] | None) -> Dialect:
        """The ``client.capabilities`` answer (None for an error response) fixes the dialect."""
        if result is None:
            self.dialect = Dialect.HERMES020 if self.change_events else Dialect.A
        else:
            self.dialect = Dialect.B
            self.server_requests = payloads.strings(result, "server_requests")
            self.declines_not_shown = payloads.flag(result, "declines_not_shown") is True
        self.stage = Stage.DONE
        return self.dialect

    def closed(self) -> None:
        self.stage = Stage.CLOSED


def resume(core: GatewayCore, session_id: str, purpose: Purpose = Purpose.RESUME) -> int | None:
    """Queue ``session.resume`` (its snapshot is folded in on answer); None if it cannot go."""
    session = core.session_book.get(session_id)
    if session is None or not core.connected or not core.handshake.done:
        return None
    params = core.adapter.resume_params(session, core.settings.session_source)
    if params is None:  # tui_gateway needs the stored id
        return None
    return _ask(core, "session.resume", params, purpose, session_id)


def resubscribe_all(core: GatewayCore) -> None:
    for session in core.session_book.followed():
        resume(core, session.session_id)


def poll_while_open(core: GatewayCore) -> None:
    """Ask the pending list of every session with rows open that only a list can close.

    0.20 says nothing when a request ends, and tui_gateway tells no other viewer when one
    answers by a response frame: every ``open_poll_interval``, on a grid, unless a list for it
    is already on its way. Only followed sessions: those the tray only observes are on their own
    plan (``observed``), the rows of others are read-only; with no such row open nothing is asked.
    """
    book = core.session_book
    polled = core.lifecycle.polled if core.dialect in POLLS_PENDING and core.connected else ()
    sessions = sorted(s for s in polled if book.is_followed(s) and not book.is_observed(s))
    if not sessions:
        core.poll_at = None
        return
    now = core.clock()
    if core.poll_at is not None and now >= core.poll_at:
        for session_id in sessions:
            poll_pending(core, session_id)
    if core.poll_at is None or now >= core.poll_at:
        core.poll_at = next_on_grid(now, core.settings.open_poll_interval)


def next_on_grid(now: float, interval: float) -> float:
    """The first multiple of ``interval`` after ``now``: sessions on one plan are asked together."""
    return (math.floor(now / interval) + 1) * interval


def poll_pending(core: GatewayCore, session_id: str) -> int | None:
    """B and 0.20: ask ``approval.pending`` which requests still wait (others end).

    None when it cannot be asked, or a list asked for the session is still on its way (its
    answer judges every row that arrived before it).
    """
    if core.dialect not in POLLS_PENDING or core.session_book.get(session_id) is None:
        return None
    if core.outbox.awaits(Purpose.PENDING, session_id):
        return None
    return _ask(core, "approval.pending", {"session_id": session_id}, Purpose.PENDING, session_id)


def _ask(
    core: GatewayCore, method: str, params: Mapping[str, Any], purpose: Purpose, session_id: str
) -> int | None:
    """A request whose answer judges only the rows that arrived before it (its watermark)."""
    watermark = core.lifecycle.last_seq
    frame = core.outbox.request(
        method, params, purpose, core.epoch, watermark=watermark, session_id=session_id
    )
    return frame.rpc_id
