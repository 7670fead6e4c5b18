"""On a real X server (Xvfb, xcb): a real mouse click approves one command, a real keystroke
denies the next, and the disk shows exactly that.

Run with ``bash tests/e2e/run_xvfb.sh`` (Xvfb + xcb); skipped elsewhere. It needs no tray host:
the dialog is opened the way a tray click opens it, and everything after that is X input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.model import Choice, OutcomeKind
from desktop.model.approvals.rules import KEY_DWELL_S
from tests.e2e import person, xinput
from tests.e2e.scenarios import commands, intact, rm, victim
from tests.e2e.tray_app import TrayApp, outcome
from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesServer

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.realhermes,
    pytest.mark.timeout(180),
    pytest.mark.skipif(not xinput.available(), reason="needs Xvfb/xcb and xdotool (run_xvfb.sh)"),
]


def test_real_click_approves_and_real_key_denies(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    gone, kept = victim(scratch, "gone"), victim(scratch, "kept")
    task = commands(e2e_model, [rm(gone), rm(kept)])  # iot: one batch; 0.19.0: one at a time

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid = await app.start_task(scratch, task.prompt)
            [first, *_] = await app.asked(sid)
            assert first.command == rm(gone)
            person.click_tray_icon(app)
            await app.wait(lambda: app.dialog.isVisible(), "the dialog to be on screen", 10)
            button = person.card(app, first.key).buttons[Choice.ONCE]
            await app.wait(button.isVisible, "the Approve once button to be shown", 10)
            await xinput.click(button)
            assert outcome(await app.resolved(first.key)) is OutcomeKind.APPROVED
            await app.wait(lambda: not gone.exists(), "the approved command to run")

            second = await app.wait(
                lambda: next((a for a in app.waiting(sid) if a.command == rm(kept)), None),
                "the second command to wait",
            )
            assert intact(kept)
            await xinput.click(person.card(app, second.key).state)  # select its row
            await xinput.focus(app.dialog)
            await app.wait(app.dialog.isActiveWindow, "the dialog to have the keyboard", 10)
            selected = app.dialog.selected_row()
            assert selected is not None
            assert selected.approval.key == second.key
            person.reads(app, KEY_DWELL_S)  # a key answers only a row shown and selected this long
            await xinput.key("d")
            assert outcome(await app.resolved(second.key)) is OutcomeKind.DENIED
            await app.turn_over(sid)
            assert [
                f.get("result", f.get("params", {})).get("choice") for f in app.wire.decisions()
            ] == ["once", "deny"]

    arun(scenario(), timeout=150)
    assert not gone.exists()
    assert intact(kept), "the command denied with a real keystroke ran"
