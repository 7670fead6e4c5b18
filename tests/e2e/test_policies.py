"""Decisions and settings that outlive one command: YOLO and the approval mode from the tray
menu, and "Always" (Hermes' permanent allowlist in config.yaml).

These change state beyond one session (the allowlist and the approval mode are global), so the
module runs on gateways of its own. The approval-mode test comes last: it is the one that
could leave the gateway in a mode the others do not expect, should it fail half-way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import Choice, OutcomeKind, YoloSource
from tests.e2e import person
from tests.e2e.pool import GatewayPool, hermes_config
from tests.e2e.scenarios import BOTH, chat, commands, find_delete, intact, rm, victim
from tests.e2e.tray_app import GATEWAY_ID, OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesServer

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key
PROFILE = "policies"


@pytest.fixture(params=BOTH)
def server(request: pytest.FixtureRequest, module_pool: GatewayPool) -> HermesServer:
    """This module's own gateway of each build in turn (the ids are those of ``BOTH``)."""
    return module_pool.get(request.param, PROFILE)


def info_says(app: TrayApp, session_id: str, text: str, since: int) -> bool:
    """A ``session.info`` event for the session, after ``since``, contains ``text`` (the
    gateway's own word on ``yolo`` or ``approval_mode``)."""
    found = app.wire.events("session.info", session_id, since=since)
    return any(text in line.text for line in found)


async def open_idle_session(app: TrayApp, model: FakeModel, scratch: Path) -> str:
    """Start a task that only chats, so the session is in the menu and idle."""
    sid = await app.start_task(scratch, chat(model).prompt)
    await app.turn_over(sid)
    # As a person would: act once the turn has wound down, not within its last milliseconds.
    await app.wait(lambda: app.wire.info_after_turn(sid), "the session to settle")
    return sid


async def prompt(app: TrayApp, session_id: str, text: str) -> None:
    """The person types a new instruction into Hermes for this session (not a tray feature)."""
    result = await app.client.call("prompt.submit", {"session_id": session_id, "text": text})
    assert result.get("status") == "streaming", result


def test_yolo_on_and_off_from_the_menu(
    server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    free, guarded = victim(scratch, "free"), victim(scratch, "guarded")

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await open_idle_session(app, e2e_model, scratch)
            yolo = f"yolo:{GATEWAY_ID}:{sid}"
            assert person.menu_text(app, yolo).startswith("YOLO: off")

            mark = app.wire.mark()
            await person.trigger_menu(app, yolo)
            await person.accept_tray_confirmation(app)
            await app.wait(
                lambda: info_says(app, sid, '"yolo": true', mark), "session.info: yolo on"
            )
            await app.wait(lambda: app.session(sid).yolo.effective, "the menu's YOLO to be on")
            assert app.session(sid).yolo.source is YoloSource.SESSION
            assert person.menu_action(app, yolo).isChecked()
            await prompt(app, sid, commands(e2e_model, [rm(free)]).prompt)
            await app.turn_over(sid, 2)
            assert app.approvals(sid) == [], "YOLO on, yet a command asked"
            assert not free.exists(), "YOLO on, yet the command did not run"

            # As a person would: once the turn has wound down (its closing session.info is
            # computed on the agent's thread and would overtake a change made just before it).
            await app.wait(lambda: app.wire.info_after_turn(sid), "the turn to settle")
            mark = app.wire.mark()
            await person.trigger_menu(app, yolo)  # turning it off asks nothing
            await app.wait(lambda: info_says(app, sid, '"yolo": false', mark), "session.info: off")
            await app.wait(lambda: not app.session(sid).yolo.effective, "YOLO off in the menu")
            await prompt(app, sid, commands(e2e_model, [rm(guarded)]).prompt)
            [asked] = await app.asked(sid)
            assert intact(guarded), "YOLO off, yet the command ran before an answer"
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_D)
            await app.turn_over(sid, 3)
            assert len(app.wire.decisions()) == 1
            sets = [f["params"] for f in app.wire.calls("config.set")]
            assert [(p["key"], p["session_id"]) for p in sets] == [("yolo", sid), ("yolo", sid)]

    arun(scenario(), timeout=150)
    assert not free.exists()
    assert intact(guarded)


def test_always_is_written_to_the_allowlist_and_a_new_session_is_not_asked(
    server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    first, later = victim(scratch, "first"), victim(scratch, "later")
    config: dict = {}

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid, asked = await app.task_asks(
                scratch, commands(e2e_model, [find_delete(first)]).prompt
            )
            assert asked.pattern_keys, "Hermes sent no pattern key to allow"
            person.click_tray_icon(app)
            person.select(app, asked.key)
            person.press(app, Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
            box = await app.wait(lambda: app.dialog.confirmation_box, "the Always question")
            assert asked.pattern_keys[0] in box.text()
            assert app.wire.decisions() == [], "Always was sent before the person confirmed"
            person.accept(box)
            done = await app.resolved(asked.key)
            assert outcome(done) is OutcomeKind.APPROVED
            assert done.outcome is not None
            assert done.outcome.choice is Choice.ALWAYS
            await app.turn_over(sid)
            config.update(await hermes_config(server))
            assert asked.pattern_keys[0] in (config.get("command_allowlist") or [])

            sid2 = await app.start_task(scratch, commands(e2e_model, [find_delete(later)]).prompt)
            await app.turn_over(sid2)
            assert app.approvals(sid2) == [], "a new session was asked despite Always"
            assert len(app.wire.decisions()) == 1

    arun(scenario(), timeout=150)
    assert not first.exists()
    assert not later.exists(), "the allowlisted command did not run in the new session"


def test_approval_mode_from_the_menu(
    server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    unasked, asked_again = victim(scratch, "unasked"), victim(scratch, "asked")
    modes: list[str] = []

    async def set_mode(app: TrayApp, sid: str, mode: str) -> None:
        mark = app.wire.mark()
        await person.trigger_menu(app, f"mode:{GATEWAY_ID}:{sid}:{mode}")
        await person.accept_tray_confirmation(app)
        await app.wait(lambda: app.session(sid).approval_mode == mode, f"mode {mode} in the menu")
        said = f'"approval_mode": "{mode}"'
        await app.wait(lambda: info_says(app, sid, said, mark), f"session.info: {said}")
        modes.append(str(((await hermes_config(server)).get("approvals") or {}).get("mode")))

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await open_idle_session(app, e2e_model, scratch)
            assert app.session(sid).approval_mode == "manual"
            try:
                await set_mode(app, sid, "off")
                assert app.session(sid).yolo.source is YoloSource.MODE_OFF
                free = await app.start_task(scratch, commands(e2e_model, [rm(unasked)]).prompt)
                await app.turn_over(free)
                assert app.approvals(free) == [], "approval mode off, yet a command asked"
                assert not unasked.exists()
            finally:
                await set_mode(app, sid, "manual")
            guarded, asked = await app.task_asks(
                scratch, commands(e2e_model, [rm(asked_again)]).prompt
            )
            assert intact(asked_again)
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_D)
            await app.turn_over(guarded)
            sets = [f["params"] for f in app.wire.calls("config.set")]
            assert [(p["key"], p["value"]) for p in sets] == [
                ("approvals.mode", "off"),
                ("approvals.mode", "manual"),
            ]

    arun(scenario(), timeout=150)
    assert modes == ["off", "manual"], "config.yaml did not follow the menu"
    assert not unasked.exists()
    assert intact(asked_again)
