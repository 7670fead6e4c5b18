"""Payloads of the store's changes, the bridge's Qt signals and the decisions it takes. Qt-free.

A core event knows neither its gateway nor a person's name for its session; the store adds
both once, here, beside the core's own values (never a copy of their fields).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.events import CommandRan, SessionRemoved
from desktop.core.model import Approval, Choice, Prompt, SessionState
from desktop.journal import Surface


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
    gateway_id: str
    session: SessionState


@dataclass(frozen=True, slots=True)
class SessionGone:
    gateway_id: str
    removed: SessionRemoved


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a person should read: what, where (gateway words: plain text), what to do."""

    level: str  # "info" | "warning" | "error"
    what: str
    where: str = ""
    advice: str = ""


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """A person's answer to one approval, for the bridge's one ``GatewayCore.decide`` call."""

    gateway_id: str
    key: str  # Approval.key, unique within that gateway's core
    choice: Choice  # one of the row's Approval.choices
    surface: Surface  # where the person decided (the journal says it)
    confirm_stale: bool = False  # the person pressed "Re-confirm" on a STALE row


@dataclass(frozen=True, slots=True)
class DecisionMade:
    """Payload of ``decision_made``, with the command as shown (the row leaves the store)."""

    gateway_id: str
    gateway_name: str
    key: str
    choice: Choice | None  # None: nobody chose here (Surface.NOBODY, Surface.HERMES)
    surface: Surface  # the DecisionRequest's
    sent: bool = True
    reason: str = ""  # why it was not sent
    session_id: str = ""
    session_title: str = ""
    command: str = ""


@dataclass(frozen=True, slots=True)
class CommandReport:
    """Payload of ``command_ran``: a command Hermes ran with no row here (session, always, YOLO)."""

    gateway_id: str
    gateway_name: str
    session_title: str
    ran: CommandRan  # the core's report: session, command, result, Hermes' approval note
    yolo: bool = False  # the gateway last reported YOLO on for the session
