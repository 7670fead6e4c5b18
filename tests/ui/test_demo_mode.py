"""The built-in demo as the tray runs it: demo gateway in-process, real client, bridge, shell.

What a person would check by eye, asserted: the tray connects to the demo (a real websocket on
127.0.0.1, the app's normal gateway path) and follows both of its sessions; the menu shows
usage, the plan and YOLO; the dialog gets a batch of three commands; a click there reaches the
demo gateway exactly once per command and changes the story (a denied command is blocked and
its plan step crossed out); YOLO goes on and off; an unanswered demo keeps looping; everything
stops cleanly.

The story runs at ``SPEED`` real seconds per script second, so a round takes well under a
second. Each test is ONE coroutine (see tests/ui/test_bridge_gateway.py for why).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PySide6.QtWidgets import QMenu

from desktop.core.model import Choice, TodoStatus
from desktop.demo import story as demo_story
from desktop.demo.gateway import DemoGateway, Session
from desktop.demo_mode import DEMO_GATEWAY_ID, DEMO_GATEWAY_NAME, BuiltInDemo
from desktop.model.notify_policy import NotifySettings
from desktop.model.session_names import SEPARATOR
from desktop.model.snapshot import Link
from desktop.settings.model import Settings
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import client_factory_for
from desktop.ui.shell import TrayShell
from tests.ui.approvals.factory import row_card
from tests.ui.dbus_fakes.private_bus import PrivateBus
from tests.waiting import drain, holds, poll_until

SPEED = 0.05  # real seconds per script second: the 90 s approval timeout would be 4.5 s
QUIET = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.05)
WEBSHOP, HOMESERVER = "Clean up the webshop build", "Tidy the home server"
BATCH = [c.command for c in demo_story.WEBSHOP_BATCH]


class DemoTray:
    """The demo wired as desktop.app wires it (minus settings, single instance, notifier)."""

    def __init__(self, demo: BuiltInDemo, **bridge_options: Any) -> None:
        self.demo = demo
        self.gateway: DemoGateway = demo.gateway
        self.bridge = GatewayBridge(
            **({"client_factory": client_factory_for(Settings)} | bridge_options)
        )
        self.quit = asyncio.Event()
        self.shell = TrayShell(self.bridge, notify_settings=QUIET, on_quit=self.quit.set)
        self.notices: list[Any] = []
        self.bridge.notice_received.connect(self.notices.append)
        self.bridge.start(asyncio.get_running_loop())
        self.bridge.add_gateway(demo.endpoint)

    def session(self, title: str) -> Any:
        gateway = self.bridge.snapshot.gateway(DEMO_GATEWAY_ID)
        if gateway is None:
            return None
        # The tray names a session by its title and folder; one shown before its title came
        # keeps that first name and says the title after it (desktop.model.session_names).
        return next((s for s in gateway.sessions if title in s.title.split(SEPARATOR)), None)

    def waiting(self, title: str) -> list[Any]:
        session, gateway = self.session(title), self.bridge.snapshot.gateway(DEMO_GATEWAY_ID)
        if session is None or gateway is None:
            return []
        return [a for a in gateway.waiting if a.session_id == session.session_id]

    async def close(self) -> None:
        """As desktop.app's shutdown: widgets, then the bridge (1000 close), then the demo."""
        self.shell.dispose()
        await self.bridge.aclose()
        await self.demo.stop()
        await drain()
        self.shell.deleteLater()
        self.bridge.deleteLater()


@pytest.fixture
def tray_app(qapp):
    """As desktop.app sets it: the dialog closing when all is answered must not end the app."""
    qapp.setQuitOnLastWindowClosed(False)
    yield qapp
    qapp.setQuitOnLastWindowClosed(True)


@contextlib.asynccontextmanager
async def demo_tray(bridge_options: Any = None, **options: Any) -> AsyncIterator[DemoTray]:
    tray = DemoTray(await BuiltInDemo.start(speed=SPEED, **options), **(bridge_options or {}))
    try:
        yield tray
    finally:
        await tray.close()


def demo_session(gateway: DemoGateway, title: str) -> Session:
    return next(s for s in gateway.sessions.values() if s.title == title)


