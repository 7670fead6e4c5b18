"""The decision journal end to end: decisions from the dialog and from a notification, against
the fake gateway on 127.0.0.1, are written with the outcome the gateway reported; the Recent
decisions submenu shows them; Open journal opens the file; the token never reaches the file."""

from __future__ import annotations

import io
import json
import logging

import pytest
from PySide6.QtCore import QUrl

from desktop import logsetup
from desktop.core.model import Choice
from desktop.gateway.endpoints import endpoint_from_config
from desktop.journal import Journal, Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.notify_policy import ActionKind, NotificationPlan, NotifyAction
from desktop.settings.model import GatewayConfig
from desktop.settings.tokens import TokenStore
from tests.gatewaymodel import Command, FakeGateway, Turn, default_book
from tests.ui.wired_app import GID, WiredApp, menu_actions, submenu
from tests.waiting import holds, poll_until


def nudge(fake: FakeGateway, sid: str) -> None:
    """Make the gateway send one more event (a session.info).

    On B an answer is final once written, but GatewayClient delivers the core's events only
    after its next *input*; these approvals are raised outside a turn, so no tool event follows
    the answer as it would in real use. Any inbound frame delivers the resolution.
    """
    fake.set_yolo(sid, False)


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_dialog_and_notification_decisions_are_journalled_with_the_gateways_outcome(
    tray_app, qloop, arun, tmp_path, dialect
):
    console = io.StringIO()
    log_file = logsetup.configure("DEBUG", log_dir=tmp_path / "log", stream=console)
    journal = Journal(tmp_path / "data")

    secret_seen = logsetup.register_secret  # what desktop.app wires as on_secret

    async def scenario():
        fake = await FakeGateway(dialect, speed=0.01).start()
        canary = fake.token  # the gateway's real credential doubles as the canary
        tokens = TokenStore(tmp_path / "config", on_secret=secret_seen)
        tokens.set(GID, canary)
        config = GatewayConfig(GID, "Demo", fake.base_url, token_ref=GID)
        app = WiredApp(fake, journal=journal, add_gateway=False)
        app.bridge.add_gateway(endpoint_from_config(config, tokens.get))
        await app.connected()
        sid = await app.new_session("hello")
        # The "hello" turn must be over on the gateway before approvals are raised outside it:
        # its message.complete would withdraw them ("the agent's turn ended"). The tray's
        # ``running`` alone is False also before the turn's message.start has arrived.
        await app.turn_over(sid)
        assert app.action("open-journal").isEnabled() is False  # nothing written yet

        leaky = f"curl -H 'Authorization: Bearer {canary}' https://example.invalid/?token={canary}"
        first = fake.raise_approval(sid, Command(leaky, "network"))
        [shown] = await holds(lambda: app.view().waiting, app.bridge.snapshot_changed)
        assert canary in shown.command  # the dialog shows what the gateway sent
        app.shell.dialog.decision_requested.emit(
            DecisionRequest(GID, shown.key, Choice.ONCE, Surface.DIALOG_BUTTON)
        )
        await first.future
        nudge(fake, sid)
        await poll_until(lambda: len(app.shell.journal.recorder.recent) == 1)

        second = fake.raise_approval(sid, Command("rm -rf /tmp/hermes-scratch/n1", "delete"))
        [asked] = await holds(lambda: app.view().waiting, app.bridge.snapshot_changed)
        plan = NotificationPlan(
            GID, asked.batch_id, "Approval needed", asked.command,
            (NotifyAction(ActionKind.DENY, "Deny", (asked.key,)),), (asked.key,),
        )  # fmt: skip
        app.bridge.notification_action_invoked.emit(plan, ActionKind.DENY)  # Deny pressed
        await second.future
        nudge(fake, sid)
        await poll_until(lambda: len(app.shell.journal.recorder.recent) == 2)

        assert first.outcome.approved
        assert not second.outcome.approved
        rows = [json.loads(line) for line in journal.path.read_text().splitlines()]
        assert [(r["surface"], r["choice"], r["outcome"]) for r in rows] == [
            ("dialog.button", "once", "approved (once)"),
            ("notification", "deny", "denied"),
        ]
        assert rows[0]["gateway_id"] == GID
        assert rows[0]["session_id"] == sid
        assert rows[1]["command"] == "rm -rf /tmp/hermes-scratch/n1"
        assert rows[0]["command"].startswith("curl -H 'Authorization: ***'")
        assert canary not in journal.path.read_text()
        for handler in logging.getLogger().handlers:
            handler.flush()
        assert "curl -H" in log_file.read_text()  # the frame with the command was logged...
        assert canary not in log_file.read_text()  # ...without the token
        assert canary not in console.getvalue()

        app.shell.tray.rebuild_menu()
        recent = submenu(app.shell.tray.menu, "recent-decisions")
        texts = [a.text() for a in menu_actions(recent) if a.objectName().startswith("recent:")]
        name = app.bridge.rows.session_title(GID, sid)
        assert texts[0].endswith(f"rm -rf /tmp/hermes-scratch/n1 — denied · {name}")  # newest first
        assert "approved (once)" in texts[1]
        assert all(canary not in t for t in texts)
        opener = app.action("open-journal")
        assert opener.isEnabled()
        opener.trigger()
        assert app.opened == [QUrl.fromLocalFile(str(journal.path))]
        await app.close()

    arun(scenario(), timeout=30)


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_allow_for_session_journals_the_exit_code_and_the_commands_run_under_it(
    tray_app, qloop, arun, tmp_path, dialect
):
    """A failing command answered "Allow for session", then one Hermes ran under it unasked."""
    book = default_book()
    book.scenarios["clean"] = Turn(
        [
            Command("rm -rf build/", "recursive delete", exit_code=2),
            Command("rm -rf dist/", "recursive delete"),  # the session allowance covers it
            Command("ls dist", None),  # never needed asking: no decision to journal
        ],
        reply="Cleaned.",
    )
    journal = Journal(tmp_path / "data")

    async def scenario():
        fake = await FakeGateway(dialect, speed=0.01, turns=book).start()
        app = WiredApp(fake, journal=journal)
        await app.connected()
        sid = await app.new_session("[[scenario:clean]] clean up")
        [shown] = await holds(lambda: app.view().waiting, app.bridge.snapshot_changed)
        app.shell.dialog.decision_requested.emit(
            DecisionRequest(GID, shown.key, Choice.SESSION, Surface.DIALOG_BUTTON)
        )
        await app.turn_over(sid)
        recorder = app.shell.journal.recorder
        await poll_until(lambda: len(recorder.recent) == 2 and recorder.recent[1].result != "")
        name = app.bridge.rows.session_title(GID, sid)
        rows = [json.loads(line) for line in journal.path.read_text().splitlines()]
        assert [(r.get("command"), r.get("outcome"), r.get("result")) for r in rows] == [
            ("rm -rf build/", "approved (session)", ""),
            (None, None, "ran, exit 2"),  # appended once Hermes said
            ("rm -rf dist/", "not asked", "ran, exit 0"),
        ]
        assert rows[1]["decision"] == rows[0]["id"]
        assert rows[2]["surface"] == "hermes"
        assert {rows[0]["session_title"], rows[2]["session_title"]} == {name}

        app.shell.tray.rebuild_menu()
        recent = submenu(app.shell.tray.menu, "recent-decisions")
        texts = [a.text() for a in menu_actions(recent) if a.objectName().startswith("recent:")]
        assert texts[0].endswith(f"rm -rf dist/ — not asked, ran, exit 0 · {name}")
        assert texts[1].endswith(f"rm -rf build/ — approved (session), ran, exit 2 · {name}")
        await app.close()

    arun(scenario(), timeout=30)
