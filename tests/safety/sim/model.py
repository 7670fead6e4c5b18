"""The reference server's state, and what travels between it and the core.

Why explicit identities: the safety invariant is about *which* server-side request a decision
frame resolves. Every approval the reference server publishes gets an ``ident`` the core never
sees; the interleaver maps each core row to the ident it was created from, and the server
checks, at the moment a decision frame *arrives*, that it resolves exactly that ident.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop.core.gateway_core import OutboundFrame


@dataclass(eq=False)
class ServerApproval:
    """One approval the reference server waits on."""

    ident: int
    session: RefSession
    command: str
    pattern_keys: tuple[str, ...]
    choices: tuple[str, ...]  # what the server offered (protocol fallback when it sent none)
    published_at: float
    tool_id: str
    srq_id: str = ""  # B
    request_id: str = ""  # B request_id, C prompt_id
    generation: int = 0  # C
    open: bool = True
    outcome: str = ""  # "approve:once" | "deny" | "timeout" | "interrupted" | "closed" | ...
    closed_by: str = ""  # "tray" | "other" | "timer" | "interrupt" | "close" | "restart"

    @property
    def is_open(self) -> bool:
        """``open``, under the name ``tests.gatewaymodel.approval_rules`` matches requests by."""
        return self.open

    def describe(self) -> str:
        return f"#{self.ident} {self.command!r} ({'open' if self.open else self.outcome})"


@dataclass(eq=False)
class RefSession:
    """A live session on the reference server."""

    sid: str
    stored_id: str
    running: bool = False
    generation: int = 0  # C: the execution generation of the current turn
    viewed: bool = False  # our connection receives its events (A: owner, B: fan-out, C: sub)
    alive: bool = True
    quiet_until: float = float("-inf")  # A: no ask before (a human acted elsewhere)
    asked: list[ServerApproval] = field(default_factory=list)  # this turn, in order
    tools_running: int = 0  # tool.complete still to come

    def open_approvals(self) -> list[ServerApproval]:
        return [a for a in self.asked if a.open]


@dataclass(frozen=True)
class Attribution:
    """Why a decision frame exists: the person's decide() call that produced it."""

    key: str  # the core's approval key
    choice: str  # the Choice value the person passed
    target: ServerApproval  # the server request the row was created from
    shown_command: str  # the command text the row showed the person
    step: int


@dataclass
class InFlight:
    """A frame on its way from the core to the server."""

    frame: OutboundFrame
    sent_at: float
    attribution: Attribution | None


@dataclass
class Outgoing:
    """A frame on its way from the server to the core (``approval``: what it publishes)."""

    text: str
    sent_at: float
    approval: ServerApproval | None = None
    # A pending list's reply: the request ids it omits because another surface answered them.
    answered_elsewhere: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Violation:
    """A broken safety invariant, with enough context to reproduce it."""

    step: int
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"step {self.step}: {self.kind}: {self.detail}"


Json = dict[str, Any]
