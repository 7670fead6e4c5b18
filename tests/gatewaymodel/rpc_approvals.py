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

from tests.gatewaymodel import approval_rules as rules
from tests.gatewaymodel import wire
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.rpc import Ctx, Handler, closed_keys, require_session


def respond_a(ctx: Ctx) -> Any:
    """0.19.0: FIFO head (or all), any choice string but "deny" approves, missing denies."""
    session = require_session(ctx)
    targets = rules.a_targets(ctx.world.open_approvals(session), ctx.params)
    choice = ctx.params.get("choice")
    for req in targets:
        ctx.world.reqs.answer(req, choice, via=rules.Ending.RPC)
    return {"resolved": len(targets)}


def respond_b(ctx: Ctx) -> Any:
    """Main tui_gateway: by request_id, else the head; cancels go out after the reply."""
    world, params = ctx.world, ctx.params
    targets = rules.b_respond_targets(
        (r for r in world.open_requests() if r.method == "approval"),
        lambda: world.open_approvals(require_session(ctx)),
        params,
    )
    choice = params.get("choice")
    for req in targets:
        ctx.later(partial(world.reqs.answer, req, choice, via=rules.Ending.RPC))
    return {"resolved": len(targets)}


def respond_c(ctx: Ctx) -> Any:
    """Canonical: the exact prompt of the exact generation, with an offered choice."""
    closed_keys(ctx, rules.C_RESPOND_KEYS, rules.C_RESPOND_KEYS)
    world, params = ctx.world, ctx.params
    session = require_session(ctx)
    approvals = (r for r in world.requests if r.method == "approval")
    answer = rules.c_respond(approvals, session, params)
    if answer.error:
        raise wire.canonical_error(answer.error)
    req = answer.found
    if answer.resolves and req is not None:
        ctx.later(lambda: world.reqs.answer(req, params["choice"], via=rules.Ending.RPC))
    return answer.result


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
