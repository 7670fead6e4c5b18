"""Dialect B, main tui_gateway (protocol.md §3.3, hermes-peer.md "The newer gateway, for real").

The rules that matter for safety: every approval is an ``srq-`` server→client request, answered
by a response frame with the same id (a late answer to a closed id is dropped without a reply);
``request.cancel`` withdraws timeouts, interrupts, session closes and RPC answers, but **an
answer another viewer sent as a response frame produces no cancel** (the card goes stale);
after a failure in a batch later commands are asked again with *new* ids while the old request
stays open; a resume re-delivers the open ones in ``open_requests``. ``approval.respond`` by RPC
resolves one entry by ``request_id`` (else the FIFO head) — the core should never need it.
Desktop-window requests (``terminal.read`` …) reach the tray too; only a 4404 decline leaves
them to the window (iot's ``declines_not_shown``), any other answer settles them ahead of it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from desktop.core.model import Dialect
from tests.gatewaymodel import approval_rules as rules
from tests.gatewaymodel.dialect import b_capabilities
from tests.safety.sim import frames, id_reuse
from tests.safety.sim.agent import Action, AgentServer
from tests.safety.sim.chooser import chance, pick
from tests.safety.sim.model import Attribution, Json, Outgoing, RefSession, ServerApproval

WINDOW_METHODS = ("terminal.read", "window.read", "preview.read", "preview.act", "tour")
NOT_SHOWN = 4404


class RefServerB(AgentServer):
    dialect: ClassVar[Dialect] = Dialect.B

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rpc_answered: set[int] = set()  # idents answered by another viewer's RPC
        self._published: dict[int, Json] = {}  # ident -> params as sent (re-delivered as is)
        self._asks: dict[int, rules.Ask] = {}  # ident -> what its params said of the command
        self._window_requests: set[str] = set()  # srq ids of desktop-window requests

    def publish(
        self, session: RefSession, command: str, reuse: ServerApproval | None = None
    ) -> ServerApproval:
        """Publish a request (``reuse``: under that request's ``srq`` id, see ``id_reuse``)."""
        approval = self.make_approval(session, command)
        if reuse is not None:
            approval.srq_id = reuse.srq_id
        flags = self.flags()
        approval.choices = tuple(
            rules.approval_choices(
                self.wire,
                allow_session=flags["allow_session"] and not flags["smart_denied"],
                allow_permanent=flags["allow_permanent"],
            )
        )
        self.stats["published"] += 1
        params = self._published[approval.ident] = self.params(approval, flags)
        self.emit(session, frames.server_request(approval.srq_id, "approval", params), approval)
        return approval

    def params(self, approval: ServerApproval, flags: Json) -> Json:
        """As 0.22.2.post1 sends them; every other request in the main-branch source's shape."""
        ask = self._asks[approval.ident] = self.ask_of(
            approval,
            allow_permanent=flags["allow_permanent"],
            allow_session=flags["allow_session"],
        )
        smart = flags["smart_denied"] or approval.choices == ("once", "deny")
        return rules.b_params(
            approval.session.sid,
            ask,
            approval.request_id,
            approval.choices,
            smart_denied=bool(flags["smart_denied"]) if smart else None,
            expires_at=12345.6 if approval.ident % 2 else None,
        )

    def dialect_actions(self, session: RefSession) -> list[Action]:
        reuse = id_reuse.actions(
            self,
            session,
            ident=lambda a: a.srq_id,
            reusable=lambda a: a.closed_by == "tray",  # no answer of ours can be on its way
            publish=self.publish,
        )
        window = ("window request", 1, lambda: self.window_request(session))
        if not session.asked:
            return [window, *reuse]
        return [("re-ask after a failure", 2, lambda: self.reask(session)), window, *reuse]

    def window_request(self, session: RefSession) -> None:
        """A desktop-window bridge: no answer of the tray's may settle it (module docstring)."""
        srq_id = f"srq-{next(self._ids):012x}"
        self._window_requests.add(srq_id)
        self.stats["window_requests"] += 1
        method = pick(self.chooser, WINDOW_METHODS)
        self.emit(session, frames.server_request(srq_id, method, {"session_id": session.sid}))

    def reask(self, session: RefSession) -> None:
        """The re-gate: a later command of the batch asked again with new ids (old stays)."""
        earlier = pick(self.chooser, session.asked)
        self.stats["reasks"] += 1
        self.publish(session, earlier.command)

    def other_answers(self, session: RefSession) -> None:
        target = self.other_target(session)
        if chance(self.chooser, 50):
            self._rpc_answered.add(target.ident)  # approval.respond by RPC: cancels go out
        self.stats["other_viewer_answers"] += 1
        choice = pick(self.chooser, target.choices)
        self.close(target, "deny" if choice == "deny" else f"approve:{choice}", "other")

    def ending(self, approval: ServerApproval) -> rules.Ending:
        """Answers are response frames unless they came by ``approval.respond``."""
        ending = super().ending(approval)
        if ending is rules.Ending.RPC and approval.ident not in self._rpc_answered:
            return rules.Ending.FRAME
        return ending

    def on_capabilities(self, rpc_id: Any, params: Json) -> None:
        self.reply(frames.result(rpc_id, b_capabilities(params.get("server_requests"))))

    def on_resume(self, rpc_id: Any, params: Json) -> None:
        session = self.resumed_session(params.get("session_id"))
        if session is None:
            self.reply(frames.error(rpc_id, 4007, "session not found"))
            return
        session.viewed = True
        pending = session.open_approvals()
        snapshot = {
            "session_id": session.sid,
            "stored_session_id": session.stored_id,
            "running": session.running,
            "status": rules.session_status(
                self.wire, running=session.running, waiting=bool(pending)
            ),
            "info": self.info(session),
            **rules.b_redelivery((a.srq_id, "approval", self._published[a.ident]) for a in pending),
        }
        self.reply(frames.result(rpc_id, snapshot))

    def on_other(self, rpc_id: Any, method: str, params: Json) -> None:
        if method == "approval.pending":
            session = self.find(params.get("session_id"))
            items = [] if session is None else session.open_approvals()
            body = {
                "approvals": [
                    rules.b_pending_item(self._asks[a.ident], a.request_id) for a in items
                ]
            }
            others = [] if session is None else session.asked
            gone = {a.request_id for a in others if a.closed_by == "other"}
            gone -= {a.request_id for a in items}
            if self.connected:
                reply = frames.result(rpc_id, body)
                self.outbox.append(
                    Outgoing(reply, self.clock(), answered_elsewhere=frozenset(gone))
                )
            return
        super().on_other(rpc_id, method, params)

    def on_response(self, msg: Json, attribution: Attribution | None) -> None:
        if msg.get("id") in self._window_requests:
            error = msg.get("error")
            if not isinstance(error, dict) or error.get("code") != NOT_SHOWN:
                self.report("settled a window request ahead of its window", repr(msg)[:200])
            return
        target = rules.b_by_srq(self.approvals, msg.get("id"))
        if "error" in msg:
            if target is not None and target.open:
                self.report("withdrew an approval nobody answered", repr(msg)[:200])
            return
        body = msg.get("result")
        if target is None:
            self.report("answer to an id the server never sent", repr(msg)[:200])
            return
        if not isinstance(body, dict):
            self.report("malformed answer", repr(msg)[:200])
            return
        if body.get("all"):
            self.report("approve-all on the wire", repr(msg)[:200])
        choice = body.get("choice")
        self.stats["responses_arrived"] += 1
        self.verdict(attribution, target if target.open else None, choice, repr(msg))
        if target.open:
            ok = rules.approves(self.wire, choice)
            self.close(target, f"approve:{choice}" if ok else "deny", "tray")

    def on_respond(self, rpc_id: Any, params: Json, attribution: Attribution | None) -> None:
        if params.get("all"):
            self.report("approve-all on the wire", repr(params))
        session = self.find(params.get("session_id"))
        found = rules.b_respond_targets(
            (a for a in self.approvals if a.open),
            lambda: [] if session is None else session.open_approvals(),
            params,
        )
        choice = params.get("choice")
        self.verdict(attribution, found[0] if found else None, choice, repr(params))
        ok = rules.approves(self.wire, choice)
        for target in found:
            self._rpc_answered.add(target.ident)
            self.close(target, f"approve:{choice}" if ok else "deny", "tray")
        self.reply(frames.result(rpc_id, {"resolved": len(found)}))
