"""Dialect C, the canonical gateway (protocol.md §2.3, §3.4).

The rules that matter for safety: ``approval.request`` events carry ``prompt_id`` and
``execution_generation``; ``approval.respond`` must carry exactly ``session_id,
execution_generation, prompt_id, choice`` (any other key: ``invalid_params``), targets that
exact prompt of that generation (``not_found`` otherwise), refuses a choice that was not offered
and answers ``already_resolved`` for a closed prompt; ``approval.settled`` goes to every viewer
(the answerer too) whenever a prompt ends; each turn has a new generation; a resume lists the
open prompts in ``prompts[]``; the dialect is fixed by the ``hermes-gateway-v1`` subprotocol.
"""

from __future__ import annotations

from typing import Any, ClassVar

from desktop.core.model import Dialect
from tests.gatewaymodel import approval_rules as rules
from tests.safety.sim import frames, id_reuse
from tests.safety.sim.agent import Action, AgentServer
from tests.safety.sim.chooser import pick
from tests.safety.sim.model import Attribution, Json, RefSession, ServerApproval


class RefServerC(AgentServer):
    dialect: ClassVar[Dialect] = Dialect.C

    def stamp(self, session: RefSession) -> Json:
        return {"execution_generation": session.generation}

    def publish(
        self, session: RefSession, command: str, reuse: ServerApproval | None = None
    ) -> ServerApproval:
        """Publish a prompt (``reuse``: under that prompt's id, see ``id_reuse``)."""
        approval = self.make_approval(session, command)
        approval.request_id = reuse.request_id if reuse else f"prompt-{approval.ident:06d}"
        flags = self.flags()
        plain = not flags["smart_denied"]
        approval.choices = tuple(
            rules.approval_choices(
                self.wire,
                allow_session=plain and flags["allow_session"],
                allow_permanent=plain and flags["allow_permanent"],
            )
        )
        self.stats["published"] += 1
        self.emit(
            session,
            frames.event(
                "approval.request", session.sid, self.payload(approval), **self.stamp(session)
            ),
            approval,
        )
        return approval

    def payload(self, approval: ServerApproval) -> Json:
        ask = self.ask_of(approval)
        return rules.c_payload(approval.request_id, approval.generation, ask, approval.choices)

    def dialect_actions(self, session: RefSession) -> list[Action]:
        reuse = id_reuse.actions(
            self,
            session,
            ident=lambda a: a.request_id,
            reusable=lambda a: self.earlier_generation_only(a.request_id, session),
            publish=self.publish,
        )
        if not session.asked:
            return reuse
        return [("re-ask after a failure", 2, lambda: self.reask(session)), *reuse]

    def earlier_generation_only(self, prompt_id: str, session: RefSession) -> bool:
        """The id was used only in generations before the current one (answers stay exact)."""
        return all(
            a.generation < session.generation
            for a in self.approvals
            if a.request_id == prompt_id and a.session is session
        )

    def reask(self, session: RefSession) -> None:
        earlier = pick(self.chooser, session.asked)
        self.stats["reasks"] += 1
        self.publish(session, earlier.command)

    def on_capabilities(self, rpc_id: Any, params: Json) -> None:
        self.reply(frames.error(rpc_id, -32601, "unknown_method", "unknown_method"))

    def on_resume(self, rpc_id: Any, params: Json) -> None:
        session = self.find(params.get("session_id"))
        if session is None:
            self.reply(frames.error(rpc_id, 4001, "not_found", "not_found"))
            return
        session.viewed = True
        snapshot = {
            "session_id": session.sid,
            "stored_session_id": session.stored_id,
            "running": session.running,
            "execution_generation": session.generation,
            "authority_epoch": self.authority_epoch(),
            "subscription_id": f"sub-{session.sid}",
            "prompts": [self.payload(a) for a in session.open_approvals()],
            "info": self.info(session),
        }
        self.reply(frames.result(rpc_id, snapshot))

    def on_interrupt_call(self, rpc_id: Any, params: Json) -> None:
        session = self.find(params.get("session_id"))
        stale = params.get("execution_generation") != getattr(session, "generation", None)
        if session is not None and session.running and stale:
            self.reply(frames.error(rpc_id, 4001, "stale_generation", "stale_generation"))
            return
        super().on_interrupt_call(rpc_id, params)

    def on_respond(self, rpc_id: Any, params: Json, attribution: Attribution | None) -> None:
        answer = rules.c_respond(self.approvals, self.find(params.get("session_id")), params)
        choice = params.get("choice")
        if set(params) != set(rules.C_RESPOND_KEYS):
            self.report("approval.respond keys are not the closed set", repr(sorted(params)))
            self.verdict(attribution, None, choice, repr(params))
        else:
            self.check_address(attribution, params)
            found = answer.found
            self.verdict(attribution, found if found and found.open else None, choice, repr(params))
        if answer.error:
            self.reply(frames.error(rpc_id, 4001, answer.error, answer.error))
            return
        self.reply(frames.result(rpc_id, answer.result or {}))
        if answer.resolves and answer.found is not None:
            ok = rules.approves(self.wire, choice)
            self.close(answer.found, f"approve:{choice}" if ok else "deny", "tray")

    def check_address(self, attribution: Attribution | None, params: Json) -> None:
        """The frame names the very prompt the person answered (whatever the server finds)."""
        aimed = attribution.target if attribution is not None else None
        if aimed is not None and (
            params["prompt_id"] != aimed.request_id
            or params["execution_generation"] != aimed.generation
            or params["session_id"] != aimed.session.sid
        ):
            self.report(
                "decision addressed another prompt",
                f"person answered {aimed.describe()}, frame said {params!r}",
            )
