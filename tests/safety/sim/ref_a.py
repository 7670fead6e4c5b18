"""Dialect A, hermes-agent 0.19.0 (protocol.md §3.2, hermes-peer.md "What 0.19.0 does").

The rules that matter for safety: an ``approval.request`` event carries no id; ``approval.respond
{session_id, choice}`` resolves the session's *oldest* open approval, whatever the client meant;
timeouts, interrupts and answers from elsewhere send nothing for the card (only the later
``tool.complete``/``message.complete``); events reach only the connection that last resumed the
session; a resume re-sends no pending approval. Measured: one pending approval per session at a
time (``max_open_a=1``); ``max_open_a=2`` models parallel tools (``FakeGateway.raise_approval``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from desktop.core.model import Dialect
from tests.gatewaymodel import approval_rules as rules
from tests.safety.sim import frames
from tests.safety.sim.agent import AgentServer
from tests.safety.sim.model import Attribution, Json, RefSession, ServerApproval

A_FALLBACK = ("once", "deny")  # no choices key (MCP elicitation): offer the protocol fallback


class RefServerA(AgentServer):
    dialect: ClassVar[Dialect] = Dialect.A

    def may_ask(self, session: RefSession) -> bool:
        now = self.clock()
        quiet = now >= session.quiet_until
        if self.config.max_open_a == 1:
            quiet = quiet and not session.tools_running  # terminal calls run one by one
        return quiet and len(session.open_approvals()) < self.config.max_open_a

    def ask(self, session: RefSession) -> None:
        approval = self.make_approval(session)
        flags = self.flags()
        if flags["smart_denied"]:
            approval.choices = ("once", "deny")
            payload = rules.a_payload(self.ask_of(approval), approval.choices, smart_denied=True)
        elif self.chooser.below(20) == 0:
            approval.choices = A_FALLBACK  # no allow_permanent, no choices at all
            payload = rules.a_payload(self.ask_of(approval), None)
        else:
            permanent = flags["allow_permanent"]
            approval.choices = tuple(
                rules.approval_choices(self.wire, allow_session=True, allow_permanent=permanent)
            )
            ask = self.ask_of(approval, allow_permanent=permanent)
            payload = rules.a_payload(ask, approval.choices)
        self.stats["published"] += 1
        tool = {"tool_id": approval.tool_id, "name": "terminal", "context": approval.command}
        self.emit(session, frames.event("tool.start", session.sid, tool))
        self.emit(session, frames.event("approval.request", session.sid, payload), approval)

    def other_target(self, session: RefSession) -> ServerApproval:
        return rules.a_targets(session.open_approvals(), {})[0]  # another surface's: the head

    def on_capabilities(self, rpc_id: Any, params: Json) -> None:
        self.reply(frames.error(rpc_id, -32601, "unknown method: client.capabilities"))

    def on_resume(self, rpc_id: Any, params: Json) -> None:
        session = self.resumed_session(params.get("session_id"))
        if session is None:
            self.reply(frames.error(rpc_id, 4007, "session not found"))
            return
        session.viewed = True  # one transport per session: ours now
        snapshot = {
            "session_id": session.sid,
            "session_key": session.stored_id,
            "resumed": True,
            "message_count": 0,
            "messages": [],
            "running": session.running,
            "status": rules.session_status(
                self.wire, running=session.running, waiting=bool(session.open_approvals())
            ),
            "info": self.info(session),
        }
        self.reply(frames.result(rpc_id, snapshot))

    def on_respond(self, rpc_id: Any, params: Json, attribution: Attribution | None) -> None:
        text = frames.result(rpc_id, {})  # for the verdict's excerpt only
        if "all" in params:
            self.report("approve-all on the wire", repr(params))
        extra = set(params) - {"session_id", "choice", "request_id"}
        if extra:
            self.report("unexpected approval.respond keys", repr(sorted(extra)))
        session = self.find(params.get("session_id"))
        if session is None:
            self.verdict(attribution, None, params.get("choice"), text)
            self.reply(frames.error(rpc_id, 4001, "session not found"))
            return
        targets = rules.a_targets(session.open_approvals(), params)
        choice = params.get("choice")
        self.verdict(attribution, targets[0] if targets else None, choice, repr(params))
        approved = rules.approves(self.wire, choice)
        for target in targets:
            self.close(target, f"approve:{choice}" if approved else "deny", "tray")
        self.reply(frames.result(rpc_id, {"resolved": len(targets)}))

    def still_shows(self, approval: ServerApproval) -> bool:
        pending = approval.session.open_approvals()
        return bool(pending) and pending[0] is approval
