"""The interleaver's shared state: the core under test, the reference server, the wire between.

Why draining lives here: every input to the core (a frame, a tick, a decision, a loss) ends
with :meth:`SimWorld.drain`, which takes the frames the core wants written into the pump's
queue, attributes each decision frame to the ``decide()`` call that produced it (or reports a
decision nobody made), and maps every new approval row to the server request it came from.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from collections.abc import Callable

from desktop.core.events import ApprovalRequested
from desktop.core.gateway_core import CoreSettings, GatewayCore, OutboundFrame
from desktop.core.model import Approval, Dialect
from tests.core.frames import wire_of
from tests.gatewaymodel.approval_rules import newest
from tests.safety.sim.agent import AgentServer
from tests.safety.sim.chooser import Chooser
from tests.safety.sim.model import Attribution, InFlight, Outgoing, ServerApproval, Violation
from tests.safety.sim.ref_a import RefServerA
from tests.safety.sim.ref_b import RefServerB
from tests.safety.sim.ref_c import RefServerC
from tests.safety.sim.refserver import ServerConfig

# The dialects with a reference gateway here. hermes-agent 0.20 (answers by id) has none yet: its
# rules are pinned by tests/core/test_dialect_hermes020.py and the real peer's e2e tests.
SIMULATED = (Dialect.A, Dialect.B, Dialect.C)
SERVERS: dict[Dialect, type[AgentServer]] = {
    Dialect.A: RefServerA,
    Dialect.B: RefServerB,
    Dialect.C: RefServerC,
}


class SimWorld:
    """Core + reference server + the frames in between, on one simulated clock."""

    def __init__(
        self,
        dialect: Dialect,
        chooser: Chooser,
        *,
        server_config: ServerConfig,
        core_settings: CoreSettings,
        max_one_way: float,
        core_factory: Callable[..., GatewayCore] = GatewayCore,
    ) -> None:
        self.dialect, self.chooser, self.max_one_way = dialect, chooser, max_one_way
        self.now = 1000.0
        self.step = 0
        self.violations: list[Violation] = []
        self.stats: Counter[str] = Counter()
        self.trace: deque[str] = deque(maxlen=120)
        self.core = core_factory(clock=lambda: self.now, settings=core_settings)
        self.server = SERVERS[dialect](chooser, lambda: self.now, self.report, server_config)
        self.pump: deque[tuple[OutboundFrame, Attribution | None, float]] = deque()
        self.to_server: deque[InFlight] = deque()
        self.to_client: deque[Outgoing] = deque()
        self.lists_asked: dict[int, float] = {}  # approval.pending rpc id -> when the core asked
        self.connected = False
        self.network_faults = True
        self.epoch = 0
        self.origin: dict[str, ServerApproval] = {}  # core approval key -> server request
        self.decided: dict[str, str] = {}  # key -> choice of the decide() that was sent
        for session in self.server.sessions.values():
            self.core.watch_session(session.sid, stored_session_id=session.stored_id)
        self.drain()

    # -- reporting ------------------------------------------------------------------------
    def report(self, kind: str, detail: str) -> None:
        self.violations.append(Violation(self.step, kind, detail))
        self.trace.append(f"  !! {kind}: {detail}")

    def note(self, text: str) -> None:
        self.trace.append(f"{self.step:4d} t={self.now:8.2f} {text}")

    # -- mapping rows to server requests --------------------------------------------------
    def target_of(self, approval: Approval) -> ServerApproval | None:
        """The server request a core row was created from (None: cannot be traced).

        Rows from frames that carried no request (snapshots) are traced when they appear, by
        the id they are filed under, because a gateway may file another request under it later.
        """
        found = self.origin.get(approval.key)
        if found is not None:
            return found
        wire = wire_of(self.core, approval.key)

        def filed_under(candidate: ServerApproval) -> bool:
            if self.dialect is Dialect.B:
                return bool(wire.srq_id) and candidate.srq_id == wire.srq_id
            return (
                self.dialect is Dialect.C
                and bool(wire.request_id)
                and candidate.request_id == wire.request_id
                and candidate.generation == wire.execution_generation
            )

        return newest(self.server.approvals, filed_under)  # what the id means now (id_reuse)

    # -- core output ----------------------------------------------------------------------
    def after_input(self, tag: ServerApproval | None = None) -> None:
        """Events the core emitted: map new rows (``tag``: the request the frame carried)."""
        for event in self.core.events_received():
            if not isinstance(event, ApprovalRequested):
                continue
            self.stats["rows_created"] += 1
            self._trace(event.approval, tag)
        self.drain()

    def _trace(self, approval: Approval, tag: ServerApproval | None) -> None:
        if approval.key not in self.origin:
            found = tag or self.target_of(approval)
            if found is not None:
                self.origin[approval.key] = found

    def drain(self, attribution: Attribution | None = None) -> list[OutboundFrame]:
        """Move the core's frames into the pump's queue (certainly unsent when offline)."""
        taken: list[OutboundFrame] = []
        for _ in range(10):  # settling a frame never makes more than a few new ones
            frames = self.core.data_to_send()
            if not frames:
                break
            for frame in frames:
                taken.append(frame)
                self._check_shape(frame, attribution)
                mine = attribution if frame.is_decision else None
                if frame.rpc_id is not None and '"approval.pending"' in frame.text:
                    self.lists_asked[frame.rpc_id] = self.now
                if self.connected:
                    self.pump.append((frame, mine, self.now))
                else:
                    self.core.frame_failed(frame.frame_id, maybe_sent=False)
            self.after_events_only()
        return taken

    def after_events_only(self) -> None:
        for event in self.core.events_received():
            if isinstance(event, ApprovalRequested):
                self.stats["rows_created"] += 1
                self._trace(event.approval, None)

    def _check_shape(self, frame: OutboundFrame, attribution: Attribution | None) -> None:
        """A decision is flagged, attributed, and nothing else looks like one."""
        if frame.is_decision and attribution is None:
            self.report("decision frame nobody made", frame.text[:200])
        try:
            msg = json.loads(frame.text)
        except ValueError:
            self.report("invalid frame", frame.text[:120])
            return
        looks_like = isinstance(msg, dict) and (
            msg.get("method") in ("approval.respond", "request.answer")
            or ("result" in msg and any(a.srq_id == msg.get("id") for a in self.server.approvals))
        )
        if looks_like and not frame.is_decision:
            self.report("unflagged decision-shaped frame", frame.text[:200])

    def certainly_unsent(self, attribution: Attribution | None) -> None:
        """A decision frame failed before any byte left: the person may decide again."""
        if attribution is not None:
            self.decided.pop(attribution.key, None)
            self.stats["decisions_certainly_unsent"] += 1

    # -- server output --------------------------------------------------------------------
    def sync_server(self) -> None:
        """What the server emitted goes on the wire (only while connected)."""
        if self.connected:
            self.to_client.extend(self.server.outbox)
        self.server.outbox.clear()