def test_the_demo_connects_follows_both_sessions_and_asks_for_a_batch_of_three(qloop, arun):
    async def scenario() -> None:
        async with demo_tray() as tray:
            await holds(
                lambda: tray.bridge.snapshot.gateway(DEMO_GATEWAY_ID).link is Link.UP,
                tray.bridge.snapshot_changed,
            )
            await holds(
                lambda: tray.session(WEBSHOP) and tray.session(HOMESERVER),
                tray.bridge.snapshot_changed,
            )
            assert tray.bridge.rows.gateway_name(DEMO_GATEWAY_ID) == DEMO_GATEWAY_NAME
            assert "simulated" in DEMO_GATEWAY_NAME

            batch = await holds(
                lambda: len(tray.waiting(WEBSHOP)) == 3 and tray.waiting(WEBSHOP),
                tray.bridge.snapshot_changed,
            )
            assert [a.command for a in sorted(batch, key=lambda a: a.position)] == BATCH
            assert len({a.batch_id for a in batch}) == 1  # one batch, asked all at once
            assert not any(e.command in BATCH for e in tray.gateway.executed)  # not before Yes
            await poll_until(lambda: tray.shell.dialog.pending_count() >= 3)

            webshop = tray.session(WEBSHOP)
            assert webshop.usage.total > 0
            assert webshop.usage.cost_usd is not None
            assert [t.content for t in webshop.todos.items] == list(demo_story.WEBSHOP_PLAN)
            assert webshop.todos.items[0].status is TodoStatus.IN_PROGRESS

            # The tray menu shows that session with usage, the plan and its YOLO switch.
            ref = f"{DEMO_GATEWAY_ID}:{webshop.session_id}"
            menu = tray.shell.tray.menu

            def session_menu_lines() -> dict[str, str]:  # the menu is built as it opens
                menu.aboutToShow.emit()
                subs = [a.menu() for a in menu.actions()]  # not findChild: replaced ones linger
                named = [
                    m for m in subs if isinstance(m, QMenu) and m.objectName() == f"session:{ref}"
                ]
                sub = named[0] if named else None
                return {a.objectName(): a.text() for a in sub.actions()} if sub else {}

            names = await poll_until(
                lambda: (lines := session_menu_lines()).get(f"todo:{ref}:3") and lines
            )
            assert names[f"tokens:{ref}"].startswith("Tokens:")
            assert names[f"cost:{ref}"].startswith("Cost: $")
            assert "Remove stale build artefacts" in names[f"todo:{ref}:0"]
            assert names[f"yolo:{ref}"] == "YOLO: off — commands ask first"
            assert tray.notices == []  # attaching the demo's sessions warns about nothing

    arun(scenario(), timeout=30)


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: present()
def test_decisions_reach_the_demo_once_each_and_a_denial_changes_its_course(tray_app, qloop, arun):
    async def scenario() -> None:
        async with demo_tray() as tray:
            batch = await holds(
                lambda: len(tray.waiting(WEBSHOP)) == 3 and tray.waiting(WEBSHOP),
                tray.bridge.snapshot_changed,
            )
            rm, git, drop = sorted(batch, key=lambda a: a.position)
            tray.shell.review()  # the dialog, as a click on the tray icon opens it
            for approval, choice in ((rm, Choice.ONCE), (git, Choice.ONCE), (drop, Choice.DENY)):
                card = await poll_until(
                    lambda a=approval: row_card(tray.shell.dialog, DEMO_GATEWAY_ID, a.key)
                )
                card.buttons[choice].click()  # QTest's click would spin a nested loop here

            session = demo_session(tray.gateway, WEBSHOP)
            await poll_until(lambda: any(e.command == "pytest -q" for e in tray.gateway.executed))
            await holds(
                lambda: (
                    [t.status for t in tray.session(WEBSHOP).todos.items]
                    == [
                        TodoStatus.COMPLETED,
                        TodoStatus.COMPLETED,
                        TodoStatus.CANCELLED,
                        TodoStatus.COMPLETED,
                    ]
                ),
                tray.bridge.snapshot_changed,
            )
            ran = [e.command for e in tray.gateway.executed if e.session_id == session.sid]
            assert ran == [BATCH[0], BATCH[1], "pytest -q"]  # the denied DROP never "ran"
            asked = [r for r in tray.gateway.asked if r.session_id == session.sid]
            assert [r.outcome for r in asked] == ["once", "once", "deny"]
            assert tray.gateway.late_answers == 0  # one answer per command, none repeated
            reply = await poll_until(
                lambda: (
                    not session.running
                    and "Skipped" in session.messages[-1]["text"]
                    and session.messages[-1]
                )
            )
            assert reply["role"] == "assistant"
            assert "Skipped what you denied (drop the legacy schema)" in reply["text"]

    arun(scenario(), timeout=30)


