"""Open prompts: how an approval is published, answered, withdrawn or timed out, per dialect.

Publishing: A sends an ``approval.request`` *event* with no id; B sends an ``srq-`` server→client
request to every attached viewer that declared ``client.capabilities {server_requests: true}``
(if viewers are attached and none did, the request is withdrawn at once and nothing is sent);
C sends an ``approval.request`` event with ``prompt_id`` and ``execution_generation``.

Closing: every request ends exactly once (:meth:`RequestBroker.close`). What the *other* viewers
are told follows the measurements in ``hermes-peer.md``: A says nothing ever; B says nothing when
a viewer answered with a response frame (first answer wins, later answers get no reply) and sends
``request.cancel {id, method, reason}`` for RPC answers (``resolved``), timeouts, interrupts and
session closes; C sends ``approval.settled`` in every case, to the answerer too.
"""

from __future__ import annotations

from typing import Any

from desktop.demo import wire
from desktop.demo.dialect import Dialect, approval_choices, approves
from desktop.demo.model import Outcome, OutcomeKind, PendingRequest, Session
from desktop.demo.script import Command
from desktop.demo.world import World

NO_CLIENT = "the attached client cannot answer approval requests (update the Hermes app)"


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
        choices = approval_choices(
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

        The tray is expected to refuse window requests and may answer a ``clarify`` question.
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
            self.close(req, Outcome("withdrawn", via="no-client", detail=NO_CLIENT))
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
            self.close(req, Outcome("timeout", via="timer"), reason="timeout")

    # -- payloads ---------------------------------------------------------------------------

    @staticmethod
    def a_payload(req: PendingRequest) -> dict[str, Any]:
        """0.19.0 ``approval.request`` event payload (no id of any kind)."""
        return {**_pattern_fields(_command(req)), "choices": list(req.choices)}

    @staticmethod
    def b_pending(req: PendingRequest) -> dict[str, Any]:
        """B ``approval.pending`` item (the measured build leaves ``choices`` out here)."""
        cmd = _command(req)
        return {
            **_pattern_fields(cmd),
            "allow_session": cmd.allow_session,
            "request_id": req.request_id,
        }

    def b_params(self, req: PendingRequest) -> dict[str, Any]:
        """B ``approval`` server-request params, key order as measured."""
        if req.method != "approval":
            return {"session_id": req.session.sid, **req.params}
        params = {"session_id": req.session.sid, **self.b_pending(req)}
        params["choices"] = list(req.choices)
        return params

    @staticmethod
    def c_payload(req: PendingRequest) -> dict[str, Any]:
        """C ``approval.request`` payload (also the items of a snapshot's ``prompts``)."""
        cmd = _command(req)
        return {
            "kind": "approval",
            "prompt_id": req.prompt_id,
            "execution_generation": req.generation,
            "command": cmd.command,
            "description": _description(cmd),
            "choices": list(req.choices),
        }

    # -- closing ----------------------------------------------------------------------------

    def close(self, req: PendingRequest, outcome: Outcome, *, reason: str | None = None) -> bool:
        """End ``req`` once with ``outcome``; B sends ``request.cancel`` when ``reason`` is set.

        Returns False when the request was already closed (nothing happens then).
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
        if world.dialect is Dialect.B and reason is not None:
            world.pub.emit(
                req.session,
                "request.cancel",
                {"id": req.srq_id, "method": req.method, "reason": reason},
            )
        elif world.dialect is Dialect.C and req.method == "approval":
            world.pub.emit(
                req.session,
                "approval.settled",
                {"prompt_id": req.prompt_id, "execution_generation": req.generation},
            )
        world.changed()
        return True

    def answer(
        self, req: PendingRequest, choice: Any, *, via: str, reason: str | None = None
    ) -> bool:
        """A human answered ``req`` with ``choice``; remember session/always keys."""
        outcome = self.decide(choice, via)
        if outcome.approved and req.command is not None:
            keys = set(req.command.pattern_keys)
            if outcome.choice in ("session", "always"):
                req.session.session_allow |= keys
            if outcome.choice == "always":
                self.world.permanent_allow |= keys
        return self.close(req, outcome, reason=reason)

    def decide(self, choice: Any, via: str) -> Outcome:
        """Map a wire choice to an outcome (:func:`~desktop.demo.dialect.approves`)."""
        if approves(self.world.dialect, choice):
            return Outcome("approve", str(choice), via)
        if self.world.dialect is Dialect.A or choice is None:
            return Outcome("deny", "deny", via)
        return Outcome("deny", str(choice), via)

    def withdraw_session(self, session: Session, kind: OutcomeKind, reason: str) -> int:
        """Interrupt or close: end every open request of ``session``; returns how many."""
        count = 0
        for req in self.world.open_requests(session):
            via = "interrupt" if kind == "interrupted" else "close"
            count += self.close(req, Outcome(kind, via=via), reason=reason)
        return count

    def on_response(self, conn_index: int, incoming: wire.Incoming) -> None:
        """A response frame to one of our ``srq-`` requests; late or unknown ids get no reply."""
        req = next((r for r in self.world.requests if r.srq_id == incoming.rpc_id), None)
        if req is None or not req.is_open:
            self.world.late_answers.append(
                {"conn": conn_index, "frame": incoming.raw, "known": req is not None}
            )
            self.world.changed()
            return
        if incoming.error is not None:
            detail = NO_CLIENT if req.method == "approval" else incoming.error
            self.close(
                req,
                Outcome(
                    "withdrawn" if req.method == "approval" else "error", via="frame", detail=detail
                ),
            )
            return
        if req.method != "approval":
            self.close(req, Outcome("approve", via="frame", detail=incoming.result))
            return
        answer = incoming.result if isinstance(incoming.result, dict) else {}
        choice = answer.get("choice")
        others = self.world.open_approvals(req.session) if answer.get("all") else []
        self.answer(req, choice, via="frame")
        for other in others:
            if other is not req:
                self.answer(other, choice, via="frame-all", reason="resolved")


def _command(req: PendingRequest) -> Command:
    assert req.command is not None, "approval requests always carry their command"
    return req.command


def _description(cmd: Command) -> str:
    return cmd.description or cmd.pattern_key or "dangerous command"


def _pattern_fields(cmd: Command) -> dict[str, Any]:
    """The fields A's event payload and B's pending item share, in the measured order.

    One place for them, so the two dialects cannot drift apart on what a command is called.
    """
    return {
        "command": cmd.command,
        "pattern_key": cmd.pattern_key,
        "pattern_keys": list(cmd.pattern_keys),
        "description": _description(cmd),
        "allow_permanent": cmd.allow_permanent,
    }
