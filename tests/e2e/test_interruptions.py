"""Things that happen to a waiting approval besides an answer: the connection drops and comes
back, or the person interrupts the session from the tray menu.

After a reconnect nothing may be answered blindly: on 0.19.0 the row turns stale (Hermes cannot
say it still waits on exactly that command) and needs an explicit Re-confirm; on iot the
request is re-delivered in the resume snapshot's ``open_requests``. Either way exactly that
command runs once the person decided, and nothing runs before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from tests.core.frames import wire_of
from tests.e2e import person
from tests.e2e.scenarios import intact, rm_task
from tests.e2e.tray_app import GATEWAY_ID, OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesServer

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key


def test_reconnect_while_waiting_answers_nothing_until_the_person_confirms(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    target, task = rm_task(e2e_model, scratch)

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            person.click_tray_icon(app)
            await person.trigger_menu(app, f"reconnect:{GATEWAY_ID}")
            await app.wait(lambda: app.connects >= 2, "the tray to reconnect")
            await app.wait(
                lambda: app.wire.response_to_last("session.resume") is not None,
                "Hermes to answer the session.resume after the reconnect",
            )
            assert app.wire.decisions() == [], "something was answered during the reconnect"
            assert intact(target)
            if shared_server.dialect == "A":
                # 0.19.0 does not re-send a pending approval: the row stays stale.
                await app.wait(
                    lambda: app.latest(asked.key).phase is ApprovalPhase.STALE, "a stale row"
                )
                person.decide_by_key(app, asked.key, Key.Key_A)  # not re-confirmed yet
                person.click_choice(app, asked.key, Choice.ONCE)
                assert app.wire.decisions() == [], "a stale row was answered without Re-confirm"
                assert app.latest(asked.key).phase is ApprovalPhase.STALE
                person.click_reconfirm(app, asked.key)
            else:
                # iot re-delivers the open request in the resume snapshot (same srq id).
                await app.wait(
                    lambda: app.latest(asked.key).phase is ApprovalPhase.WAITING,
                    "the re-delivered request to wait again",
                )
                assert [a.key for a in app.approvals(sid)] == [asked.key]
            person.decide_by_key(app, asked.key, Key.Key_A)
            done = await app.resolved(asked.key)
            assert outcome(done) is OutcomeKind.APPROVED
            await app.turn_over(sid)
            sent = app.wire.decisions()
            assert len(sent) == 1
            if shared_server.dialect == "B":
                assert sent[0]["id"] == wire_of(app.client.core, asked.key).srq_id

    arun(scenario(), timeout=150)
    assert not target.exists(), "the re-confirmed command did not run"


def test_interrupt_from_the_menu_withdraws_the_waiting_row(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    target, task = rm_task(e2e_model, scratch)
    shown: list[str] = []

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            person.click_tray_icon(app)
            await person.trigger_menu(app, f"interrupt:{GATEWAY_ID}:{sid}")
            done = await app.resolved(asked.key)
            shown.append(person.card(app, asked.key).state.text())
            assert outcome(done) is OutcomeKind.WITHDRAWN
            await app.turn_over(sid)
            assert app.wire.calls("session.interrupt")
            assert app.wire.decisions() == [], "the interrupt was sent as an answer"

    arun(scenario(), timeout=150)
    assert shown[0].startswith("Withdrawn"), shown
    assert intact(target), "an interrupted command ran"
