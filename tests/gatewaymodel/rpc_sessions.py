"""Session verbs: create, resume/activate, list, close, interrupt, usage, replay, detach.

Shapes follow the transcripts for A (0.19.0) and B (0.22.2.post1) and protocol.md §2.3 for C.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import wire
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import Session, new_runtime_id, new_stored_id
from tests.gatewaymodel.rpc import Ctx, Handler, attach, closed_keys, require_session
from tests.gatewaymodel.snapshots import c_snapshot, redelivery, status, tui_snapshot
from tests.gatewaymodel.world import World

C_SOURCES = ("cli", "tui", "gui", "acp")
C_CREATE_KEYS = (
    "request_id",
    "source",
    "cwd",
    "model",
    "provider",
    "base_url",
    "api_key",
    "toolsets",
    "reasoning",
    "max_turns",
    "ignore_rules",
    "yolo",
    "safe_mode",
    "ignore_user_config",
    "editor",
    "title",
    "hidden",
    "follow_profile_config",
)
C_RESUME_KEYS = (
    "session_id",
    "title",
    "source",
    "editor",
    "defer_history",
    "omit_messages",
    "cols",
    "api_key",
)


def new_session(
    world: World,
    *,
    source: str | None = None,
    cwd: str | None = None,
    title: str = "",
    close_on_disconnect: bool = False,
    announce: bool = True,
) -> Session:
    """Create and register a session (also used by the fake's own ``create_session``).

    ``announce`` broadcasts B's ``sessions.changed`` now; ``session.create`` defers it until
    after its reply instead.
    """
    stored = new_stored_id()
    sid = stored if world.dialect is Dialect.C else new_runtime_id()
    session = Session(
        sid,
        stored,
        source=source or world.default_source,
        cwd=cwd or "~/project",
        title=title,
        close_on_disconnect=close_on_disconnect,
    )
    world.sessions[sid] = session
    if announce:
        world.pub.broadcast("sessions.changed")
    world.changed()
    return session


def create(ctx: Ctx) -> Any:
    """``session.create``: a new session, attached to the caller."""
    world, params = ctx.world, ctx.params
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, C_CREATE_KEYS)
        source = params.get("source", "cli")
        if source not in C_SOURCES:
            raise wire.canonical_error("invalid_params")
    else:
        source = params.get("source") or None
    session = new_session(
        world,
        source=source,
        cwd=params.get("cwd"),
        title=str(params.get("title") or ""),
        close_on_disconnect=bool(params.get("close_on_disconnect", False)),
        announce=False,
    )
    ctx.later(lambda: world.pub.broadcast("sessions.changed"))
    if ctx.dialect is Dialect.C:
        session.yolo = bool(params.get("yolo", False))
    viewer = attach(world, session, ctx.conn)
    if ctx.dialect is Dialect.C:
        return c_snapshot(world, session, viewer)
    if ctx.dialect is Dialect.A:
        ctx.later(lambda: world.pub.send_info(session))  # the agent builds after the reply
    return {
        "session_id": session.sid,
        "stored_session_id": session.stored_id,
        "message_count": 0,
        "messages": [],
        "info": world.pub.lazy_info(session),
    }


def resume(ctx: Ctx) -> Any:
    """``session.resume``/``session.activate``: attach to a live session, return its snapshot."""
    world, params = ctx.world, ctx.params
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, C_RESUME_KEYS)
        session = world.find_session(params.get("session_id") or params.get("title"))
        if session is None:
            raise wire.canonical_error("not_found")
        return c_snapshot(world, session, attach(world, session, ctx.conn))
    session = world.find_session(params.get("session_id"))
    if session is None:
        raise wire.RpcError(4007, "session not found")
    attach(world, session, ctx.conn)
    snapshot = tui_snapshot(world, session)
    if ctx.dialect is Dialect.B and params.get("omit_messages") is True:  # 0.19.0 ignores it
        snapshot.update(messages=[], messages_omitted=True)
    return snapshot


def list_sessions(ctx: Ctx) -> Any:
    """``session.list``: stored rows (A/B), the caller's live sessions (C)."""
    sessions = sorted(ctx.world.sessions.values(), key=lambda s: s.last_active, reverse=True)
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, ("limit", "title", "include_hidden"))
        return {
            "sessions": [
                {
                    "session_id": s.sid,
                    "id": s.sid,
                    "title": s.title,
                    "source": s.source,
                    "started_at": s.started_at,
                    "message_count": len(s.messages),
                    "running": s.running,
                }
                for s in sessions
            ],
            "scope": "live",
        }
    return {
        "sessions": [
            {
                "id": s.stored_id,
                "title": s.title,
                "preview": s.preview,
                "started_at": s.started_at,
                "message_count": len(s.messages),
                "source": s.source,
            }
            for s in sessions
        ]
    }


