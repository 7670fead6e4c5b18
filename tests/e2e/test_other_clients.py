"""Sessions the tray did not start: another client (the Hermes window) runs them, the tray answers.

"Another client" is a plain WebSocket client in the test (``RawGateway``), as the Hermes window
would be: it creates the session and submits the prompt; the tray never hears of the session
from it. On the newer tui_gateway (iot) the tray's session follower lists the live sessions on
``sessions.changed`` and joins the session's fan-out, so the row shows, a notification is
requested, and the person's answer runs or blocks the command on disk. On axisrow 0.20.1.2
(0.19.0's wire plus approval ids) the tray answers its own task's approval today (by FIFO); the
tests that need the core's 0.20 dialect (answers by id, in any order) skip until it is merged.

Each test has its own gateway (``module_pool``): following every live session would otherwise
show the rows other modules' tests leave waiting on the shared gateways.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import Approval, Choice, OutcomeKind
from desktop.model.notify_policy import NotifySettings
from tests.core.frames import wire_of
from tests.e2e import person
from tests.e2e.dialect_probe import NEEDS_020, core_answers_by_request_id
from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import commands, intact, one_by_one, rm, script, victim
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp, outcome
from tests.peers.fake_model import FakeModel, Turn, commands_script
from tests.peers.fake_script import ToolCall
from tests.peers.hermes_server import HermesServer
from tests.peers.wsclient import RawGateway, is_event

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(180), OFFSCREEN_LIMITS]
Key = Qt.Key
TURN_S = 60.0
# No quiet period: the request is timed from the approval frame to the notification.
PROMPT_NOTIFY = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0)
needs_020 = pytest.mark.skipif(not core_answers_by_request_id(), reason=NEEDS_020)


async def window_session(window: RawGateway, dialect: str, cwd: Path, prompt: str) -> str:
    """What the Hermes window does: create a desktop session and submit a prompt."""
    await window.handshake(dialect)
    created = await window.call(
        "session.create", {"source": "desktop", "cwd": str(cwd), "close_on_disconnect": False}
    )
    session_id = str(created["session_id"])
    await window.call("prompt.submit", {"session_id": session_id, "text": prompt})
    return session_id


def notification_latency(app: TrayApp, command: str) -> tuple[float, str]:
    """Seconds from the frame that asked about ``command`` to the next notification request.

    That frame is the ``approval`` server request, or the answer that delivered it: a resume's
    ``open_requests`` when the tray joined the session after it was asked, or (0.20) the
    ``approval.pending`` list of a session the tray observes.
    """
    asked = [
        line
        for line in app.wire.lines
        if not line.outgoing
        and command in line.text
        and (line.response_id is not None or '"method": "approval"' in line.text)
    ]
    first = asked[0]
    how = "answer" if first.response_id is not None else "approval request"
    notified = next(at for at, _ in app.notified if at >= first.at)
    return notified - first.at, how


async def approve_then_deny(
    app: TrayApp, window: RawGateway, asked: Approval, first: Path, second: Path
) -> Approval:
    """Approve ``asked`` (removing ``first``), then deny the next row (``second``) of its
    session; returns that row once the window's turn is over."""
    sid = asked.session_id
    person.click_tray_icon(app)
    person.decide_by_key(app, asked.key, Key.Key_A)
    assert outcome(await app.resolved(asked.key)) is OutcomeKind.APPROVED
    await app.wait(lambda: not first.exists(), "the approved command to run")
    [again] = await app.asked(sid)
    assert again.command == rm(second)
    person.decide_by_key(app, again.key, Key.Key_D)
    assert outcome(await app.resolved(again.key)) is OutcomeKind.DENIED
    await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S)
    return again


