"""What every reference gateway shares: sessions, viewers, timers, frames in, the verdict.

Theory of operation. The server owns ground truth: which approvals are open, in which order,
and which connection sees which session's events. The interleaver (``engine``) moves frames:
whatever the server emits for a session reaches the core only while our connection views that
session, and only when the interleaver delivers it; whatever the core writes reaches the
server only when delivered (or a prefix of it, when the connection drops). When a decision
frame *arrives*, the dialect subclass resolves it by that dialect's rule (A: the session's FIFO
head; B: the ``srq`` id; C: ``prompt_id`` + generation, all from
``tests.gatewaymodel.approval_rules``)
and :meth:`RefServer.verdict` checks the resolved request against the person's decision. That
is the campaign's central invariant.

The agent's side (turns, asks, timeouts, other viewers) is in ``agent``; what each dialect adds
around the shared rules (handshake, snapshots, id re-use) is in ``ref_a``/``ref_b``/``ref_c``.
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from desktop.core.model import Dialect
from tests.gatewaymodel import approval_rules as rules
from tests.gatewaymodel.dialect import gateway_ready_payload
from tests.safety.sim import frames
from tests.safety.sim.chooser import Chooser
from tests.safety.sim.model import (
    Attribution,
    InFlight,
    Json,
    Outgoing,
    RefSession,
    ServerApproval,
)

Report = Callable[[str, str], None]
ENDING = {
    "timer": rules.Ending.TIMER,
    "interrupt": rules.Ending.INTERRUPT,
    "close": rules.Ending.CLOSE,
}


@dataclass(frozen=True)
class ServerConfig:
    """The environment the invariant is claimed for (see the campaign docstring)."""

    sessions: int = 2
    approval_timeout: float = 60.0  # server seconds; A: equals the core's a_approval_timeout
    # A: 0.19.0 answers carry no id, so two people answering one session within a round trip
    # of each other cannot be told apart by any client. The campaign claims safety for people
    # who do not: after another surface answered (counted from its answer *and* from the end
    # of the command it let run, which is when the tray learns of it) or an interrupt, the next
    # ask comes no sooner than this (> a round trip). After our own answer or a timeout the
    # next command of the message asks at once, as 0.19.0 does.
    think_time: float = 5.0
    max_open_a: int = 1  # A: one pending approval per session (measured); 2 = parallel tools
    max_batch: int = 3  # B/C: commands published together
    ask_only_when_viewed: bool = False  # isolates rules from the "missed while away" hazard
    other_viewers: bool = True  # another surface may answer (A: always the FIFO head)


class RefServer:
    """Ground truth for one gateway; subclasses add one dialect's wire rules."""

    dialect: ClassVar[Dialect]

    def __init__(
        self, chooser: Chooser, clock: Callable[[], float], report: Report, config: ServerConfig
    ) -> None:
        self.chooser, self.clock, self.report, self.config = chooser, clock, report, config
        self.sessions: dict[str, RefSession] = {}
        self.stored: dict[str, RefSession | None] = {}  # stored id -> live session (None: gone)
        self.rebuildable: set[str] = set()  # A/B: stored ids a resume rebuilds after a restart
        self.approvals: list[ServerApproval] = []
        self.outbox: list[Outgoing] = []
        self.connected = False
        self.stats: Counter[str] = Counter()
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._answered: dict[str, int] = {}  # approval key -> decision frames that arrived
        self._tray_answers: Counter[int] = Counter()  # server ident -> our decision frames
        self.reused: set[int] = set()  # idents published under a re-used id (``id_reuse``)
        for _ in range(config.sessions):
            self.new_session()

    # -- sessions -------------------------------------------------------------------------
    def new_session(self, stored_id: str = "") -> RefSession:
        n = next(self._ids)
        stored = stored_id or f"20261129_{n:06d}_stored"
        sid = stored if self.dialect is Dialect.C else f"{0x5E551000 + n:08x}"
        session = RefSession(sid, stored)
        self.sessions[sid] = session
        self.stored[stored] = session
        return session

    def live(self) -> list[RefSession]:
        return [s for s in self.sessions.values() if s.alive]

    def find(self, key: object) -> RefSession | None:
        if not isinstance(key, str):
            return None
        found = self.sessions.get(key)
        if found is None:
            found = next((s for s in self.sessions.values() if s.stored_id == key), None)
        return found if found is not None and found.alive else None

    # -- connection -----------------------------------------------------------------------
    def connect(self) -> None:
        self.connected = True
        for session in self.sessions.values():
            session.viewed = False
        epoch = self.authority_epoch()
        ready = gateway_ready_payload(
            self.wire,
            replay_epoch=f"epoch-{epoch}",
            authority_epoch=epoch,
            instance_id=f"gw-{epoch}",
        )
        self.reply(frames.event("gateway.ready", "", ready))

    def authority_epoch(self) -> int:
        """One more per server process (a restart, with or without its sessions)."""
        return 1 + self.stats["restart_keep"] + self.stats["restart_forget"]

    def disconnect(self) -> None:
        self.connected = False
        self.outbox.clear()
        for session in self.sessions.values():
            session.viewed = False

    # -- output ---------------------------------------------------------------------------
    def emit(self, session: RefSession, text: str, approval: ServerApproval | None = None) -> None:
        if self.connected and session.viewed:
            self.outbox.append(Outgoing(text, self.clock(), approval))

    def reply(self, text: str) -> None:
        if self.connected:
            self.outbox.append(Outgoing(text, self.clock()))

    # -- timers ---------------------------------------------------------------------------
    def at(self, when: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._timers, (when, next(self._seq), action))

    def next_timer(self) -> float | None:
        return self._timers[0][0] if self._timers else None

    def fire_due(self, now: float) -> None:
        while self._timers and self._timers[0][0] <= now:
            _, _, action = heapq.heappop(self._timers)
            action()

    # -- frames in ------------------------------------------------------------------------
    def receive(self, item: InFlight) -> None:
        """One client frame arrives (the moment the invariant is judged)."""
        try:
            msg = json.loads(item.frame.text)
        except ValueError:
            self.report("invalid frame", f"the core wrote non-JSON: {item.frame.text[:80]!r}")
            return
        if not isinstance(msg, dict):
            self.report("invalid frame", f"the core wrote a non-object: {item.frame.text[:80]!r}")
            return
        method = msg.get("method")
        if method is None:
            self.on_response(msg, item.attribution)
            return
        rpc_id = msg.get("id")
        raw = msg.get("params")
        params: Json = raw if isinstance(raw, dict) else {}
        if method == "approval.respond":
            self.stats["respond_arrived"] += 1
            self.on_respond(rpc_id, params, item.attribution)
        elif item.attribution is not None:
            self.report("decision in a non-decision frame", item.frame.text[:200])
        elif method == "client.capabilities":
            self.on_capabilities(rpc_id, params)
        elif method in ("session.resume", "session.activate"):
            self.on_resume(rpc_id, params)
        elif method == "session.interrupt":
            self.on_interrupt_call(rpc_id, params)
        else:
            self.on_other(rpc_id, method, params)

    def on_other(self, rpc_id: Any, method: str, params: Json) -> None:
        self.reply(frames.result(rpc_id, {}))

    def on_response(self, msg: Json, attribution: Attribution | None) -> None:
        self.report("unexpected response frame", json.dumps(msg)[:200])

    def on_interrupt_call(self, rpc_id: Any, params: Json) -> None:
        session = self.find(params.get("session_id"))
        if session is None:
            self.reply(frames.error(rpc_id, 4001, "session not found"))
            return
        self.reply(frames.result(rpc_id, {"status": "interrupted"}))
        if session.running:
            self.interrupt(session)

    # -- the invariant --------------------------------------------------------------------
    def verdict(
        self,
        attribution: Attribution | None,
        resolved: ServerApproval | None,
        choice: object,
        frame: str,
    ) -> None:
        """Judge a decision frame that just arrived and resolves ``resolved`` (None: nothing)."""
        if attribution is None:
            self.report("decision nobody made", frame[:200])
            return
        count = self._answered.get(attribution.key, 0) + 1
        self._answered[attribution.key] = count
        if count > 1:
            self.report("second decision for one row", f"{attribution.key}: {frame[:200]}")
        self._tray_answers[attribution.target.ident] += 1
        if self._tray_answers[attribution.target.ident] > 1:
            self.report("two decisions for one request", attribution.target.describe())
        if choice != attribution.choice:
            self.report("choice changed on the wire", f"{attribution.choice!r} -> {choice!r}")
        if resolved is None:
            self.stats["decision_found_nothing_open"] += 1
            return
        if resolved is not attribution.target:
            self.report(
                "decision resolved another request",
                f"person answered {attribution.target.describe()} ({attribution.key}), "
                f"server resolved {resolved.describe()} with {choice!r}",
            )
        if choice not in resolved.choices:
            self.report("choice not offered", f"{choice!r} not in {resolved.choices}")
        self.stats["decision_resolved_target"] += 1
        if resolved.ident in self.reused:
            self.stats["reused_id_answered"] += 1

    # -- hooks: the agent (``agent.AgentServer``) and the dialects ------------------------
    def close(self, approval: ServerApproval, outcome: str, by: str) -> bool:
        raise NotImplementedError

    def interrupt(self, session: RefSession) -> None:
        raise NotImplementedError

    def stamp(self, session: RefSession) -> Json:
        """Extra event params (C: the execution generation)."""
        return {}

    @property
    def wire(self) -> rules.Dialect:
        """This server's dialect, as the gateway model's rules name it."""
        return rules.Dialect[self.dialect.name]

    def ending(self, approval: ServerApproval) -> rules.Ending:
        """How ``approval`` ended, as the wire rules see it (answers: by RPC unless B says)."""
        by = approval.closed_by
        if by in ("tray", "other"):
            return rules.Ending.RPC
        return ENDING.get(by, rules.Ending.OTHER)

    def announce_close(self, approval: ServerApproval) -> None:
        """Tell the viewers ``approval`` ended, as the dialect does (A: never)."""
        said = rules.announcement(
            self.wire,
            self.ending(approval),
            method="approval",
            srq_id=approval.srq_id,
            prompt_id=approval.request_id,
            generation=approval.generation,
            say_expired=True,
        )
        if said is not None:
            kind, payload = said
            session = approval.session
            self.emit(session, frames.event(kind, session.sid, payload, **self.stamp(session)))

    def on_capabilities(self, rpc_id: Any, params: Json) -> None:
        raise NotImplementedError

    def on_resume(self, rpc_id: Any, params: Json) -> None:
        raise NotImplementedError

    def on_respond(self, rpc_id: Any, params: Json, attribution: Attribution | None) -> None:
        raise NotImplementedError

    def still_shows(self, approval: ServerApproval) -> bool:
        """What an honest person checks in Hermes before confirming a stale row."""
        return approval.open