def test_yolo_goes_on_and_off_then_the_home_server_asks_once(qloop, arun):
    async def scenario() -> None:
        async with demo_tray() as tray:
            seen: list[bool] = []

            def record(update: Any) -> None:
                if update.session.title == HOMESERVER:
                    yolo = update.session.yolo.effective
                    if not seen or seen[-1] != yolo:
                        seen.append(yolo)

            tray.bridge.session_changed.connect(record)
            [chmod] = await holds(lambda: tray.waiting(HOMESERVER), tray.bridge.snapshot_changed)
            assert chmod.command == demo_story.FIX_PERMISSIONS.command
            assert True in seen
            assert seen[-1] is False  # off again before it asks
            ran = {e.command for e in tray.gateway.executed}
            assert {"sudo systemctl restart nginx", "docker system prune -af --volumes"} <= ran

    arun(scenario(), timeout=30)


def test_an_unattended_demo_times_out_and_plays_again(qloop, arun):
    async def scenario() -> None:
        async with demo_tray(approval_timeout=10.0) as tray:  # 0.5 s real
            await poll_until(lambda: tray.session(WEBSHOP))
            webshop = demo_session(tray.gateway, WEBSHOP)

            def rounds() -> int:
                return sum(1 for r in tray.gateway.asked if r.session_id == webshop.sid) // 3

            await poll_until(lambda: rounds() >= 2, timeout=15)
            first = [r for r in tray.gateway.asked if r.session_id == webshop.sid][:3]
            assert [r.outcome for r in first] == ["timeout"] * 3
            assert not any(e.command in BATCH for e in tray.gateway.executed)  # silence ≠ consent

    arun(scenario(), timeout=30)


def test_the_demo_is_followed_even_when_the_person_follows_only_their_own_sessions(qloop, arun):
    """The demo's sessions are all it has: its client follows them whatever the setting says."""
    own_only = client_factory_for(lambda: Settings(follow_all_sessions=False))

    async def scenario() -> None:
        async with demo_tray({"client_factory": own_only}) as tray:
            await holds(
                lambda: tray.session(WEBSHOP) and tray.session(HOMESERVER),
                tray.bridge.snapshot_changed,
            )
            await holds(lambda: len(tray.waiting(WEBSHOP)) == 3, tray.bridge.snapshot_changed)

    arun(scenario(), timeout=30)


def test_stop_closes_the_gateway_and_the_story(qloop, arun):
    async def scenario() -> None:
        tray = DemoTray(await BuiltInDemo.start(speed=SPEED))
        await holds(lambda: tray.waiting(WEBSHOP), tray.bridge.snapshot_changed)
        port = tray.gateway.port
        await tray.close()
        assert list(tray.gateway.close_codes) == [1000]  # the tray closed first, cleanly
        with pytest.raises(ConnectionRefusedError):  # no longer listening
            await asyncio.open_connection("127.0.0.1", port)

    arun(scenario(), timeout=30)


def run_app(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6", PATH=path)
    with PrivateBus() as bus:
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return subprocess.run(
            [sys.executable, "-W", "error", "-m", "desktop", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def test_with_nothing_configured_or_installed_the_app_shows_the_demo(tmp_path):
    """No --demo: discovery finds no gateway and no ``hermes`` (PATH is an empty folder)."""
    done = run_app("--smoke", path=str(tmp_path))
    log = done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "nothing found: showing the built-in demo" in log
    assert "commands are simulated, nothing runs" in log
    assert "following 2 more session(s) other clients run" in log
    assert "smoke: connected, 3 approval(s) visible" in log
    assert "stopped the built-in demo" in log
    assert "Traceback" not in log