def test_iot_another_clients_session_is_followed_notified_and_answered(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = module_pool.get("iot", "other-clients")
    first, second = victim(scratch, "first"), victim(scratch, "second")
    task = one_by_one(e2e_model, [rm(first), rm(second)])

    async def scenario() -> None:
        async with (
            TrayApp(server, notify_settings=PROMPT_NOTIFY) as app,
            RawGateway.connect(server.url) as window,
        ):
            sid = await window_session(window, "B", scratch, task.prompt)
            [asked] = await app.asked(sid)
            assert asked.command == rm(first)
            assert sid not in app.started_sessions(), "the tray did not start this session"
            await app.wait(lambda: app.notified, "a notification for the other client's row")
            plan = app.shell.notifications.last_plan
            assert plan is not None
            assert asked.key in plan.keys
            latency, how = notification_latency(app, rm(first))
            print(f"\nother client's row: {how} -> notification request {latency * 1000:.0f} ms")
            assert intact(first), "the command ran before anyone answered"
            await approve_then_deny(app, window, asked, first, second)
            assert len(app.wire.decisions()) == 2

    started = time.monotonic()
    arun(scenario(), timeout=150)
    print(f"took {time.monotonic() - started:.1f} s")
    assert not first.exists(), "the approved command did not run"
    assert intact(second), "the denied command changed the disk"


def test_axisrow_the_tray_answers_a_single_approval(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    server = module_pool.get("axisrow", "other-clients")
    target = victim(scratch, "victim")
    task = commands(e2e_model, [rm(target)])

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid, asked = await app.task_asks(scratch, task.prompt)
            assert asked.command == rm(target)
            assert intact(target)
            person.click_tray_icon(app)
            person.decide_by_key(app, asked.key, Key.Key_A)
            done = await app.resolved(asked.key)
            assert outcome(done) is OutcomeKind.APPROVED
            assert done.outcome is not None
            assert done.outcome.choice is Choice.ONCE
            await app.wait(lambda: not target.exists(), "the approved command to run")
            [decision] = app.wire.decisions()
            assert decision["params"]["session_id"] == sid

    arun(scenario(), timeout=150)
    assert not target.exists()


def delegate(model: FakeModel, scratch: Path) -> tuple[Path, Path, str]:
    """A task delegating two sub-agents, each removing one victim; (a, b, prompt)."""
    a, b = victim(scratch, "child-a"), victim(scratch, "child-b")
    child_a = script(model, commands_script([rm(a)], final="a done"))
    child_b = script(model, commands_script([rm(b)], final="b done"))
    tasks = [{"goal": f"{child_a.prompt} (remove {a.name})"}, {"goal": f"{child_b.prompt}"}]
    parent = script(
        model,
        [
            Turn(text="Delegating.", calls=(ToolCall("delegate_task", {"tasks": tasks}),)),
            Turn("ok"),
        ],
    )
    return a, b, parent.prompt


async def deny_newer_approve_older(app: TrayApp, older: Approval, newer: Approval) -> None:
    """Out of order: deny the newer child's row first, then approve the older one; wait until
    exactly the approved child's command has run."""
    person.click_tray_icon(app)
    person.decide_by_key(app, newer.key, Key.Key_D)
    assert outcome(await app.resolved(newer.key)) is OutcomeKind.DENIED
    assert app.latest(older.key).phase.value == "waiting", "the older row must stay"
    person.decide_by_key(app, older.key, Key.Key_A)
    assert outcome(await app.resolved(older.key)) is OutcomeKind.APPROVED
    gone = {older.command: True, newer.command: False}
    await app.wait(
        lambda: all((not Path(c.split()[-1]).exists()) == g for c, g in gone.items()),
        "exactly the approved child's command to run",
    )


@needs_020
def test_axisrow_two_sub_agents_answered_out_of_order(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    """Both children ask on the parent session after the parent's turn has ended."""
    server: HermesServer = module_pool.get("axisrow", "other-clients")
    a, b, prompt = delegate(e2e_model, scratch)

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await app.start_task(scratch, prompt)
            older, newer = await app.asked(sid, 2)
            await deny_newer_approve_older(app, older, newer)

    arun(scenario(), timeout=150)
    assert intact(a) != intact(b), "exactly one child's command ran"


def test_axisrow_another_clients_session_is_observed_notified_and_answered_by_id(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    """The tray may not attach on this build; it sees the rows through ``approval.pending``.

    Its own gateway: the tray observes every live session, so rows other tests of this module
    leave waiting (a denied sub-agent asks again) would show here too.
    """
    server = module_pool.get("axisrow", "observed")
    first, second = victim(scratch, "theirs-1"), victim(scratch, "theirs-2")
    task = one_by_one(e2e_model, [rm(first), rm(second)])
    figures: dict[str, float] = {}

    async def scenario() -> None:
        async with (
            TrayApp(server, notify_settings=PROMPT_NOTIFY) as app,
            RawGateway.connect(server.url) as window,
        ):
            sid = await window_session(window, "A", scratch, task.prompt)
            await window.wait_for(lambda f: is_event(f, "approval.request", sid), TURN_S)
            pending_at = time.time()  # the window's event: the approval is pending now
            [asked] = await app.asked(sid)
            assert asked.command == rm(first)
            assert sid not in app.started_sessions(), "the tray did not start this session"
            assert app.wire.calls("session.resume") == [], "attaching would take the stream"
            await app.wait(lambda: app.notified, "a notification for the other client's row")
            plan = app.shell.notifications.last_plan
            assert plan is not None
            assert asked.key in plan.keys
            figures["pending_to_notification_s"] = app.notified[0][0] - pending_at
            figures["list_to_notification_s"] = notification_latency(app, rm(first))[0]
            assert intact(first), "the command ran before anyone answered"
            again = await approve_then_deny(app, window, asked, first, second)
            decisions = app.wire.decisions()
            assert [d["params"]["request_id"] for d in decisions] == [
                wire_of(app.client.core, asked.key).request_id,
                wire_of(app.client.core, again.key).request_id,
            ]
            assert all(len(d["params"]["request_id"]) == 32 for d in decisions)
            assert [d["params"]["choice"] for d in decisions] == ["once", "deny"]
            assert app.wire.calls("session.resume") == []

    arun(scenario(), timeout=150)
    print(
        "\nother client's 0.20 row: approval pending -> notification request "
        f"{figures['pending_to_notification_s'] * 1000:.0f} ms "
        f"(pending list answer -> notification {figures['list_to_notification_s'] * 1000:.0f} ms)"
    )
    assert not first.exists(), "the approved command did not run"
    assert intact(second), "the denied command changed the disk"


def test_axisrow_another_clients_sub_agents_are_seen_while_the_list_says_idle(
    module_pool: GatewayPool, e2e_model: FakeModel, scratch: Path, arun: Callable
) -> None:
    """The children ask after the parent's turn ended, while ``session.active_list`` says idle:
    the tray still asks that session's pending list (it worked a moment ago)."""
    server = module_pool.get("axisrow", "observed")
    a, b, prompt = delegate(e2e_model, scratch)

    async def scenario() -> None:
        async with TrayApp(server) as app, RawGateway.connect(server.url) as window:
            sid = await window_session(window, "A", scratch, prompt)
            await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S)
            older, newer = await app.asked(sid, 2)
            assert app.wire.calls("session.resume") == []
            await deny_newer_approve_older(app, older, newer)
            ids = [d["params"]["request_id"] for d in app.wire.decisions()]
            assert ids == [
                wire_of(app.client.core, newer.key).request_id,
                wire_of(app.client.core, older.key).request_id,
            ]

    arun(scenario(), timeout=150)
    assert intact(a) != intact(b), "exactly one child's command ran"