def active_list(ctx: Ctx) -> Any:
    """``session.active_list`` (A/B): live sessions in insertion order."""
    current = ctx.params.get("current_session_id")
    return {
        "sessions": [
            {
                "current": s.sid == current,
                "id": s.sid,
                "last_active": s.last_active,
                "message_count": len(s.messages),
                "model": s.model,
                "preview": s.preview,
                "session_key": s.stored_id,
                "started_at": s.started_at,
                "status": status(ctx.world, s),
                "title": s.title,
            }
            for s in ctx.world.sessions.values()
        ]
    }


def close_session(world: World, session: Session) -> None:
    """End a session: withdraw its requests, stop its turn, forget it."""
    world.reqs.withdraw_session(session, "closed")
    session.closed = True
    session.interrupt.set()
    session.viewers.clear()
    world.sessions.pop(session.sid, None)
    world.pub.broadcast("sessions.changed")
    world.changed()


def close(ctx: Ctx) -> Any:
    """``session.close``."""
    close_session(ctx.world, require_session(ctx))
    return {"closed": True, "messages": []}


def interrupt(ctx: Ctx) -> Any:
    """``session.interrupt``: end the turn; pending approvals end as the dialect says."""
    world = ctx.world
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, ("session_id", "execution_generation"), ("session_id",))
    session = require_session(ctx)
    generation = ctx.params.get("execution_generation")
    if ctx.dialect is Dialect.C and session.running and generation != session.generation:
        raise wire.canonical_error("stale_generation")
    if session.running:
        world.reqs.withdraw_session(session, "interrupted")
        session.interrupt.set()
    return {"status": "interrupted"}


def usage(ctx: Ctx) -> Any:
    """``session.usage`` RPC: the cumulative usage dict."""
    return dict(require_session(ctx).usage)


def events_since(ctx: Ctx) -> Any:
    """``session.events.since``: replay the session's event log after a watermark."""
    world, params = ctx.world, ctx.params
    if ctx.dialect is Dialect.C:
        closed_keys(
            ctx, ("session_id", "last_sequence", "last_seen", "replay_epoch"), ("session_id",)
        )
    session = require_session(ctx)
    last = params.get("last_sequence", params.get("last_seen", 0)) or 0
    if not isinstance(last, int) or isinstance(last, bool):
        if ctx.dialect is Dialect.C:
            raise wire.canonical_error("invalid_params")
        raise wire.RpcError(4002, "last_seen must be an integer")
    oldest = session.log[0]["seq"] if session.log else session.seq + 1
    truncated = last + 1 < oldest
    epoch_ok = params.get("replay_epoch") in (None, world.replay_epoch)
    events = [dict(e) for e in session.log if e["seq"] > last] if epoch_ok else []
    if ctx.dialect is Dialect.C:
        return {
            "events": events,
            "latest_seq": session.seq,
            "last_sequence": session.seq,
            "epoch": world.replay_epoch,
            "replay_epoch": world.replay_epoch,
            "truncated": truncated,
            "snapshot_required": truncated or not epoch_ok,
            "count": len(events),
        }
    return {
        "events": events,
        "latest_seq": session.seq,
        "truncated": truncated,
        "count": len(events),
        "epoch": world.replay_epoch,
        "open_requests": redelivery(world, session)["open_requests"],
    }


def detach(ctx: Ctx) -> Any:
    """C ``session.detach {session_id, subscription_id}``."""
    closed_keys(ctx, ("session_id", "subscription_id"), ("session_id", "subscription_id"))
    session = require_session(ctx)
    for index, viewer in list(session.viewers.items()):
        if viewer.subscription_id == ctx.params["subscription_id"]:
            del session.viewers[index]
            ctx.world.changed()
            return {"detached": True}
    raise wire.canonical_error("not_found")


def info(ctx: Ctx) -> Any:
    """C ``session.info {session_id}`` (exactly that key)."""
    closed_keys(ctx, ("session_id",), ("session_id",))
    return ctx.world.pub.info(require_session(ctx))


def handlers(dialect: Dialect) -> dict[str, Handler]:
    """The session verbs this dialect knows."""
    table: dict[str, Handler] = {
        "session.create": create,
        "session.resume": resume,
        "session.list": list_sessions,
        "session.close": close,
        "session.interrupt": interrupt,
        "session.usage": usage,
    }
    if dialect is not Dialect.C:
        table.update({"session.activate": resume, "session.active_list": active_list})
    if dialect is not Dialect.A:
        table["session.events.since"] = events_since
    if dialect is Dialect.C:
        table.update({"session.detach": detach, "session.info": info})
    return table
