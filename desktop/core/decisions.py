"""A person's decision: exactly one frame for exactly the request they saw — or nothing.

A decision frame that lands on the wrong request runs a command nobody
approved. So :func:`decide` refuses (``sent=False`` plus a reason, nothing queued) unless the
row is WAITING (or STALE and confirmed), answerable (0.19.0: the FIFO head, outside the safety
margin; always: connected, handshake done, a kind this gateway answers) and the choice is one
the server offered. The frame's fate then goes to the lifecycle, which never lets a second
one out (design.md §2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.events import RpcError, RpcResponded
from desktop.core.model import ApprovalPhase, Choice, DecisionResult
from desktop.core.outbox import Purpose
from desktop.core.wire import RowKind

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

CONNECTION_LOST = -32097  # local code: the connection went before the answer came


def decide(core: GatewayCore, key: str, choice: Choice, confirm_stale: bool) -> DecisionResult:
    row = core.lifecycle.get(key)
    if row is None:
        return DecisionResult(False, "no such approval (it may have ended long ago)")
    candidate: object = choice  # callers outside mypy may pass anything
    if not isinstance(candidate, Choice):
        return DecisionResult(False, "only once, session, always or deny can be sent")
    core.lifecycle.tick()
    if row.phase is ApprovalPhase.RESOLVED:
        kind = row.outcome.kind.value if row.outcome else "resolved"
        return DecisionResult(False, f"already {kind}")
    if row.phase is ApprovalPhase.SENDING:
        return DecisionResult(False, "an answer is already on its way")
    if not row.answerable:
        return DecisionResult(False, row.blocked_reason or "cannot be answered now")
    if row.phase is ApprovalPhase.STALE and not confirm_stale:
        return DecisionResult(False, f"{row.stale_reason} (confirm to answer anyway)")
    if choice not in row.asked.choices:
        return DecisionResult(False, f"{choice.value!r} is not offered for this command")
    # Rows only exist with the ids their kind is answered by (checked when parsed), so the
    # encoder's ValueError cannot happen here.
    if row.kind is RowKind.SERVER_REQUEST:
        text = core.adapter.decision_text(row.asked, choice, 0)
        frame = core.outbox.reply(text, core.epoch, approval_key=key)
    else:
        rpc_id = core.outbox.next_rpc_id()
        text = core.adapter.decision_text(row.asked, choice, rpc_id)
        frame = core.outbox.decision_request(rpc_id, text, core.epoch, key)
    core.lifecycle.decided(row, choice, frame.frame_id)
    return DecisionResult(True)


def frame_written(core: GatewayCore, frame_id: int) -> None:
    record = core.outbox.settle(frame_id)
    if record is None or not record.approval_key or record.frame.rpc_id is not None:
        return  # an RPC-carried decision stays SENDING ("sent") until its reply
    row = core.lifecycle.get(record.approval_key)
    if row is not None:
        core.lifecycle.frame_written(row, frame_id)


def frame_failed(core: GatewayCore, frame_id: int, maybe_sent: bool) -> None:
    record = core.outbox.settle(frame_id)
    if record is None:
        return
    if not maybe_sent:
        core.outbox.drop_call(record.frame.rpc_id)  # no answer can come for it
    row = core.lifecycle.get(record.approval_key) if record.approval_key else None
    if row is None or row.phase is not ApprovalPhase.SENDING or row.decision_frame != frame_id:
        return
    if maybe_sent:
        core.outbox.drop_call(record.frame.rpc_id)
    same_link = record.epoch == core.epoch and core.connected
    core.lifecycle.frame_failed(row, frame_id, maybe_sent=maybe_sent, same_link=same_link)


def connection_lost(core: GatewayCore) -> None:
    """Decisions that may have left end UNKNOWN; the rest wait (stale) for the next connection."""
    core.connected = False
    core.handshake.closed()
    frames, calls = core.outbox.reset()
    left = [record.approval_key for record in frames if record.approval_key and record.drained]
    queued = [r.approval_key for r in frames if r.approval_key and not r.drained]
    for call in calls:
        if call.approval_key:
            if call.approval_key not in queued:  # a queued one never left: it waits again
                left.append(call.approval_key)
        elif call.purpose is Purpose.APP:
            error = RpcError(CONNECTION_LOST, "the connection was lost before an answer came")
            core.emit(RpcResponded(call.rpc_id, None, error))
    core.use_dialect(None)
    core.lifecycle.connection_lost(left, queued)
    core.prompt_book.connection_lost()
