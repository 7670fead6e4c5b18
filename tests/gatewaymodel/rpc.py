"""Requests in, responses out: the dispatcher and the helpers every handler shares.

Handlers are plain functions ``(Ctx) -> result``. They raise :class:`~wire.RpcError` to answer
with an error, and use :meth:`Ctx.later` for side effects that the real gateway sends *after* the
reply (``session.info`` after ``session.create``, ``request.cancel`` after ``approval.respond``).
Tests may delay responses per method (:attr:`Dispatcher.delay_for`) to exercise a client's
out-of-order handling, as tui_gateway's thread-pool handlers do for real.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.gatewaymodel import wire
from tests.gatewaymodel.connection import Connection
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import Session, Viewer
from tests.gatewaymodel.world import World

log = logging.getLogger(__name__)


@dataclass
class Ctx:
    """One request being handled."""

    world: World
    conn: Connection
    params: dict[str, Any]
    method: str = ""
    after: list[Callable[[], object]] = field(default_factory=list)

    def later(self, action: Callable[[], object]) -> None:
        """Run ``action`` right after the response is queued."""
        self.after.append(action)

    @property
    def dialect(self) -> Dialect:
        """The server's dialect."""
        return self.world.dialect


Handler = Callable[[Ctx], Any]


def not_found(ctx: Ctx, code: int = 4001, message: str = "session not found") -> wire.RpcError:
    """The 'no such session' error in this dialect's shape."""
    if ctx.dialect is Dialect.C:
        return wire.canonical_error("not_found")
    return wire.RpcError(code, message)


def require_session(ctx: Ctx, key: str = "session_id") -> Session:
    """The live session named by ``params[key]``, or the dialect's not-found error."""
    session = ctx.world.find_session(ctx.params.get(key))
    if session is None:
        raise not_found(ctx)
    return session


def closed_keys(ctx: Ctx, allowed: Iterable[str], required: Iterable[str] = ()) -> None:
    """C's closed key sets: any extra or missing key is ``invalid_params``."""
    allowed_set = set(allowed)
    if set(ctx.params) - allowed_set or any(k not in ctx.params for k in required):
        raise wire.canonical_error("invalid_params")


def attach(world: World, session: Session, conn: Connection) -> Viewer:
    """Make ``conn`` a viewer of ``session``, per dialect.

    A: the single owner is replaced (the previous viewer loses the stream). B: one more viewer in
    the fan-out. C: a fresh subscription for this connection (also un-retires it after a gap).
    """
    viewer = Viewer(conn)
    if world.dialect is Dialect.A:
        session.viewers.clear()
    session.viewers[conn.index] = viewer
    world.changed()
    return viewer


class Dispatcher:
    """Routes one parsed client message to its handler and queues the reply."""

    def __init__(self, world: World, handlers: dict[str, Handler]) -> None:
        self.world = world
        self.handlers = handlers
        self.delay_for: Callable[[Connection, str], float] = lambda conn, method: 0.0

    def handle(self, conn: Connection, incoming: wire.Incoming) -> None:
        """Handle one message (requests answered, responses routed, the rest ignored)."""
        if incoming.kind in ("blank", "notification"):
            return
        if incoming.kind == "invalid":
            assert incoming.reply is not None
            conn.send(wire.error(incoming.rpc_id, incoming.reply))
            return
        if incoming.kind == "response":
            self.world.reqs.on_response(conn.index, incoming)
            return
        ctx = Ctx(self.world, conn, incoming.params, incoming.method)
        frame = self._call(ctx, incoming)
        delay = self.delay_for(conn, incoming.method)
        if delay:
            self.world.spawn(self._reply_later(conn, frame, ctx, delay))
        else:
            self._reply(conn, frame, ctx)

    def _call(self, ctx: Ctx, incoming: wire.Incoming) -> dict[str, Any]:
        handler = self.handlers.get(incoming.method)
        if handler is None:
            if ctx.dialect is Dialect.C:
                err = wire.RpcError(-32601, "unknown_method", {"reason": "unknown_method"})
            else:
                err = wire.RpcError(-32601, f"unknown method: {incoming.method}")
            return wire.error(incoming.rpc_id, err)
        try:
            return wire.result(incoming.rpc_id, handler(ctx))
        except wire.RpcError as err:
            ctx.after.clear()
            return wire.error(incoming.rpc_id, err)
        except Exception:
            log.exception("fake gateway handler %s crashed", incoming.method)
            ctx.after.clear()
            return wire.error(incoming.rpc_id, wire.RpcError(-32603, "dispatch crash"))

    def _reply(self, conn: Connection, frame: dict[str, Any], ctx: Ctx) -> None:
        conn.send(frame)
        for action in ctx.after:
            action()
        self.world.changed()

    async def _reply_later(
        self, conn: Connection, frame: dict[str, Any], ctx: Ctx, delay: float
    ) -> None:
        await self.world.clock.sleep(delay)
        self._reply(conn, frame, ctx)
