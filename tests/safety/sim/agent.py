"""The scripted agent behind a reference gateway: turns, asks, timeouts, other viewers.

The interleaver picks among :meth:`AgentServer.agent_actions` (start a turn, ask — a batch on
B/C —, re-ask after a failure, another viewer answers, interrupt, end the turn, close the
session); approval timeouts and tool completions run on the server's timers. Every approval is
closed exactly once (:meth:`AgentServer.close`); the dialect decides what viewers hear then.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from desktop.core.model import Dialect
from tests.gatewaymodel import approval_rules as rules
from tests.gatewaymodel import results
from tests.gatewaymodel.approval_rules import Outcome, OutcomeKind
from tests.gatewaymodel.script import Command
from tests.safety.sim import frames
from tests.safety.sim.chooser import chance, pick
from tests.safety.sim.model import Json, RefSession, ServerApproval
from tests.safety.sim.refserver import RefServer

COMMANDS = ("rm -rf build/", "rm -rf build/ ", "chmod 777 run.sh", "find . -delete", "git push -f")
PATTERNS = {"rm": "delete in root path", "ch": "world-writable", "fi": "find -delete"}
Action = tuple[str, int, Callable[[], None]]
# ``ServerApproval.outcome`` ("approve:once", "deny", ...) -> the model's; anything else (a
# request replaced under its id) was withdrawn.
OUTCOME_KIND: dict[str, OutcomeKind] = {
    "approve": "approve",
    "deny": "deny",
    "timeout": "timeout",
    "interrupted": "interrupted",
    "closed": "closed",
}


class AgentServer(RefServer):
    """A reference gateway with its agent; subclasses add one dialect's wire rules."""

    def restart(self, keep: bool) -> None:
        """A new server process: connections are gone; sessions survive only with ``keep``."""
        self.disconnect()
        self.stats["restart_keep" if keep else "restart_forget"] += 1
        if keep:
            return
        for session in list(self.sessions.values()):
            for approval in session.open_approvals():
                self.close(approval, "closed", "restart")
            session.alive = False
            session.running = False
            self.rebuildable.add(session.stored_id)
            self.stored[session.stored_id] = None
        self.sessions.clear()

    # -- approvals ------------------------------------------------------------------------
    def make_approval(self, session: RefSession, command: str = "") -> ServerApproval:
        ident = next(self._ids)
        command = command or pick(self.chooser, COMMANDS)
        keys = (PATTERNS.get(command[:2], "dangerous"),)
        approval = ServerApproval(
            ident,
            session,
            command,
            keys,
            choices=(),
            published_at=self.clock(),
            tool_id=f"call_{ident}_0",
            srq_id=f"srq-{ident:012x}",
            request_id=f"req-{ident:06d}",
            generation=session.generation,
        )
        self.approvals.append(approval)
        session.asked.append(approval)
        self.at(self.clock() + self.config.approval_timeout, lambda: self.expire(approval))
        return approval

    @staticmethod
    def ask_of(approval: ServerApproval, **allow: bool) -> rules.Ask:
        """What ``approval`` says of its command (``allow``: ``allow_session``/``_permanent``)."""
        return rules.Ask(approval.command, approval.pattern_keys, "dangerous command", **allow)

    def flags(self) -> dict[str, Any]:
        """The payload flags that decide ``choices`` (protocol.md §3.2-3.4)."""
        return {
            "allow_permanent": not chance(self.chooser, 25),
            "allow_session": not chance(self.chooser, 15),
            "smart_denied": chance(self.chooser, 5),
        }

    def expire(self, approval: ServerApproval) -> None:
        if approval.open:
            self.stats["server_timeouts"] += 1
            self.close(approval, "timeout", "timer")

    def close(self, approval: ServerApproval, outcome: str, by: str) -> bool:
        """End ``approval`` once; the dialect says what the viewers hear."""
        if not approval.open:
            return False
        approval.open, approval.outcome, approval.closed_by = False, outcome, by
        if by in ("other", "interrupt", "close"):
            session = approval.session
            session.quiet_until = max(session.quiet_until, self.clock() + self.config.think_time)
        self.announce_close(approval)
        if by not in ("interrupt", "close", "restart"):
            self.run_tool_later(approval)
        return True

    def run_tool_later(self, approval: ServerApproval) -> None:
        session = approval.session
        session.tools_running += 1
        ran = approval.outcome.startswith("approve")
        duration = 0.1 + self.chooser.below(30) / 10 if ran else 0.0  # blocked: at once

        def done() -> None:
            session.tools_running -= 1
            if approval.closed_by == "other":
                # The tray learns that another surface answered only from this tool.complete;
                # the next ask keeps a round trip away from it too (see ServerConfig).
                quiet = self.clock() + self.config.think_time
                session.quiet_until = max(session.quiet_until, quiet)
            if session.alive:
                self.emit(session, self.tool_complete(approval))

        if duration:
            self.at(self.clock() + duration, done)
        else:
            done()

    def tool_complete(self, approval: ServerApproval) -> str:
        """What the agent's terminal tool reports, worded as the gateway model words it."""
        kind, _, choice = approval.outcome.partition(":")
        outcome = Outcome(OUTCOME_KIND.get(kind, "withdrawn"), choice or None, detail=kind)
        if outcome.approved:
            command = Command(approval.command, approval.pattern_keys[0], "dangerous command")
            result = results.executed(command, outcome)
        else:
            result = results.blocked(outcome, self.wire)
        payload: Json = {"tool_id": approval.tool_id, "name": "terminal", "result": result}
        return frames.event(
            "tool.complete", approval.session.sid, payload, **self.stamp(approval.session)
        )

    # -- agent actions --------------------------------------------------------------------
    def agent_actions(self) -> list[Action]:
        actions: list[Action] = []
        for s in self.live():
            if not s.running:
                actions.append(("start turn", 3, partial(self.start_turn, s)))
                continue
            if self.may_ask(s) and (s.viewed or not self.config.ask_only_when_viewed):
                actions.append(("ask", 6, partial(self.ask, s)))
            if s.open_approvals() and self.config.other_viewers:
                actions.append(("another viewer answers", 1, partial(self.other_answers, s)))
            if chance(self.chooser, 40):
                actions.append(("interrupt", 1, partial(self.interrupt, s)))
            if not s.open_approvals() and not s.tools_running:
                actions.append(("end turn", 3, partial(self.end_turn, s)))
            actions.extend(self.dialect_actions(s))
        if self.live() and chance(self.chooser, 15):
            actions.append(
                ("close session", 1, lambda: self.close_session(pick(self.chooser, self.live())))
            )
        return actions

    def start_turn(self, session: RefSession) -> None:
        session.running, session.asked = True, []
        if self.dialect is Dialect.C:
            session.generation += 1
        self.emit(session, frames.event("message.start", session.sid, **self.stamp(session)))
        self.stats["turns"] += 1

    def end_turn(self, session: RefSession, status: str = "complete") -> None:
        session.running = False
        payload = {"text": "done", "status": status, "usage": {"total": 1}}
        self.emit(
            session, frames.event("message.complete", session.sid, payload, **self.stamp(session))
        )
        self.emit(session, self.info_event(session))

    def interrupt(self, session: RefSession) -> None:
        self.stats["interrupts"] += 1
        session.quiet_until = max(session.quiet_until, self.clock() + self.config.think_time)
        for approval in session.open_approvals():
            self.close(approval, "interrupted", "interrupt")
            self.emit(session, self.tool_complete(approval))
        self.end_turn(session, "interrupted")

    def other_answers(self, session: RefSession) -> None:
        target = self.other_target(session)
        choice = pick(self.chooser, target.choices)
        self.stats["other_viewer_answers"] += 1
        self.close(target, "deny" if choice == "deny" else f"approve:{choice}", "other")

    def close_session(self, session: RefSession) -> None:
        self.stats["sessions_closed"] += 1
        for approval in session.open_approvals():
            self.close(approval, "closed", "close")
        session.alive, session.running = False, False
        self.stored[session.stored_id] = None
        self.rebuildable.discard(session.stored_id)
        self.sessions.pop(session.sid, None)

    def info_event(self, session: RefSession) -> str:
        return frames.event("session.info", session.sid, self.info(session), **self.stamp(session))

    def info(self, session: RefSession) -> Json:
        return {"running": session.running, "stored_session_id": session.stored_id}

    def may_ask(self, session: RefSession) -> bool:
        """Whether the agent may ask now (B and C: always; 0.19.0 overrides)."""
        return True

    def ask(self, session: RefSession) -> None:
        """A batch of one or more requests (0.19.0 overrides: one at a time)."""
        for _ in range(1 + self.chooser.below(self.config.max_batch)):
            self.publish(session, "")

    def publish(
        self, session: RefSession, command: str, reuse: ServerApproval | None = None
    ) -> ServerApproval:
        raise NotImplementedError

    def resumed_session(self, stored: object) -> RefSession | None:
        """The session a ``session.resume`` names; after a restart, rebuilt under a new live id."""
        session = self.find(stored)
        if session is None and isinstance(stored, str) and stored in self.rebuildable:
            self.rebuildable.discard(stored)
            session = self.new_session(stored)
            self.stats["rebuilt_sessions"] += 1
        return session

    def other_target(self, session: RefSession) -> ServerApproval:
        return pick(self.chooser, session.open_approvals())

    def dialect_actions(self, session: RefSession) -> list[Action]:
        return []
