"""Secrets: one canary token, pushed through every path a token can take, never comes out.

Paths here: the URL the client dials (``?token=``), an inline/env/file token source, logs at
DEBUG (everything the app's handlers write, to the stream and the log file; and no
``desktop.*`` logger may even *try* to log it raw — websockets' own DEBUG lines do carry it,
which is why the redaction on the app's handlers matters), status errors, exception messages,
reprs and tracebacks, and the doctor's text and JSON output. The journal is in
``test_secrets_journal``; the ``ws://`` loopback rule in ``test_remote_ws``.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import ApprovalPhase, Choice
from desktop.gateway import doctor
from desktop.gateway.client import GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
from desktop.gateway.errors import GatewayError
from desktop.settings.model import GatewayKind
from tests.gatewaymodel import Command, FakeGateway, Turn
from tests.safety.background import fake_in_thread
from tests.safety.canary import CANARY, Capture, every_text_of, leaks
from tests.safety.e2e.rig import FAST, QUICK, Wakeup, client_until, rig


async def approve_one(fake: FakeGateway, client: GatewayClient, wake: Wakeup, name: str) -> None:
    command = f"rm -rf /tmp/hermes-scratch/{name}"
    fake.queue_turn(Turn([Command(command, "delete in root path")], reply="ok"))
    await client.create_session("/tmp/hermes-scratch", "go")
    async with asyncio.timeout(5):
        while True:
            rows = [
                a
                for a in client.core.approvals()
                if a.command == command and a.phase is ApprovalPhase.WAITING
            ]
            if rows and rows[0].answerable:
                break
            await wake.wait(0.1)
    assert client.decide(rows[0].key, Choice.ONCE).sent
    await fake.wait_for(lambda: [e for e in fake.executed if e.command == command])


@pytest.mark.parametrize("source", ["url", "inline", "env", "file"])
def test_the_token_never_leaves_through_logs_errors_or_reprs(
    source: str,
    capture: Capture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    aloop: asyncio.AbstractEventLoop,
    arun: Callable[..., Any],
) -> None:
    async def scenario() -> None:
        async with FakeGateway("B", token=CANARY, speed=0.002) as fake:
            if source == "url":
                endpoint = GatewayEndpoint("canary", "Canary", GatewayKind.URL, url=fake.url)
            else:
                token: TokenSource
                if source == "inline":
                    token = TokenSource(TokenKind.INLINE, value=CANARY)
                elif source == "env":
                    monkeypatch.setenv("HERMES_TRAY_TEST_TOKEN", CANARY)
                    token = TokenSource(TokenKind.ENV, "HERMES_TRAY_TEST_TOKEN")
                else:
                    path = tmp_path / "token"
                    path.write_text(CANARY + "\n")
                    path.chmod(0o600)
                    token = TokenSource(TokenKind.FILE, str(path))
                endpoint = GatewayEndpoint(
                    "canary", "Canary", GatewayKind.URL, url=fake.base_url, token=token
                )
            wake = Wakeup()
            client = GatewayClient(endpoint, listener=wake, backoff=FAST, connection_settings=QUICK)
            runner = asyncio.create_task(client.run())
            errors: list[object] = []
            try:
                await wake.connected()
                await approve_one(fake, client, wake, f"canary-{source}")
                fake.drop()  # a reconnect logs the dial again
                await wake.connected(2)
                await client.close()
                try:
                    await client.call("session.list", {})
                except GatewayError as exc:
                    errors.append(exc)
            finally:
                await client.close()
                await runner
            assert not leaks(every_text_of(client, errors))
            assert fake.connections[0].query  # the token really travelled (in the URL)

    arun(scenario(), timeout=30)
    assert not leaks(capture.app_output()), "the app's log output holds the token"
    assert not capture.raw_from("desktop"), capture.raw_from("desktop")[:3]
    assert capture.raw.lines, "nothing was logged at all: the capture is not wired"


def test_a_refused_token_is_reported_without_the_token(
    capture: Capture, aloop: asyncio.AbstractEventLoop, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with FakeGateway("A", token="the-right-one", speed=0.002) as fake:
            url = f"{fake.base_url}?token={CANARY}"
            endpoint = GatewayEndpoint("canary", "Canary", GatewayKind.URL, url=url)
            # A refused token is retried with backoff (never FAILED): wait for the refusal.
            client = await client_until(endpoint, lambda c: "refused" in c.status.error)
            assert not leaks(every_text_of(client, []))

    arun(scenario(), timeout=20)
    assert not leaks(capture.app_output())
    assert not capture.raw_from("desktop")


@dataclass(frozen=True)
class DoctorOptions:
    gateway: str | None
    json: bool


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("token", [CANARY, "wrong"], ids=["accepted", "refused"])
def test_the_doctor_never_prints_the_token(capture: Capture, as_json: bool, token: str) -> None:
    right = CANARY if token == CANARY else "the-right-one"
    with fake_in_thread("B", token=right, speed=0.002) as (fake, _runner):
        out = io.StringIO()
        status = doctor.run(DoctorOptions(f"{fake.base_url}?token={CANARY}", as_json), out=out)
    printed = out.getvalue()
    assert status == (doctor.EXIT_OK if token == CANARY else doctor.EXIT_FAILED), printed
    if as_json:
        json.loads(printed)
    assert "Gateway" in printed or "gateways" in printed
    assert not leaks(printed), printed
    assert not leaks(capture.app_output())


def test_canonical_tickets_never_leave_either(
    capture: Capture, aloop: asyncio.AbstractEventLoop, arun: Callable[..., Any]
) -> None:
    """Dialect C: the single-use tickets travel as a subprotocol; none may be logged or shown."""
    home = Path(tempfile.mkdtemp(prefix="hts", dir="/tmp"))
    tickets: list[str] = []
    shown: list[str] = []

    async def scenario() -> None:
        async with rig("C", home, speed=0.002, approval_timeout=None, margin=0.3) as r:
            await r.wake.connected()
            await approve_one(r.fake, r.client, r.wake, "canary-ticket")
            r.fake.drop()  # a fresh ticket for the reconnect
            await r.wake.connected(2)
            for conn in r.fake.connections:
                tickets.append(conn.offered_subprotocols[1].removeprefix("hermes-gateway-ticket."))
            shown.append(every_text_of(r.client, []))

    try:
        arun(scenario(), timeout=30)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert len(set(tickets)) == 2
    texts = [*shown, capture.app_output()]
    texts += [text for name, text in capture.raw.lines if name.startswith("desktop")]
    assert not [t for t in tickets for text in texts if t in text]
