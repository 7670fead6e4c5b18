"""A person's decisions on their way out: one frame per answer, and what became of each frame.

Whether a choice may go is ``decisions.refusal``, asked at the moment of the click (the margin
before a timeout may just have passed); the frame is ``decisions.encode_decision``'s, queued in
the outbox under the row's key, and the lifecycle is told so that no second one ever leaves.
A write that failed before the frame left makes the row answerable again; one that may have
left, or a connection lost with it in flight, leaves the outcome UNKNOWN, never resent.
"""

from __future__ import annotations

from desktop.core.approvals import ApprovalMachine
from desktop.core.connection import Link
from desktop.core.decisions import encode_decision, refusal
from desktop.core.events import CoreEvent, RpcError, RpcResponded
from desktop.core.model import ApprovalPhase, Choice, DecisionResult
from desktop.core.outbox import Outbox, Purpose
from desktop.core.wire import RowKind

CONNECTION_LOST = -32097  # local code: the connection went before the answer came


class Answering:
    """Sends decisions over the link and settles their frames' fates in the lifecycle."""

    def __init__(
        self, lifecycle: ApprovalMachine, outbox: Outbox, link: Link, events: list[CoreEvent]
    ) -> None:
        self._lifecycle, self._outbox, self._link, self._events = lifecycle, outbox, link, events

    def decide(self, key: str, choice: Choice, confirm_stale: bool) -> DecisionResult:
        lifecycle, link = self._lifecycle, self._link
        row = lifecycle.get(key)
        if row is None:
            return DecisionResult(False, "no such approval (it may have ended long ago)")
        lifecycle.tick()  # judged at this moment: the margin before a timeout may have passed
        refused = refusal(row.approval(), choice, confirmed=confirm_stale)
        if refused is not None:
            return DecisionResult(False, refused.reason)
        # Rows only exist with the ids their kind is answered by (checked when parsed), so the
        # encoder's ValueError cannot happen here.
        if row.kind is RowKind.SERVER_REQUEST:
            text = encode_decision(row.asked, choice, 0)
            frame = self._outbox.reply(text, link.epoch, approval_key=key)
        else:
            rpc_id = self._outbox.next_rpc_id()
            text = encode_decision(row.asked, choice, rpc_id)
            frame = self._outbox.decision_request(rpc_id, text, link.epoch, key)
        lifecycle.decided(row, choice, frame.frame_id)
        return DecisionResult(True)

    def frame_written(self, frame_id: int) -> None:
        """B: a written answer is final; the session's list is asked at once (what else ended)."""
        record = self._outbox.settle(frame_id)
        if record is None or not record.approval_key or record.frame.rpc_id is not None:
            return  # an RPC-carried decision stays SENDING ("sent") until its reply
        row = self._lifecycle.get(record.approval_key)
        if row is not None:
            self._lifecycle.frame_written(row, frame_id)
            self._link.poll_pending(row.session_id)

    def frame_failed(self, frame_id: int, maybe_sent: bool) -> None:
        outbox = self._outbox
        record = outbox.settle(frame_id)
        if record is None:
            return
        if not maybe_sent:
            outbox.drop_call(record.frame.rpc_id)  # no answer can come for it
        row = self._lifecycle.get(record.approval_key) if record.approval_key else None
        if row is None or row.phase is not ApprovalPhase.SENDING or row.decision_frame != frame_id:
            return
        if maybe_sent:
            outbox.drop_call(record.frame.rpc_id)
        same_link = record.epoch == self._link.epoch and self._link.connected
        self._lifecycle.frame_failed(row, frame_id, maybe_sent=maybe_sent, same_link=same_link)

    def connection_lost(self) -> None:
        """Decisions that may have left end UNKNOWN; the rest wait (stale) for the next link.

        The app's calls in flight are answered with :data:`CONNECTION_LOST`.
        """
        frames, calls = self._outbox.reset()
        left = [record.approval_key for record in frames if record.approval_key and record.drained]
        queued = [r.approval_key for r in frames if r.approval_key and not r.drained]
        for call in calls:
            if call.approval_key:
                if call.approval_key not in queued:  # a queued one never left: it waits again
                    left.append(call.approval_key)
            elif call.purpose is Purpose.APP:
                error = RpcError(CONNECTION_LOST, "the connection was lost before an answer came")
                self._events.append(RpcResponded(call.rpc_id, None, error))
        self._lifecycle.connection_lost(left, queued)
