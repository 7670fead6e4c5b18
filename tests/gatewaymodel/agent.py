"""The scripted agent: runs one :class:`Turn` on one session, the way Hermes would.

Terminal commands follow the measured rules (``hermes-peer.md`` and the seed
``terminal_approval_batch.py``):

* a single command emits ``tool.start``, then asks (unless policy covers it), then completes;
* a batch on a desktop session (B, C) publishes every needed approval at once before anything
  runs, then runs in call order; each command waits for *its own* answer, then starts;
* once a command of the batch failed, was denied, timed out or was withdrawn, every later
  command is re-gated: its earlier answer is dropped and the live guard runs again, which asks
  with a *new* request unless ``session``/``always``/YOLO now covers it. No cancel is sent for
  the superseded request (it was already answered, or is still open and stays open);
* a decision nobody answered (clean, YOLO, approvals off, allowlist) is never consumed: the
  policy in force when the command runs decides, so YOLO switched off mid-batch makes later
  commands ask live.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.gatewaymodel import results
from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.model import Execution, Session
from tests.gatewaymodel.script import (
    Batch,
    Clarify,
    Command,
    Pause,
    Say,
    SetYolo,
    Status,
    Step,
    Title,
    Todo,
    Turn,
    UsageTick,
    WindowRequest,
)
from tests.gatewaymodel.steps import apply_todo, apply_usage
from tests.gatewaymodel.world import World


class TurnRunner:
    """Runs the steps of one turn; an interrupt or a session close ends it early."""

    def __init__(self, world: World, session: Session, turn: Turn, text: str) -> None:
        self.world = world
        self.session = session
        self.turn = turn
        self.text = text
        self.reply: str | None = turn.reply

    def stopped(self) -> bool:
        """True once the turn must not start anything new (a method: it changes across awaits)."""
        return self.session.interrupt.is_set() or self.session.closed

    async def run(self) -> None:
        """Run every step, then ``message.complete`` and a final ``session.info``."""
        world, session = self.world, self.session
        session.running, session.turn_started_at = True, time.time()
        session.inflight_user, session.inflight_assistant = self.text, ""
        session.messages.append({"role": "user", "text": self.text})
        if world.dialect is Dialect.C:
            session.generation += 1
        if world.dialect is not Dialect.A:
            world.pub.send_info(session)
        world.pub.emit(session, "message.start")
        for step in self.turn.steps:
            if self.stopped():
                break
            await self.step(step)
        interrupted = session.interrupt.is_set()
        session.running, session.turn_started_at = False, None
        session.interrupt.clear()
        session.last_active = time.time()
        if session.closed:
            world.changed()
            return
        text = None if interrupted else self.reply
        if text:
            session.messages.append({"role": "assistant", "text": text})
        world.pub.emit(
            session,
            "message.complete",
            {
                "text": text,
                "usage": dict(session.usage),
                "status": "interrupted" if interrupted else "complete",
            },
        )
        world.pub.send_info(session)
        world.trim()

    async def step(self, step: Step) -> None:
        """Dispatch one step."""
        if isinstance(step, Say):
            await self._say(step)
        elif isinstance(step, Command):
            await self._single(step, self._tool_id(self.world.next_call(), 0))
        elif isinstance(step, Batch):
            await self._batch(step.commands)
        elif isinstance(step, Todo):
            apply_todo(self.world, self.session, step, self._tool_id(self.world.next_call(), 0))
        elif isinstance(step, UsageTick):
            apply_usage(self.world, self.session, step)
        elif isinstance(step, SetYolo):
            self.session.yolo = (not self.session.yolo) if step.on is None else step.on
            self.world.pub.send_info(self.session)
        elif isinstance(step, Pause):
            await self.pause(step.seconds)
        elif isinstance(step, Title):
            self.session.title = step.title
            self.world.pub.emit(
                self.session,
                "session.title",
                {"session_id": self.session.stored_id, "title": step.title},
            )
            self.world.pub.broadcast("sessions.changed")
        elif isinstance(step, Status):
            self.world.pub.emit(
                self.session, "status.update", {"kind": step.kind, "text": step.text}
            )
        elif isinstance(step, Clarify):
            await self._clarify(step)
        else:
            await self._window(step)

    async def pause(self, seconds: float) -> None:
        """Sleep ``seconds`` of script time, ending early on interrupt or close."""
        if self.stopped():
            return
        sleeper = asyncio.ensure_future(self.world.clock.sleep(seconds))
        waker = asyncio.ensure_future(self.session.interrupt.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()
            await asyncio.gather(sleeper, waker, return_exceptions=True)

    # -- messages ---------------------------------------------------------------------

    async def _say(self, step: Say) -> None:
        words = step.text.split(" ")
        for i, word in enumerate(words):
            if self.stopped():
                return
            chunk = word if i == len(words) - 1 else word + " "
            self.session.inflight_assistant += chunk
            self.world.pub.emit(self.session, "message.delta", {"text": chunk})
            await self.pause(step.word_delay)
        if self.turn.reply is None:
            self.reply = step.text

    # -- terminal commands ----------------------------------------------------------------------

    @staticmethod
    def _tool_id(call: int, index: int) -> str:
        return f"call_{call}_{index}"

    def _tool_start(self, tool_id: str, command: Command) -> None:
        payload: dict[str, Any] = {
            "tool_id": tool_id,
            "name": "terminal",
            "context": f"Running {command.command}",
        }
        if self.world.dialect is not Dialect.A:
            payload.update(context=command.command, args={"command": command.command})
        self.world.pub.emit(self.session, "tool.start", payload)

    async def _gate_live(self, command: Command, *, reask: bool = False) -> Outcome:
        """The guard as it runs right before the command: policy, else ask and wait."""
        label = self.world.auto_decision(self.session, command)
        if label is not None:
            return Outcome("approve", via="policy", detail=label)
        req = self.world.reqs.open_approval(self.session, command, reask=reask)
        return await req.future

    async def _single(self, command: Command, tool_id: str) -> bool:
        self._tool_start(tool_id, command)
        outcome = await self._gate_live(command)
        return await self._complete(tool_id, command, outcome)

    async def _complete(self, tool_id: str, command: Command, outcome: Outcome) -> bool:
        """Run (simulated) or block; emit ``tool.complete``; return True when it failed."""
        world, duration = self.world, 0.0
        if outcome.approved:
            duration = command.duration
            await world.clock.sleep(command.duration)
            human = "human" if outcome.via != "policy" else str(outcome.detail)
            world.executed.append(
                Execution(self.session.sid, tool_id, command.command, command.exit_code, human)
            )
            result = results.executed(command, outcome)
            failed = command.exit_code != 0
        else:
            result, failed = results.blocked(outcome, world.dialect), True
        if not self.session.closed:
            world.pub.emit(
                self.session,
                "tool.complete",
                {
                    "tool_id": tool_id,
                    "name": "terminal",
                    "args": {"command": command.command},
                    "duration_s": duration,
                    "result": result,
                },
            )
        world.changed()
        return failed

    async def _batch(self, commands: tuple[Command, ...]) -> None:
        if not self.world.is_batch_session(self.session) or len(commands) < 2:
            call = self.world.next_call()
            for i, command in enumerate(commands):
                if self.stopped():
                    return
                await self._single(command, self._tool_id(call, i))
            return
        call, session = self.world.next_call(), self.session
        slots = [
            (
                c,
                None
                if self.world.auto_decision(session, c)
                else self.world.reqs.open_approval(session, c),
            )
            for c in commands
        ]
        failure_seen = False
        for i, (command, req) in enumerate(slots):
            tool_id = self._tool_id(call, i)
            prepared = await req.future if req is not None else None
            if self.stopped():
                self._preparation_cancelled(tool_id, command)
                return
            self._tool_start(tool_id, command)
            if prepared is None or failure_seen:
                prepared = await self._gate_live(command, reask=req is not None)
            failure_seen |= await self._complete(tool_id, command, prepared)
            if self.stopped():
                return

    def _preparation_cancelled(self, tool_id: str, command: Command) -> None:
        if not self.session.closed:
            self.world.pub.emit(
                self.session,
                "tool.complete",
                {
                    "tool_id": tool_id,
                    "name": "terminal",
                    "args": {"command": command.command},
                    "result": results.PREPARATION_CANCELLED,
                },
            )

    async def _window(self, step: WindowRequest) -> None:
        tool_id = self._tool_id(self.world.next_call(), 0)
        self.world.pub.emit(
            self.session, "tool.start", {"tool_id": tool_id, "name": step.tool_name, "context": ""}
        )
        if self.world.dialect is Dialect.B:
            req = self.world.reqs.open_window(self.session, step.method, step.timeout)
            result = results.window_result(await req.future)
        else:
            result = {"error": results.NO_TERMINAL}
        if not self.session.closed:
            self.world.pub.emit(
                self.session,
                "tool.complete",
                {
                    "tool_id": tool_id,
                    "name": step.tool_name,
                    "args": {},
                    "duration_s": 0.0,
                    "result": result,
                },
            )

    async def _clarify(self, step: Clarify) -> None:
        tool_id = self._tool_id(self.world.next_call(), 0)
        self.world.pub.emit(
            self.session, "tool.start", {"tool_id": tool_id, "name": "clarify", "context": ""}
        )
        result: dict[str, Any] = {"error": results.NO_CLARIFY}
        if self.world.dialect is Dialect.B:
            question = {"qid": step.qid, "question": step.question, "multi_select": False}
            question["choices"] = list(step.choices) or None
            req = self.world.reqs.open_window(
                self.session, "clarify", step.timeout, {"questions": [question]}
            )
            result = results.clarify_result(await req.future, step.qid)
            self.world.clarify_answers.append(result)
        if not self.session.closed:
            self.world.pub.emit(
                self.session,
                "tool.complete",
                {"tool_id": tool_id, "name": "clarify", "args": {}, "result": result},
            )


async def drive(world: World, session: Session, turn: Turn, text: str) -> None:
    """Run ``turn``, then any turns queued meanwhile (A's ``status: queued``)."""
    await TurnRunner(world, session, turn, text).run()
    while session.queued and not session.closed:
        next_turn, next_text = session.queued.popleft()
        await TurnRunner(world, session, next_turn, next_text).run()
    session.turn_task = None
    world.changed()


def start_turn(world: World, session: Session, text: str, turn: Turn | None = None) -> str:
    """Start (or queue) a turn; returns the ``prompt.submit`` status for the dialect."""
    if turn is None:
        turn = world.queued_turns.popleft() if world.queued_turns else world.turns(text)
    if session.turn_task is not None:
        if world.dialect is Dialect.B:
            session.steers.append(text)
            return "redirected"
        session.queued.append((turn, text))
        return "queued"
    session.turn_task = world.spawn(drive(world, session, turn, text))
    return "streaming"
