"""Approval verbs: ``approval.respond`` in three dialects, plus B's pending/received/answer.

* A: ``{session_id, choice, all?}`` resolves the *oldest* pending approval (FIFO) or all of
  them; ``{resolved: n}``; nothing is sent for the card.
* B: ``{session_id, choice, request_id?, all?}``; with ``request_id`` exactly that entry (found
  even when ``session_id`` is stale), else the head; every entry resolved this way is withdrawn
  from every viewer with ``request.cancel {reason: "resolved"}``.
* C: exactly ``{session_id, execution_generation, prompt_id, choice}``, anything else is
  ``invalid_params``; ``choice`` must be one of the offered ones; ``approval.settled`` follows.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from desktop.demo import wire
from desktop.demo.dialect import Dialect
from desktop.demo.model import PendingRequest
from desktop.demo.rpc import Ctx, Handler, closed_keys, require_session

C_RESPOND_KEYS = ("session_id", "execution_generation", "prompt_id", "choice")


def respond_a(ctx: Ctx) -> Any:
    """0.19.0: FIFO head (or all), any choice string but "deny" approves, missing denies."""
    session = require_session(ctx)
    pending = ctx.world.open_approvals(session)
    targets = pending if ctx.params.get("all") else pending[:1]
    choice = ctx.params.get("choice")
    for req in targets:
        ctx.world.reqs.answer(req, choice, via="rpc")
    return {"resolved": len(targets)}


def respond_b(ctx: Ctx) -> Any:
    """Main tui_gateway: by request_id, else the head; cancels go out after the reply."""
    world, params = ctx.world, ctx.params
    request_id = params.get("request_id")
    targets: list[PendingRequest]
    if request_id:
        targets = [
            r
            for r in world.open_requests()
            if r.method == "approval" and r.request_id == request_id
        ][:1]
    else:
        pending = world.open_approvals(require_session(ctx))
        targets = pending if params.get("all") else pending[:1]
    choice = params.get("choice")
    for req in targets:
        ctx.later(partial(world.reqs.answer, req, choice, via="rpc", reason="resolved"))
    return {"resolved": len(targets)}


def respond_c(ctx: Ctx) -> Any:
    """Canonical: the exact prompt of the exact generation, with an offered choice."""
    closed_keys(ctx, C_RESPOND_KEYS, C_RESPOND_KEYS)
    world, params = ctx.world, ctx.params
    session = require_session(ctx)
    req = next(
        (
            r
            for r in world.requests
            if r.session is session
            and r.method == "approval"
            and r.prompt_id == params["prompt_id"]
        ),
        None,
    )
    if req is None or req.generation != params["execution_generation"]:
        raise wire.canonical_error("not_found")
    if not req.is_open:
        return {"status": "already_resolved", "prompt_id": req.prompt_id}
    if params["choice"] not in req.choices:
        raise wire.canonical_error("invalid_params")
    ctx.later(lambda: world.reqs.answer(req, params["choice"], via="rpc"))
    return {"status": "resolved", "prompt_id": req.prompt_id}


def pending(ctx: Ctx) -> Any:
    """B ``approval.pending``: the open approvals (for polling and reconciliation)."""
    session = require_session(ctx)
    return {"approvals": [ctx.world.reqs.b_pending(r) for r in ctx.world.open_approvals(session)]}


def received(ctx: Ctx) -> Any:
    """B ``approval.received``: the card is on screen (only marks the entry)."""
    session = require_session(ctx)
    for req in ctx.world.open_approvals(session):
        if req.request_id == ctx.params.get("request_id"):
            req.acknowledged = True
            return {"acknowledged": True}
    return {"acknowledged": False}


def request_answer(ctx: Ctx) -> Any:
    """B ``request.answer {id, result}``: answer an open request by RPC, like a response frame."""
    rpc_id = ctx.params.get("id")
    if not any(r.srq_id == rpc_id and r.is_open for r in ctx.world.requests):
        raise wire.RpcError(4009, "no pending request")
    raw = {"jsonrpc": "2.0", "id": rpc_id, "result": ctx.params.get("result")}
    incoming = wire.Incoming("response", raw, rpc_id, result=ctx.params.get("result"))
    ctx.later(lambda: ctx.world.reqs.on_response(ctx.conn.index, incoming))
    return {"status": "ok"}


def handlers(dialect: Dialect) -> dict[str, Handler]:
    """The approval verbs this dialect knows."""
    if dialect is Dialect.A:
        return {"approval.respond": respond_a}
    if dialect is Dialect.C:
        return {"approval.respond": respond_c}
    return {
        "approval.respond": respond_b,
        "approval.pending": pending,
        "approval.received": received,
        "request.answer": request_answer,
    }
