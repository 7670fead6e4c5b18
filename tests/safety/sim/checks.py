"""Invariants of the core's visible state, checked after every step of every run.

Why these: a row that cannot be answered must say why (``blocked_reason``), a stale row must
say why, every resolved row carries exactly one outcome, and on 0.19.0 at most one row per
session may be answerable or on its way (only the FIFO head can be answered, protocol.md §3.2).
"""

from __future__ import annotations

from collections import Counter

from desktop.core.model import ApprovalPhase, Dialect
from tests.safety.sim.world import SimWorld


def check_state(world: SimWorld) -> None:
    heads: Counter[str] = Counter()
    for row in world.core.approvals():
        resolved = row.phase is ApprovalPhase.RESOLVED
        if resolved != (row.outcome is not None):
            world.report("outcome does not match phase", f"{row.key}: {row.phase} {row.outcome}")
        waiting = row.phase in (ApprovalPhase.WAITING, ApprovalPhase.STALE)
        if waiting and not row.answerable and not row.blocked_reason:
            world.report("unanswerable row without a reason", repr(row)[:300])
        if row.phase is ApprovalPhase.STALE and not row.blocked_reason:
            world.report("stale row without a reason", row.key)
        if row.answerable and row.phase not in (ApprovalPhase.WAITING, ApprovalPhase.STALE):
            world.report("answerable row that is not open", f"{row.key}: {row.phase}")
        fifo = world.core.dialect is Dialect.A and world.connected
        if fifo and (row.answerable or row.phase is ApprovalPhase.SENDING):
            heads[row.session_id] += 1
    for session_id, count in heads.items():
        if count > 1:
            world.report("two FIFO rows answerable at once", f"session {session_id}: {count}")
