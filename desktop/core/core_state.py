"""The state one :class:`~desktop.core.gateway_core.GatewayCore` owns, shared by its parts.

Why a plain container: the core's logic is split by concern (frames in, wire effects,
snapshots, responses, decisions) into small modules of functions over this one object, so each
stays readable and testable; ``GatewayCore`` itself is a thin facade with the public API.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop.core.answer_rules import AnswerContext, Rules
from desktop.core.approval_rows import Row
from desktop.core.approvals import ApprovalBook
from desktop.core.dialects import DialectAdapter, adapter_for
from desktop.core.events import CoreEvent, SessionChanged, SessionRemoved
from desktop.core.handshake import Handshake
from desktop.core.model import Dialect, Outcome
from desktop.core.outbox import Outbox
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings


@dataclass(slots=True)
class CoreState:
    gateway_id: str
    clock: Callable[[], float]
    settings: CoreSettings
    events: list[CoreEvent] = field(default_factory=list)
    sessions: SessionBook = field(default_factory=SessionBook)
    outbox: Outbox = field(default_factory=Outbox)
    handshake: Handshake = field(default_factory=Handshake)
    approvals: ApprovalBook = field(init=False)
    adapter: DialectAdapter = field(init=False)
    epoch: int = 0
    connected: bool = False

    def __post_init__(self) -> None:
        self.approvals = ApprovalBook(self.settings, self.events)
        self.adapter = adapter_for(None, self.settings)

    @property
    def dialect(self) -> Dialect | None:
        """The dialect of the current connection, once its handshake fixed it."""
        return self.handshake.dialect if self.handshake.done else None

    def emit(self, event: CoreEvent) -> None:
        self.events.append(event)

    def now(self) -> float:
        return self.clock()

    def context(self) -> AnswerContext:
        return self._context_at(self.now())

    def _context_at(self, now: float) -> AnswerContext:
        return AnswerContext(
            dialect=self.dialect,
            answers=self.adapter.answers,
            connected=self.connected,
            now=now,
            margin=self.settings.staleness_margin,
        )

    def rules(self) -> Rules:
        """``context().rules`` without building the context (finish runs on every input)."""
        return (self.dialect, self.adapter.answers, self.connected, self.settings.staleness_margin)

    def use_dialect(self, dialect: Dialect | None) -> None:
        self.adapter = adapter_for(dialect, self.settings)

    def resolve(self, row: Row, outcome: Outcome) -> bool:
        """Give ``row`` its outcome and update the rows behind it (a new FIFO head, ...)."""
        if not self.approvals.resolve(row, outcome):
            return False
        self.approvals.refresh(self.context())
        return True

    def remove_session(self, session_id: str, reason: str, outcome: Outcome) -> None:
        """Drop a session: its open approvals end with ``outcome``; it is not followed again."""
        for row in self.approvals.open_rows(session_id):
            self.approvals.resolve(row, outcome)
        self.approvals.forget_session(session_id)
        if self.sessions.remove(session_id):
            self.emit(SessionRemoved(session_id, reason))
        self.approvals.refresh(self.context())

    def finish(self) -> None:
        """End of one input: time-driven changes, then one SessionChanged per changed session."""
        approvals = self.approvals
        approvals.expire_due(self.now())
        now = self.now()  # the time the refresh is judged at (context() reads it here too)
        if not approvals.refresh_holds(self.rules(), now):
            approvals.refresh(self._context_at(now))
        self.sessions.set_waiting(self.approvals.waiting_sessions())
        for session in self.sessions.drain_changed():
            self.emit(SessionChanged(session))
