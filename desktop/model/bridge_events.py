"""Payloads of the store's changes and the bridge's Qt signals: one frozen dataclass each. Qt-free.

Why wrap the core's events: a core event knows nothing of *which* gateway it came from nor how
a person names it; every widget needs both. The store (``app_state``) adds them once, here, so
widgets never reach back into clients. A payload carries the core's own values (``Approval``,
``Prompt``, ``SessionState``, ``CommandRan``) beside that context, never a copy of their fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.events import CommandRan, SessionRemoved
from desktop.core.model import Approval, Choice, Prompt, SessionState


@dataclass(frozen=True, slots=True)
class ApprovalUpdate:
    """Payload of ``approval_requested`` (``arrived``) and ``approval_changed``."""

    gateway_id: str
    gateway_name: str
    approval: Approval
    session_title: str
    arrived: bool = False  # the core announced a new row (re-deliveries included)


@dataclass(frozen=True, slots=True)
class RowsForgotten:
    """The store dropped these resolved rows before a reader released them (its bound)."""

    gateway_id: str
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PromptUpdate:
    """Payload of ``prompt_asked`` and ``prompt_ended`` (``ended``: the core's reason)."""

    gateway_id: str
    gateway_name: str
    prompt: Prompt
    session_title: str
    ended: str = ""


@dataclass(frozen=True, slots=True)
class SessionUpdate:
    """Payload of ``session_changed``: the session's new full value."""

    gateway_id: str
    session: SessionState


@dataclass(frozen=True, slots=True)
class SessionGone:
    """Payload of ``session_removed``."""

    gateway_id: str
    removed: SessionRemoved


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a person should read: a gateway notice, or a command that failed.

    Failures say what failed, where, and what to do (design.md example 14). ``where`` and
    ``what`` may hold gateway-provided words: render them as plain text.
    """

    level: str  # "info" | "warning" | "error"
    what: str
    where: str = ""
    advice: str = ""
    gateway_id: str = ""
    session_id: str = ""

    @property
    def text(self) -> str:
        parts = [self.what + (f" ({self.where})" if self.where else "")]
        if self.advice:
            parts.append(self.advice)
        return " — ".join(parts)


@dataclass(frozen=True, slots=True)
class DecisionMade:
    """Payload of ``decision_made``: a person's decision and what the bridge did with it.

    Why the command and session travel with it: once the gateway resolves the approval the row
    is gone from the app state, yet the journal must still say *what* was decided. So the
    bridge captures them from the row as it was shown, before the decision is sent.
    """

    gateway_id: str
    gateway_name: str
    key: str
    choice: Choice
    surface: str  # the DecisionRequest's surface ("dialog.button", "notification", ...)
    sent: bool
    reason: str  # why it was not sent ("" when sent)
    session_id: str = ""
    session_title: str = ""
    command: str = ""


@dataclass(frozen=True, slots=True)
class CommandReport:
    """Payload of ``command_ran``: Hermes reports a command it ran that had no row here.

    Why it travels: a command run under "Allow for session", "always" or YOLO leaves no
    decision behind, yet the journal must show it ran, in which session, and how it ended.
    """

    gateway_id: str
    gateway_name: str
    session_title: str
    ran: CommandRan  # the core's report: session, command, result, Hermes' approval note
    yolo: bool = False  # the gateway last reported YOLO on for the session
