"""Everything one fake gateway instance knows, in one place.

The :class:`World` holds the dialect, the clock, the sessions, every request ever opened, the
simulated executions and the process-wide approval policy. Collaborators (the publisher, the
request broker, the RPC handlers, the turn runner) all take the world, so there is exactly one
copy of each fact. Nothing here does I/O; connections do.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import uuid
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.gatewaymodel.clock import Clock
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import Execution, PendingRequest, Session
from tests.gatewaymodel.records import ChangeSignal, ConnectionRecord
from tests.gatewaymodel.script import Command, Turn, TurnSource

if TYPE_CHECKING:
    from tests.gatewaymodel.connection import Connection
    from tests.gatewaymodel.publish import Publisher
    from tests.gatewaymodel.requests import RequestBroker

APPROVAL_MODES = ("manual", "smart", "off")


@dataclass
class Policy:
    """Process-wide approval settings (config.yaml in the real gateway).

    ``env_yolo`` is ``HERMES_YOLO_MODE`` frozen at start. ``smart`` mode behaves as ``manual``
    here: the fake has no auxiliary model, so every flagged command escalates to the human.
    ``hermes_home`` is what ``config.get {key: "profile"}`` names ("" = the fake has none).
    """

    approvals_mode: str = "manual"
    env_yolo: bool = False
    approval_timeout: float | None = None
    hermes_home: str = ""


class World:
    """The fake gateway's state and the small helpers every part needs."""

    def __init__(
        self,
        dialect: Dialect,
        clock: Clock,
        turns: TurnSource,
        policy: Policy,
        default_source: str,
        history: int | None = None,
    ) -> None:
        self.dialect = dialect
        self.clock = clock
        self.turns = turns
        self.policy = policy
        self.default_source = default_source
        self.history = history
        self.permanent_allow: set[str] = set()
        self.sessions: dict[str, Session] = {}
        self.connections: dict[int, Connection] = {}
        self.records: list[ConnectionRecord] = []
        self.requests: list[PendingRequest] = []
        self.executed: list[Execution] = []
        self.late_answers: list[dict[str, Any]] = []
        self.clarify_answers: list[dict[str, Any]] = []  # each clarify tool result, in order
        self.queued_turns: deque[Turn] = deque()
        self.replay_epoch = uuid.uuid4().hex
        self.authority_epoch = 1
        self.instance_id = "gw-" + secrets.token_hex(6)
        self.signal = ChangeSignal()
        self.tasks: set[asyncio.Task[Any]] = set()
        self._calls = itertools.count(1)
        self._request_index = itertools.count(1)
        self.pub: Publisher
        self.reqs: RequestBroker

    # -- bookkeeping --------------------------------------------------------------------------

    def changed(self) -> None:
        """Tell waiters something changed (see :class:`ChangeSignal`)."""
        self.signal.notify()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the gateway cancels and awaits when it stops."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def next_call(self) -> int:
        """The next model-call number (``tool_id`` is ``call_<n>_<i>``)."""
        return next(self._calls)

    def next_request_index(self) -> int:
        """Creation order of requests: A's FIFO and B's ``approval.respond`` head."""
        return next(self._request_index)

    def trim(self) -> None:
        """Keep only the last ``history`` closed requests, executions and frames per connection.

        Most tests keep everything (``history=None``); a long run (bench) sets a bound so
        its memory stays flat. Open requests are always kept: they are live state.
        """
        keep = self.history
        if keep is None or keep < 1:
            return
        closed = [r for r in self.requests if not r.is_open]
        dropped = {id(r) for r in closed[:-keep]}
        self.requests[:] = [r for r in self.requests if id(r) not in dropped]
        del self.executed[:-keep]
        del self.late_answers[:-keep]
        for record in self.records:
            if record.open:
                del record.sent[:-keep]
                del record.received[:-keep]
            else:
                record.sent.clear()
                record.received.clear()

    # -- lookups --------------------------------------------------------------------------------

    def find_session(self, key: Any) -> Session | None:
        """A live session by runtime id, stored id or exact title."""
        if not isinstance(key, str) or not key:
            return None
        if key in self.sessions:
            return self.sessions[key]
        for session in self.sessions.values():
            if key in (session.stored_id, session.title):
                return session
        return None

    def open_requests(self, session: Session | None = None) -> list[PendingRequest]:
        """Open requests in creation order, for one session or all."""
        return [r for r in self.requests if r.is_open and (session is None or r.session is session)]

    def open_approvals(self, session: Session) -> list[PendingRequest]:
        """Open approvals of ``session``, oldest first (A's FIFO order)."""
        return [r for r in self.open_requests(session) if r.method == "approval"]

    # -- policy ---------------------------------------------------------------------------------

    def effective_yolo(self, session: Session) -> bool:
        """What ``session.info.yolo`` reports: env YOLO, session YOLO, or mode ``off``."""
        return self.policy.env_yolo or session.yolo or self.policy.approvals_mode == "off"

    def auto_decision(self, session: Session, command: Command) -> str | None:
        """The guard's verdict *now*: a label when no human is needed, else ``None``.

        ``clean`` (no pattern), ``bypass`` (YOLO or approvals off) or ``allowlisted`` (every key
        approved with ``session``/``always`` before). The batch runner calls this again at run
        time, because a policy decision made while preparing is never consumed.
        """
        if not command.pattern_keys:
            return "clean"
        if self.effective_yolo(session):
            return "bypass"
        if set(command.pattern_keys) <= (session.session_allow | self.permanent_allow):
            return "allowlisted"
        return None

    def is_batch_session(self, session: Session) -> bool:
        """Whether terminal batches are prepared together (desktop sources on B and C)."""
        if self.dialect is Dialect.A:
            return False
        return session.source in ("desktop", "gui")
