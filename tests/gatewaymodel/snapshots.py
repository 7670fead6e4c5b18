"""Session snapshots: what ``session.resume`` (and C's ``session.create``) return.

A (0.19.0): ``{info, message_count, messages, running, session_id, session_key, started_at,
status, inflight?, resumed}``; approvals are *not* in it and are not re-sent. B adds
``stored_session_id``, ``open_requests`` (the unanswered ``srq-`` frames, to re-deliver as new),
``pending_approval`` (the oldest), ``todo_state`` and ``turn_started_at``. C returns the canonical
snapshot with ``subscription_id``, ``execution_generation``, ``prompts[]`` and ``todo_state``.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import approval_rules
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import Session, Viewer
from tests.gatewaymodel.world import World


def status(world: World, session: Session) -> str:
    """``idle|working|waiting``; 0.19.0 never counts approvals as waiting."""
    waiting = bool(world.open_requests(session))
    return approval_rules.session_status(world.dialect, running=session.running, waiting=waiting)


def tui_snapshot(world: World, session: Session) -> dict[str, Any]:
    """The ``session.resume``/``session.activate`` result on A and B."""
    snap: dict[str, Any] = {
        "info": world.pub.info(session),
        "message_count": len(session.messages),
        "messages": list(session.messages),
        "running": session.running,
        "session_id": session.sid,
        "session_key": session.stored_id,
        "started_at": session.started_at,
        "status": status(world, session),
        "resumed": session.stored_id,
    }
    if session.running:
        snap["inflight"] = {
            "assistant": session.inflight_assistant,
            "streaming": True,
            "user": session.inflight_user,
        }
    if world.dialect is Dialect.B:
        snap.update(
            stored_session_id=session.stored_id,
            messages_omitted=False,
            turn_started_at=session.turn_started_at,
            **redelivery(world, session),
        )
        if session.todo_revision:
            snap["todo_state"] = {
                "todos": [dict(t) for t in session.todos],
                "revision": session.todo_revision,
            }
    return snap


def redelivery(world: World, session: Session) -> dict[str, Any]:
    """B: ``open_requests`` and ``pending_approval``, to be re-delivered after a reconnect."""
    unanswered = world.open_requests(session)
    return approval_rules.b_redelivery(
        (r.srq_id, r.method, world.reqs.b_params(r)) for r in unanswered
    )


def c_snapshot(world: World, session: Session, viewer: Viewer | None) -> dict[str, Any]:
    """The canonical snapshot (create/resume result)."""
    todo = (
        {"todos": [dict(t) for t in session.todos], "revision": session.todo_revision}
        if session.todo_revision
        else None
    )
    return {
        "session_id": session.sid,
        "stored_session_id": session.stored_id,
        "messages": list(session.messages),
        "message_count": len(session.messages),
        "running": session.running,
        "authority_epoch": world.authority_epoch,
        "replay_epoch": world.replay_epoch,
        "last_sequence": session.seq,
        "subscription_id": viewer.subscription_id if viewer else None,
        "revision": session.revision,
        "execution_generation": session.generation,
        "pending": [],
        "prompts": [world.reqs.c_payload(r) for r in world.open_approvals(session)],
        "todo_state": todo,
        "info": world.pub.info(session),
    }
