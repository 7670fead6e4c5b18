"""Ask the gateway for a session again: after a reconnect, a replay gap, or on request.

A new socket is a new viewer. tui_gateway streams a session only
to the socket that last created/resumed it (and reaps orphans after 20 s), and a canonical
gateway streams only to connections that resumed it, so every followed session must be resumed
after each handshake (protocol.md §5 "Reconnect"). Params per dialect: tui_gateway takes the
*stored* id with ``source: "desktop"`` and ``close_on_disconnect: false``; the canonical gateway
takes its durable ``session_id`` and a closed key set (``source`` only if configured).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.model import Dialect
from desktop.core.outbox import Purpose

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

RESUME_METHOD = "session.resume"
PENDING_METHOD = "approval.pending"
POLLS_PENDING = (Dialect.B, Dialect.HERMES020)


def resume(core: GatewayCore, session_id: str, purpose: Purpose = Purpose.RESUME) -> int | None:
    """Queue ``session.resume`` for ``session_id``; its snapshot is folded in on answer.

    Returns the request id, or None when not connected, before the handshake, or when the
    session cannot be resumed (tui_gateway needs its stored id).
    """
    session = core.session_book.get(session_id)
    if session is None or not core.connected or not core.handshake.done:
        return None
    params = core.adapter.resume_params(session, core.settings.session_source)
    if params is None:
        return None
    frame = core.outbox.request(
        RESUME_METHOD,
        params,
        purpose,
        core.epoch,
        watermark=core.lifecycle.last_seq,
        session_id=session_id,
    )
    return frame.rpc_id


def resubscribe_all(core: GatewayCore) -> None:
    """After a handshake: resume every followed session."""
    for session in core.session_book.followed():
        resume(core, session.session_id)


def poll_while_open(core: GatewayCore) -> None:
    """0.20 says nothing when a request ends: ask its pending list while its rows are open.

    Every ``pending_poll_interval`` seconds, for each session with an open 0.20 row, unless a
    list for it is already on its way; never while nothing is open.
    """
    sessions = core.lifecycle.by_id if core.dialect is Dialect.HERMES020 else frozenset()
    if not sessions or not core.connected:
        core.poll_at = None
        return
    now = core.clock()
    if core.poll_at is None:
        core.poll_at = now + core.settings.pending_poll_interval
    elif now >= core.poll_at:
        core.poll_at = now + core.settings.pending_poll_interval
        for session_id in sorted(sessions):
            if not core.outbox.awaits(Purpose.PENDING, session_id):
                poll_pending(core, session_id)


def poll_pending(core: GatewayCore, session_id: str) -> int | None:
    """B and 0.20: ask ``approval.pending`` which requests still wait (others end)."""
    if core.dialect not in POLLS_PENDING or core.session_book.get(session_id) is None:
        return None
    frame = core.outbox.request(
        PENDING_METHOD,
        {"session_id": session_id},
        Purpose.PENDING,
        core.epoch,
        watermark=core.lifecycle.last_seq,
        session_id=session_id,
    )
    return frame.rpc_id
