"""The fake gateway's state: sessions, open server-side prompts, simulated executions.

Plain mutable objects owned by one event loop. Tests read them (``fake.sessions``,
``fake.requests``, ``fake.executed``) to assert what the gateway *did*, not only what it sent.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.script import Command, Turn

if TYPE_CHECKING:
    from tests.gatewaymodel.connection import Connection


@dataclass(frozen=True)
class Execution:
    """A command the fake pretended to run (nothing is ever run on the machine)."""

    session_id: str
    tool_id: str
    command: str
    exit_code: int
    approved_by: str  # "human", "clean", "bypass" (YOLO/off) or "allowlisted"


@dataclass(eq=False)
class PendingRequest:
    """One prompt the agent waits on: an approval, or (B) a desktop-window request.

    Identity per dialect: A has none on the wire (``index`` keeps FIFO order); B uses ``srq_id``
    (the frame id) and ``request_id``; C uses ``request_id`` as ``prompt_id`` plus
    ``generation``. ``superseded`` is never set by the fake: re-asked batch commands get a new
    request while the old one, if still open, stays open (measured on the B build).
    """

    session: Session
    method: str
    command: Command | None
    choices: list[str]
    generation: int = 0
    srq_id: str = field(default_factory=lambda: "srq-" + secrets.token_hex(6))
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    index: int = 0
    reask: bool = False
    state: Literal["open", "closed"] = "open"
    outcome: Outcome | None = None
    acknowledged: bool = False
    future: asyncio.Future[Outcome] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    timer: asyncio.Task[None] | None = None
    params: dict[str, Any] = field(default_factory=dict)  # B: a non-approval request's params
    declined: set[int] = field(default_factory=set)  # B: connections that said "not shown"

    @property
    def is_open(self) -> bool:
        """Still waiting for an answer."""
        return self.state == "open"

    @property
    def prompt_id(self) -> str:
        """C's name for the request id."""
        return self.request_id


@dataclass(eq=False)
class Viewer:
    """One connection attached to a session (C: with its own subscription id)."""

    conn: Connection
    subscription_id: str = field(default_factory=lambda: "sub-" + secrets.token_hex(6))
    retired: bool = False  # C: after session.replay_gap, until it resumes again


def new_runtime_id() -> str:
    """A tui_gateway live session id: 8 hex characters."""
    return secrets.token_hex(4)


def new_stored_id() -> str:
    """A durable id shaped like Hermes' ``20261129_101342_9cbd2d``."""
    return datetime.now().strftime("%Y%m%d_%H%M%S_") + secrets.token_hex(3)


def zero_usage(model: str) -> dict[str, Any]:
    """Usage before any model call, in the tui_gateway shape."""
    return {
        "model": model,
        "input": 0,
        "output": 0,
        "reasoning": 0,
        "prompt": 0,
        "completion": 0,
        "total": 0,
        "calls": 0,
        "context_used": 0,
        "context_max": 131072,
        "context_percent": 0,
        "compressions": 0,
        "active_subagents": 0,
    }


@dataclass(eq=False)
class Session:
    """A live session. ``sid`` routes every frame; ``stored_id`` is the durable key."""

    sid: str
    stored_id: str
    source: str = "desktop"
    cwd: str = "~/project"
    model: str = "fake-model"
    title: str = ""
    close_on_disconnect: bool = False
    started_at: float = field(default_factory=time.time)
    last_active: float = field(default_factory=time.time)
    yolo: bool = False
    usage: dict[str, Any] = field(default_factory=dict)
    todos: list[dict[str, str]] = field(default_factory=list)
    todo_revision: int = 0
    session_allow: set[str] = field(default_factory=set)
    running: bool = False
    turn_started_at: float | None = None
    inflight_user: str = ""
    inflight_assistant: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    log: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=1000))
    generation: int = 0
    revision: int = 0
    viewers: dict[int, Viewer] = field(default_factory=dict)
    queued: deque[tuple[Turn, str]] = field(default_factory=deque)
    steers: list[str] = field(default_factory=list)
    turn_task: asyncio.Task[None] | None = None
    interrupt: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False

    def __post_init__(self) -> None:
        if not self.usage:
            self.usage = zero_usage(self.model)

    @property
    def preview(self) -> str:
        """The last message text, as session lists show it."""
        for message in reversed(self.messages):
            if message.get("text"):
                return str(message["text"])[:80]
        return ""
