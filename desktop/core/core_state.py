"""The state one :class:`~desktop.core.gateway_core.GatewayCore` owns, shared by its parts.

The frame-reading modules (``inbound``, ``wire_effects``, ``snapshots``, ``responses``,
``resubscribe``, ``decisions``) are functions over this one object; the approval rows belong
to ``lifecycle``, the only code that moves a row's phase.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop.core.dialects import DialectAdapter, adapter_for
from desktop.core.events import CoreEvent, SessionChanged, SessionRemoved
from desktop.core.handshake import Handshake
from desktop.core.lifecycle import ApprovalLifecycle
from desktop.core.model import Dialect, Outcome
from desktop.core.outbox import Outbox
from desktop.core.prompt_book import PromptBook
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings


@dataclass(slots=True)
class ObservedSessions:
    """0.20 sessions seen through their pending list: when each last worked, when it is due."""

    worked_at: dict[str, float] = field(default_factory=dict)
    due: dict[str, float] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)  # asked once at once, whatever the plan
    at: float | None = None  # the earliest due time (a deadline of the core)

    @property
    def active(self) -> bool:
        return bool(self.worked_at or self.fresh or self.at is not None)


@dataclass(slots=True)
class CoreState:
    gateway_id: str
    clock: Callable[[], float]
    settings: CoreSettings
    events: list[CoreEvent] = field(default_factory=list)
    sessions: SessionBook = field(default_factory=SessionBook)
    outbox: Outbox = field(default_factory=Outbox)
    handshake: Handshake = field(default_factory=Handshake)
    approvals: ApprovalLifecycle = field(init=False)
    prompts: PromptBook = field(init=False)
    adapter: DialectAdapter = field(init=False)
    epoch: int = 0
    connected: bool = False
    poll_at: float | None = None  # 0.20: when approval.pending is next asked (rows open)
    observed: ObservedSessions = field(default_factory=ObservedSessions)

    def __post_init__(self) -> None:
        self.approvals = ApprovalLifecycle(
            self.settings, self.events, self.outbox, self.clock, self._cwd_of, self._followed
        )
        self.prompts = PromptBook(
            self.emit, self.outbox, self.clock, self._followed, self.settings.staleness_margin
        )
        self.adapter = adapter_for(None, self.settings)

    @property
    def dialect(self) -> Dialect | None:
        """The dialect of the current connection, once its handshake fixed it."""
        return self.handshake.dialect if self.handshake.done else None

    def emit(self, event: CoreEvent) -> None:
        self.events.append(event)

    def now(self) -> float:
        return self.clock()

    def use_dialect(self, dialect: Dialect | None) -> None:
        self.adapter = adapter_for(dialect, self.settings)

    def remove_session(self, session_id: str, reason: str, outcome: Outcome) -> None:
        """Drop a session: its open approvals end with ``outcome``; it is not followed again."""
        self.approvals.session_gone(session_id, outcome)
        self.prompts.session_gone(session_id)
        if self.sessions.remove(session_id):
            self.emit(SessionRemoved(session_id, reason))

    def follow_changed(self) -> None:
        """A session was followed or let go: its rows and prompts are judged again."""
        self.approvals.follow_changed()
        self.prompts.rejudge(self.dialect)

    def finish(self) -> None:
        """End of one input: time-driven changes, then one SessionChanged per changed session."""
        approvals, prompts = self.approvals, self.prompts
        approvals.tick()
        prompts.tick()
        if approvals.waiting_moved or prompts.moved:
            approvals.waiting_moved = prompts.moved = False
            self.sessions.set_waiting(approvals.waiting | prompts.sessions())
        for session in self.sessions.drain_changed():
            self.emit(SessionChanged(session))

    def next_deadline(self) -> float | None:
        deadlines = [
            self.approvals.next_deadline(),
            self.prompts.next_deadline(),
            self.poll_at,
            self.observed.at,
        ]
        due = [d for d in deadlines if d is not None]
        return min(due) if due else None

    def _followed(self, session_id: str) -> bool:
        return self.sessions.is_followed(session_id)

    def _cwd_of(self, session_id: str) -> str:
        session = self.sessions.get(session_id)
        return session.cwd if session is not None else ""
