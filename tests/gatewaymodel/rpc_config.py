"""Config and the small verbs: YOLO, approvals.mode, ping, capabilities, prompt.submit.

YOLO on A/B (protocol.md §3.7): ``config.set {session_id, key: "yolo", value?, scope?}``; values
``1|on|true|yes`` / ``0|off|false|no``, anything else (or none) toggles; ``scope: "global"``
writes ``approvals.mode`` off/manual for every session. Without ``session_id`` 0.19.0 flips an
environment variable that does nothing: the fake answers the same way and changes nothing.
C has a closed key set (no ``scope``) and no ``config.set approvals.mode``.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import wire
from tests.gatewaymodel.agent import start_turn
from tests.gatewaymodel.dialect import PUBLIC_SUBPROTOCOL, Dialect, b_capabilities
from tests.gatewaymodel.rpc import Ctx, Handler, attach, closed_keys, require_session
from tests.gatewaymodel.rpc_sessions import C_CREATE_KEYS, C_SOURCES
from tests.gatewaymodel.world import APPROVAL_MODES, World

_ON = ("1", "on", "true", "yes")
_OFF = ("0", "off", "false", "no")


def parse_switch(value: Any, current: bool) -> bool:
    """A YOLO value: on/off words, booleans, or anything else to toggle."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    if text in _ON:
        return True
    if text in _OFF:
        return False
    return not current


def _flag(on: bool) -> str:
    return "1" if on else "0"


def _info_to_all(world: World) -> None:
    for session in list(world.sessions.values()):
        world.pub.send_info(session)


def config_set(ctx: Ctx) -> Any:
    """``config.set`` for ``yolo`` and (A/B) ``approvals.mode``."""
    world, params = ctx.world, ctx.params
    key = params.get("key")
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, ("session_id", "key", "value", "profile"), ("session_id", "key"))
        if key != "yolo":
            raise wire.canonical_error("invalid_params")
        target = require_session(ctx)
        target.yolo = parse_switch(params.get("value"), target.yolo)
        return {"key": "yolo", "value": _flag(target.yolo), "scope": "session"}
    if key == "yolo":
        if params.get("scope") == "global":
            on = parse_switch(params.get("value"), world.policy.approvals_mode == "off")
            world.policy.approvals_mode = "off" if on else "manual"
            ctx.later(lambda: _info_to_all(world))
            return {"key": "yolo", "value": _flag(on), "scope": "global"}
        session = world.find_session(params.get("session_id"))
        if session is None:  # 0.19.0 flips a frozen env var: a reply, and no effect at all
            return {"key": "yolo", "value": _flag(parse_switch(params.get("value"), False))}
        session.yolo = parse_switch(params.get("value"), session.yolo)
        ctx.later(lambda: world.pub.send_info(session))
        return {"key": "yolo", "value": _flag(session.yolo), "scope": "session"}
    if key in ("approvals.mode", "approval_mode"):
        value = params.get("value")
        if value not in APPROVAL_MODES:
            raise wire.RpcError(4002, f"invalid approvals.mode: {value}")
        world.policy.approvals_mode = str(value)
        ctx.later(lambda: _info_to_all(world))
        return {"key": "approvals.mode", "value": value}
    raise wire.RpcError(4002, f"unknown config key: {key}")


def config_get(ctx: Ctx) -> Any:
    """``config.get``: ``approvals.mode`` everywhere; ``yolo`` only on C (A/B answer 4002).

    A/B also answer ``profile`` with ``{home, display}`` when the fake was given a HERMES_HOME
    (0.19.0 server.py: ``config.get profile``); the timeout itself has no key there.
    """
    world, key = ctx.world, ctx.params.get("key")
    if ctx.dialect is Dialect.C:
        closed_keys(ctx, ("session_id", "key", "profile"), ("key",))
        if key == "yolo":
            return {"key": "yolo", "value": _flag(require_session(ctx).yolo)}
        if key == "approvals.mode":
            return {"key": "approvals.mode", "value": world.policy.approvals_mode}
        raise wire.canonical_error("invalid_params")
    if key in ("approvals.mode", "approval_mode"):
        return {"value": world.policy.approvals_mode}
    if key == "profile" and world.policy.hermes_home:
        return {"home": world.policy.hermes_home, "display": world.policy.hermes_home}
    raise wire.RpcError(4002, f"unknown config key: {key}")


def prompt_submit(ctx: Ctx) -> Any:
    """``prompt.submit {session_id, text}``: start the scripted turn for ``text``."""
    world = ctx.world
    session = require_session(ctx)
    if ctx.dialect is Dialect.A:
        attach(world, session, ctx.conn)  # 0.19.0: the last to prompt owns the stream
    text = str(ctx.params.get("text") or "")
    status = start_turn(world, session, text)
    if ctx.dialect is Dialect.B and status == "streaming":
        return {"status": status, "user_row_id": len(session.messages) + 1}
    return {"status": status}


def capabilities(ctx: Ctx) -> Any:
    """B ``client.capabilities``: without ``server_requests: true`` approvals are withdrawn."""
    ctx.conn.record.server_requests = ctx.params.get("server_requests") is True
    return b_capabilities(ctx.params.get("server_requests"))


def describe(ctx: Ctx) -> Any:
    """C ``runtime.describe``."""
    world = ctx.world
    return {
        "instance_id": world.instance_id,
        "profile_id": "default",
        "authority_epoch": world.authority_epoch,
        "capabilities": ["session-authority-v1"],
        "protocol": PUBLIC_SUBPROTOCOL,
        "session_create": {"sources": list(C_SOURCES), "parameters": list(C_CREATE_KEYS)},
    }


def handlers(dialect: Dialect) -> dict[str, Handler]:
    """Config and small verbs for this dialect."""
    table: dict[str, Handler] = {
        "ping": lambda ctx: {"pong": True},
        "config.set": config_set,
        "config.get": config_get,
        "prompt.submit": prompt_submit,
    }
    if dialect is Dialect.B:
        table.update(
            {"client.capabilities": capabilities, "gateway.ping": lambda ctx: {"ok": True}}
        )
    if dialect is Dialect.C:
        table["runtime.describe"] = describe
    return table
