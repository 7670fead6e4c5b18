"""The core's tunables, and how long the server waits on an approval as far as the core knows.

0.19.0 says nothing when its ``approvals.timeout`` ends a wait, and its next command may take
the answer meant for the last: a FIFO row stops taking answers ``staleness_margin`` before
``arrived_at + T``, safe only while ``T`` is at most Hermes' real timeout, and ends EXPIRED then
(not STALE, even if ``T`` was assumed: nothing on its wire could confirm it). ``T`` is the
dialect's default until the real one is learned; that re-times rows counted from the default,
but rows counted from an earlier learned value only when shorter (Hermes may have read the old one).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.wire import RowKind


@dataclass(frozen=True, slots=True)
class CoreSettings:
    """Tunables with safe defaults. Times are in seconds of the injected clock."""

    max_frame_bytes: int = 8 * 1024 * 1024  # larger frames become ProtocolErrorReceived
    max_command_chars: int = 1_000_000  # longer commands are refused as unanswerable, not cut
    a_approval_timeout: float = 60.0  # 0.19.0 default approvals.timeout; nothing is sent on it
    b_approval_timeout: float = 300.0  # newer main and 0.20 default (B: the server says when)
    c_approval_timeout: float = 300.0
    staleness_margin: float = 5.0  # refuse to answer this close to the server's timeout (A)
    session_source: str = "desktop"  # `source` on tui_gateway create/resume ("gui" on canonical)
    max_json_depth: int = 64  # deeper frames become ProtocolErrorReceived
    max_resolved_approvals: int = 200  # kept for late frames; those resolved longest ago go first
    canonical_resume_source: str = ""  # `source` on canonical session.resume; "" = omit it
    # B and 0.20: approval.pending while rows are open (no frame says another client answered)
    open_poll_interval: float = 1.0
    open_polls_per_interval: int = 4  # those asked longest ago first: the traffic stays bounded
    # 0.20 sessions other clients run, seen through approval.pending (desktop.core.connection):
    observe_poll_interval: float = 2.0  # the session list says it works
    observe_linger: float = 300.0  # idle, but its sub-agents may still ask, this long
    observe_linger_poll_interval: float = 10.0

    def assumed_timeout(self, kind: RowKind) -> float:
        if kind is RowKind.FIFO:
            return self.a_approval_timeout
        if kind is RowKind.PROMPT:
            return self.c_approval_timeout
        return self.b_approval_timeout
