"""Hermes stops waiting by itself (a short ``approvals.timeout``): the row ends expired, and a
late click on it can never answer the *next* command's approval. And the reverse: while Hermes
still waits (a long timeout), the tray must not give up on the row by itself.

Why this matters most on 0.19.0: ``approval.respond`` carries no id and resolves whatever the
session waits on now, so a decision meant for the expired command would approve the next one.
On iot the late answer would go to a withdrawn ``srq`` id. In both, the next command must keep
waiting for its own answer; here nobody gives one, so it expires too and never runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionRequest
from tests.e2e import person
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import BOTH, intact, one_by_one, rm, victim
from tests.e2e.tray_app import GATEWAY_ID, OFFSCREEN_LIMITS, OffsetClock, TrayApp, outcome
from tests.peers.fake_model import FakeModel

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key
SERVER_TIMEOUT_S = 5


@pytest.mark.parametrize("version", BOTH)
def test_expired_row_never_answers_the_next_command(
    version: str, module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = module_pool.get(version, "timeout", approvals_timeout=SERVER_TIMEOUT_S)
    first, second = victim(scratch, "first"), victim(scratch, "second")
    task = one_by_one(e2e_model, [rm(first), rm(second)])
    states: list[str] = []

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid, late = await app.task_asks(scratch, task.prompt)
            person.click_tray_icon(app)  # the person looks, and answers nothing in time
            expired = await app.resolved(late.key)
            assert outcome(expired) is OutcomeKind.EXPIRED, expired.outcome
            states.append(person.card(app, late.key).state.text())

            [nxt] = await app.asked(sid)
            assert nxt.key != late.key
            assert nxt.command == rm(second)
            # Now the late click on the expired row: select it, press A, click its button.
            person.decide_by_key(app, late.key, Key.Key_A)
            person.click_choice(app, late.key, Choice.ONCE)
            # Even a decision that got past the dialog's own rules (a stale notification's
            # button, say) reaches the bridge through this signal; the core must refuse it.
            app.dialog.decision_requested.emit(
                DecisionRequest(GATEWAY_ID, late.key, Choice.ONCE, Surface.DIALOG_BUTTON)
            )
            assert app.notices[-1].what == "Your decision was not sent"
            assert app.wire.decisions() == [], "a click on the expired row sent an answer"
            assert app.latest(nxt.key).phase is ApprovalPhase.WAITING
            assert intact(second)

            gone = await app.resolved(nxt.key)  # nobody answers it either
            assert outcome(gone) is OutcomeKind.EXPIRED
            await app.turn_over(sid)
            assert app.wire.decisions() == []

    arun(scenario(), timeout=120)
    assert states[0].startswith("Expired"), states
    assert intact(first)
    assert intact(second), "the next command ran on a click meant for the expired one"


def test_a_row_stays_answerable_while_hermes_still_waits(
    shared_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    """0.19.0 says nothing about its timeout on the wire; the tray learns it from the gateway's
    config.yaml (``config.get profile`` names HERMES_HOME), so a minute later the row is still
    open and the person's approval reaches exactly this command."""
    server = shared_pool.get("0.19.0")  # approvals.timeout: 300 (what main uses by default)
    target = victim(scratch, "victim")
    task = one_by_one(e2e_model, [rm(target)])
    clock = OffsetClock()

    async def scenario() -> None:
        async with TrayApp(server, clock=clock) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            await app.wait(
                lambda: app.latest(asked.key).expires_at == asked.arrived_at + 300,
                "the row to count from Hermes' own 300 s",
            )
            try:
                clock.advance(61)  # the person comes back a minute later; Hermes waits 300 s
                person.click_tray_icon(app)
                person.decide_by_key(app, asked.key, Key.Key_A)
                done = await app.resolved(asked.key)
                assert app.wire.turns_ended(sid) == 0, "Hermes had stopped waiting after all"
                assert outcome(done) is OutcomeKind.APPROVED, done.outcome
                await app.turn_over(sid)
            finally:
                if not app.wire.turns_ended(sid):  # do not leave the agent waiting 300 s
                    await app.client.call("session.interrupt", {"session_id": sid})
                    await app.turn_over(sid)

    arun(scenario(), timeout=120)
    assert not target.exists(), "the command Hermes still waited on was never approved"
