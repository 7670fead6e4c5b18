"""The frozen picture every tray surface renders from, so none reads live clients."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from desktop.core.model import Approval, Dialect, Prompt, SessionState
from desktop.model.session_names import compose, fit, unnamed


class Link(enum.Enum):
    """How a gateway's connection looks to a person (a coarsening of ConnectionState)."""

    OFFLINE = "disconnected"  # DISCONNECTED or BACKOFF: will (re)try by itself
    CONNECTING = "connecting"  # CONNECTING or HANDSHAKING
    UP = "connected"
    FAILED = "failed"  # gave up; needs a person (bad token, refused, misconfigured)


@dataclass(frozen=True, slots=True)
class GatewayView:
    gateway_id: str
    name: str
    link: Link = Link.OFFLINE
    state_name: str = "disconnected"  # the exact ConnectionState, for the menu header
    dialect: Dialect | None = None
    version: str = ""  # Hermes version, from the handshake or session.info
    error: str = ""  # last error, already written for people by the client
    sessions: tuple[SessionState, ...] = ()
    prompts: tuple[Prompt, ...] = ()  # open clarify/sudo/secret prompts, oldest first
    waiting: tuple[Approval, ...] = ()  # approvals needing a person now (not being answered)

    def session(self, session_id: str) -> SessionState | None:
        return next((s for s in self.sessions if s.session_id == session_id), None)

    def prompts_of(self, session_id: str) -> tuple[Prompt, ...]:
        return tuple(p for p in self.prompts if p.session_id == session_id)


@dataclass(frozen=True, slots=True)
class AppSnapshot:
    """Everything the tray shows, at one moment. ``gateways`` keeps configuration order."""

    gateways: tuple[GatewayView, ...] = field(default_factory=tuple)

    def gateway(self, gateway_id: str) -> GatewayView | None:
        return next((g for g in self.gateways if g.gateway_id == gateway_id), None)

    def waiting_count(self) -> int:
        """Approvals waiting on a person on connected gateways (others cannot be answered)."""
        return sum(len(g.waiting) for g in self.gateways if g.link is Link.UP)


def session_title(session: SessionState | None, session_id: str = "") -> str:
    """Its title (the app keeps its stable name there), else the name it would get."""
    if session is None:
        return unnamed(session_id) if session_id else "unknown session"
    if session.title.strip():
        return session.title
    return fit(compose(session))
