"""A person's decision: exactly one frame for exactly the request they saw — or nothing.

Why it is strict: a decision frame that lands on the wrong request runs a command nobody
approved. So :func:`decide` refuses (``sent=False`` plus a reason, nothing queued) unless the
row is WAITING (or STALE and confirmed), answerable (0.19.0: the FIFO head, outside the safety
margin; always: connected, handshake done, a kind this gateway answers) and the choice is one
the server offered. A decision frame is never sent twice: once it may have left, its fate is
settled by the answer (A/C), by being written (B, where the server never replies), or ends
UNKNOWN when the connection goes (design.md §2).
"""

from __future__ import annotations

from desktop.core import answer_rules, outcomes
from desktop.core.approval_rows import OPEN_WAITING
from desktop.core.core_state import CoreState
from desktop.core.events import RpcError, RpcResponded
from desktop.core.model import ApprovalPhase, Choice, DecisionResult
from desktop.core.outbox import Purpose
from desktop.core.wire import RowKind

CONNECTION_LOST = -32097  # local code: the connection went before the answer came
STALE_FIFO = (
    "the connection was lost: Hermes 0.19 cannot confirm this command still waits; "
    "answer only if Hermes still shows it"
)
STALE_KEYED = "the connection was lost; waiting for Hermes to confirm the request is still open"


def decide(core: CoreState, key: str, choice: Choice, confirm_stale: bool) -> DecisionResult:
    row = core.approvals.get(key)
    if row is None:
        return DecisionResult(False, "no such approval (it may have ended long ago)")
    candidate: object = choice  # callers outside mypy may pass anything
    if not isinstance(candidate, Choice):
        return DecisionResult(False, "only once, session, always or deny can be sent")
    core.approvals.expire_due(core.now())
    core.approvals.refresh(core.context())
    approval = row.approval
    if approval.phase is ApprovalPhase.RESOLVED:
        kind = approval.outcome.kind.value if approval.outcome else "resolved"
        return DecisionResult(False, f"already {kind}")
    if approval.phase is ApprovalPhase.SENDING:
        return DecisionResult(False, "an answer is already on its way")
    if not approval.answerable:
        return DecisionResult(False, approval.blocked_reason or "cannot be answered now")
    if approval.phase is ApprovalPhase.STALE and not confirm_stale:
        return DecisionResult(False, f"{row.stale_reason} (confirm to answer anyway)")
    if choice not in approval.choices:
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
    core.approvals.mark_sending(row, choice, frame.frame_id)
    return DecisionResult(True)


def frame_written(core: CoreState, frame_id: int) -> None:
    record = core.outbox.settle(frame_id)
    if record is None or not record.approval_key or record.frame.rpc_id is not None:
        return
    row = core.approvals.get(record.approval_key)
    if (
        row is not None
        and row.decision is not None
        and row.decision_frame == frame_id
        and row.phase is ApprovalPhase.SENDING
    ):
        core.resolve(row, outcomes.decided(row.decision))  # B: written is final


def frame_failed(core: CoreState, frame_id: int, maybe_sent: bool) -> None:
    record = core.outbox.settle(frame_id)
    if record is None:
        return
    if not maybe_sent:
        core.outbox.drop_call(record.frame.rpc_id)  # no answer can come for it
    row = core.approvals.get(record.approval_key) if record.approval_key else None
    if row is None or row.phase is not ApprovalPhase.SENDING or row.decision_frame != frame_id:
        return
    if maybe_sent:
        core.outbox.drop_call(record.frame.rpc_id)
        if row.kind is RowKind.FIFO:
            # 0.19.0 answers the oldest pending: if this answer never arrived, that is still
            # this row, not the next one shown; the session's head is in doubt until its turn ends.
            core.approvals.doubt_head(row.session_id, row.seq, answer_rules.HEAD_AFTER_UNKNOWN)
        core.resolve(row, outcomes.unknown())
    elif record.epoch == core.epoch and core.connected:
        core.approvals.unsend(row, core.context())
    else:  # pragma: no cover - connection_lost already settled every SENDING row
        core.resolve(row, outcomes.unknown())


def connection_lost(core: CoreState) -> None:
    """Decisions that may have left end UNKNOWN; the rest wait (stale) for the next connection."""
    core.connected = False
    core.handshake.closed()
    core.approvals.forget_timeout()  # the next server is learned anew (desktop.core.timeouts)
    frames, calls = core.outbox.reset()
    for record in frames:
        row = core.approvals.get(record.approval_key) if record.approval_key else None
        if row is None or row.phase is not ApprovalPhase.SENDING:
            continue
        if record.drained:
            core.approvals.resolve(row, outcomes.unknown())
        else:
            core.approvals.unsend(row, core.context())
    for call in calls:
        row = core.approvals.get(call.approval_key) if call.approval_key else None
        if row is not None and row.phase is ApprovalPhase.SENDING:
            core.approvals.resolve(row, outcomes.unknown())
        elif call.purpose is Purpose.APP:
            error = RpcError(CONNECTION_LOST, "the connection was lost before an answer came")
            core.emit(RpcResponded(call.rpc_id, None, error))
    for row in core.approvals.open_rows():
        if row.phase in OPEN_WAITING:
            core.approvals.mark_stale(row, STALE_FIFO if row.kind is RowKind.FIFO else STALE_KEYED)
    core.use_dialect(None)
    core.approvals.refresh(core.context())
