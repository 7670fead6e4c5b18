"""A person's decision in the tray decides what the real agent runs: once, deny, session, two
sessions at once, and what the menu shows about the session's usage and plan.

Every test drives a real Hermes gateway (both builds) through the app as composed in
``desktop.app`` and checks the scratch directory on disk afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from tests.core.frames import wire_of
from tests.e2e import person
from tests.e2e.scenarios import commands, intact, one_by_one, rm, rm_task, victim
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import COMPLETION_TOKENS, PROMPT_TOKENS, FakeModel, todo
from tests.peers.hermes_server import HermesServer

pytestmark = [
    pytest.mark.realhermes,
    pytest.mark.timeout(180),
    OFFSCREEN_LIMITS,
]
Key = Qt.Key


def test_new_task_from_the_tray_then_approve_once(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    target, task = rm_task(e2e_model, scratch)

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            await person.start_task(app, str(scratch), task.prompt)
            sid = await app.new_session()
            [asked] = await app.asked(sid)
            assert asked.command == rm(target)
            assert intact(target), "the command ran before anyone answered"
            person.click_tray_icon(app)
            assert app.dialog.isVisible()
            person.decide_by_key(app, asked.key, Key.Key_A)
            done = await app.resolved(asked.key)
            assert outcome(done) is OutcomeKind.APPROVED
            assert done.outcome is not None
            assert done.outcome.choice is Choice.ONCE
            await app.turn_over(sid)
            assert len(app.wire.decisions()) == 1
            assert app.session(sid) is not None
            assert app.session(sid).cwd == str(scratch)

    arun(scenario(), timeout=150)
    assert not target.exists(), "the approved command did not run"


def test_deny_keeps_the_files(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    target, task = rm_task(e2e_model, scratch, final="Understood, I will not.")

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_D)
            done = await app.resolved(asked.key)
            assert outcome(done) is OutcomeKind.DENIED
            await app.turn_over(sid)
            assert len(app.wire.decisions()) == 1

    arun(scenario(), timeout=150)
    assert intact(target), "a denied command changed the disk"


def test_session_choice_lets_the_same_pattern_run_later_without_asking(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    first, second = victim(scratch, "first"), victim(scratch, "second")
    task = one_by_one(e2e_model, [rm(first), rm(second)])

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            assert asked.command == rm(first)
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_S)
            done = await app.resolved(asked.key)
            assert done.outcome is not None
            assert done.outcome.choice is Choice.SESSION
            await app.turn_over(sid)
            assert [a.command for a in app.approvals(sid)] == [rm(first)]
            assert len(app.wire.decisions()) == 1

    arun(scenario(), timeout=150)
    assert not first.exists()
    assert not second.exists(), "the same pattern was not allowed for the session"


def test_two_sessions_waiting_answered_in_the_opposite_order(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    one, two = victim(scratch, "one"), victim(scratch, "two")
    task_one, task_two = commands(e2e_model, [rm(one)]), commands(e2e_model, [rm(two)])

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid_one = await app.start_task(scratch, task_one.prompt)
            sid_two = await app.start_task(scratch, task_two.prompt)
            assert sid_one != sid_two
            [asked_one] = await app.asked(sid_one)
            [asked_two] = await app.asked(sid_two)
            assert intact(one)
            assert intact(two)
            status = app.shell.tray.status
            assert status is not None
            assert (status.icon_name, status.count) == ("waiting", 2)
            assert person.menu_text(app, "review") == "Review approvals… (2)"
            person.click_tray_icon(app)
            person.decide_by_key(app, asked_two.key, Key.Key_A)  # the later session first
            await app.turn_over(sid_two)
            assert not two.exists()
            assert intact(one), "answering session two ran session one's command"
            assert app.latest(asked_one.key).phase is ApprovalPhase.WAITING
            person.decide_by_key(app, asked_one.key, Key.Key_A)
            await app.turn_over(sid_one)
            sent = app.wire.decisions()
            assert len(sent) == 2
            if shared_server.dialect == "A":
                assert [f["params"]["session_id"] for f in sent] == [sid_two, sid_one]
            else:
                assert [f["id"] for f in sent] == [
                    wire_of(app.client.core, asked_two.key).srq_id,
                    wire_of(app.client.core, asked_one.key).srq_id,
                ]

    arun(scenario(), timeout=150)
    assert not one.exists()
    assert not two.exists()


def test_menu_shows_the_usage_and_plan_the_session_produced(
    shared_server: HermesServer, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    plan = todo(
        ("1", "Remove the victim folder", "completed"),
        ("2", "Write the report", "in_progress"),
        ("3", "Tidy up", "pending"),
    )
    target, task = rm_task(e2e_model, scratch, todos=plan)
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with TrayApp(shared_server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_A)
            await app.turn_over(sid)
            ref = f"hermes:{sid}"
            calls = len(e2e_model.chat_requests(task.name))
            want_tokens = (
                f"Tokens: {calls * PROMPT_TOKENS:,} in · {calls * COMPLETION_TOKENS:,} out · "
                f"{calls * (PROMPT_TOKENS + COMPLETION_TOKENS):,} total"
            )
            await app.wait(
                lambda: person.menu_text(app, f"tokens:{ref}") == want_tokens,
                f"the menu to show {want_tokens!r}",
                timeout=10,
            )
            seen["calls"] = calls
            seen["calls_line"] = person.menu_text(app, f"calls:{ref}")
            seen["plan"] = person.menu_text(app, f"todo-progress:{ref}")
            seen["items"] = [person.menu_text(app, f"todo:{ref}:{i}").strip() for i in range(3)]

    arun(scenario(), timeout=150)
    assert not target.exists()
    assert seen["calls"] == 3  # the command, the plan, the final answer
    assert seen["calls_line"] == "API calls: 3"
    assert seen["plan"] == "Plan: 1/3 · now: Write the report"
    assert seen["items"] == ["☑ Remove the victim folder", "◐ Write the report", "☐ Tidy up"]
