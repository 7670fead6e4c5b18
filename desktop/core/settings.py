"""Tunables of the core (re-exported as ``desktop.core.gateway_core.CoreSettings``)."""

from __future__ import annotations

from dataclasses import dataclass


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
    # Added after the contract was fixed (defaults keep every existing caller working):
    max_json_depth: int = 64  # deeper frames become ProtocolErrorReceived
    max_resolved_approvals: int = 200  # resolved rows kept for the UI; older ones are dropped
    canonical_resume_source: str = ""  # `source` on canonical session.resume; "" = omit it
    pending_poll_interval: float = 10.0  # 0.20: approval.pending while its rows are open
    # 0.20 sessions other clients run, seen through approval.pending (desktop.core.observed):
    observe_open_poll_interval: float = 1.0  # rows open for the session
    observe_poll_interval: float = 2.0  # the session list says it works
    observe_linger: float = 300.0  # idle, but its sub-agents may still ask, this long
    observe_linger_poll_interval: float = 10.0
