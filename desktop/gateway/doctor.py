"""``hermes-tray doctor``: try exactly what the tray would try and say what is there.

Read-only: it never answers and never resumes a session (on 0.19.0 that would take its events
from their viewer); other clients' approvals are read with ``approval.pending`` (B and 0.20).
URLs are masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from desktop.core.events import CoreEvent
from desktop.core.model import ApprovalPhase, Dialect
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import ConnectionState, ConnectionStatus, GatewayClient
from desktop.gateway.discovery import discover
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import GatewayError, RpcCallError
from desktop.logsetup import register_secret
from desktop.model.tray_host import tray_host
from desktop.platform.do_not_disturb import read_once
from desktop.platform.tray_probe import read_probe
from desktop.settings.model import GatewayKind
from desktop.settings.store import load_settings
from desktop.settings.tokens import TokenStore

log = logging.getLogger(__name__)

EXIT_OK, EXIT_FAILED, EXIT_NOTHING = 0, 1, 2
CONNECT_TIMEOUT = 20.0
OWNED_TIMEOUT = 100.0  # a cold `hermes serve` may take a while to print READY
PENDING_TIMEOUT = 5.0
MAX_PENDING_SESSIONS = 50  # sessions asked with approval.pending (the report stays readable)
MAX_PENDING_PER_SESSION = 20
UNKNOWN_METHOD = -32601


class DoctorOptions(Protocol):
    @property
    def gateway(self) -> str | None: ...

    @property
    def json(self) -> bool: ...


@dataclass
class GatewayReport:
    gateway_id: str
    name: str
    kind: str
    where: str
    state: str = "not tried"
    dialect: str = ""
    version: str = ""
    error: str = ""
    sessions: list[dict[str, Any]] = field(default_factory=list)
    pending_approvals: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


class _Waiter:
    """Wakes the doctor on the first CONNECTED, FAILED or BACKOFF."""

    def __init__(self) -> None:
        self.settled = asyncio.Event()
        self.status: ConnectionStatus | None = None

    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        return None

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if new.state in (
            ConnectionState.CONNECTED,
            ConnectionState.FAILED,
            ConnectionState.BACKOFF,
        ):
            self.status = new
            self.settled.set()


def run(options: DoctorOptions, out: TextIO | None = None) -> int:
    stream = out if out is not None else sys.stdout
    return asyncio.run(check(options, stream))


async def check(options: DoctorOptions, out: TextIO) -> int:
    token_source = getattr(options, "token_source", None)  # CliOptions: the --gateway token
    found = await discover(
        gateway=options.gateway,
        gateway_token=token_source() if callable(token_source) else None,
        gateway_name="Gateway from --gateway",
        settings=load_settings,
        token_lookup=TokenStore(on_secret=register_secret).get,
    )
    tried = list(found.tried)
    reports = [await check_endpoint(ep) for ep in found.endpoints]
    server, dnd = await read_once()
    desktop = {
        "notification_server": server,
        "do_not_disturb": dnd.on,
        "do_not_disturb_source": dnd.source,
        "do_not_disturb_note": dnd.reason,
    }
    host = tray_host(await read_probe())
    desktop["tray_host"] = host.kind.value
    desktop["tray_host_summary"] = host.summary
    desktop["tray_host_advice"] = host.advice
    if options.json:
        report = {"tried": tried, "gateways": [r.__dict__ for r in reports], "desktop": desktop}
        out.write(json.dumps(report, indent=2) + "\n")
    else:
        _write_text(out, tried, reports)
        out.write(f"Notification server: {server or 'none found'}\n")
        out.write(f"  Do not disturb: {dnd.describe()}\n")
        out.write(f"Tray host: {host.summary}\n")
        if host.own_window:
            out.write(f"  Hermes Tray shows its own window instead of an icon. {host.advice}\n")
    if not reports:
        return EXIT_NOTHING
    return EXIT_OK if all(r.state == "connected" for r in reports) else EXIT_FAILED


async def check_endpoint(
    endpoint: GatewayEndpoint, *, timeout: float | None = None
) -> GatewayReport:
    """Connect once (no retries), gather sessions and approvals, close. Never raises."""
    report = GatewayReport(
        endpoint.gateway_id,
        endpoint.name,
        endpoint.kind.value,
        endpoint.display_url or endpoint.hermes_home or endpoint.kind.value,
    )
    waiter = _Waiter()
    client = GatewayClient(
        endpoint,
        listener=waiter,
        backoff=BackoffPolicy(initial=60.0, max_delay=60.0, jitter=0.0),
        follow_all=False,  # read-only: the doctor never joins a session, not even on B or C
    )
    runner = asyncio.create_task(client.run())
    limit = timeout or (OWNED_TIMEOUT if endpoint.kind is GatewayKind.OWNED else CONNECT_TIMEOUT)
    try:
        try:
            await asyncio.wait_for(waiter.settled.wait(), limit)
        except TimeoutError:
            report.state = "timed out"
            report.error = (
                f"No answer from {report.where} within {limit:g}s. Check that the "
                "Hermes gateway is running and reachable."
            )
            return report
        status = waiter.status
        assert status is not None
        connected = status.state is ConnectionState.CONNECTED
        report.state = "connected" if connected else "failed"
        report.error = _without_retry(status.error)
        if status.state is ConnectionState.CONNECTED:
            await _gather(client, report)
        return report
    finally:
        await client.close()
        with contextlib.suppress(Exception):
            await runner


async def _gather(client: GatewayClient, report: GatewayReport) -> None:
    status = client.status
    report.dialect = status.dialect.value if status.dialect else ""
    try:
        sessions = await client.list_live_sessions()
    except GatewayError as exc:
        report.note = f"Could not list live sessions: {exc}"
        sessions = []
    for session in sessions:
        report.sessions.append(
            {
                "id": str(session.get("id") or session.get("session_id") or ""),
                "title": str(session.get("title") or ""),
                "status": str(
                    session.get("status") or ("running" if session.get("running") else "")
                ),
            }
        )
    report.version = await client.settled_version()
    for approval in client.core.approvals():
        if approval.phase is not ApprovalPhase.RESOLVED:
            report.pending_approvals.append(
                {
                    "session_id": approval.session_id,
                    "command": approval.command[:200],
                    "phase": approval.phase.value,
                }
            )
    asked = await _pending_elsewhere(client, report)
    waiting = [s for s in report.sessions if s["status"] == "waiting"]
    if waiting and not report.pending_approvals and not asked:
        report.note = (
            f"{len(waiting)} session(s) wait on a person; their approvals go to the "
            "viewer that owns the session, so the doctor does not see them."
        )


async def _pending_elsewhere(client: GatewayClient, report: GatewayReport) -> bool:
    """False if none answered. Not on C (prompts come with a resume); 0.19.0 answers -32601."""
    if client.status.dialect is Dialect.C:
        return False
    seen = {(a["session_id"], a["command"]) for a in report.pending_approvals}
    answered = False
    for session in report.sessions[:MAX_PENDING_SESSIONS]:
        session_id = session["id"]
        if not session_id:
            continue
        try:
            result = await client.call(
                "approval.pending", {"session_id": session_id}, timeout=PENDING_TIMEOUT
            )
        except RpcCallError as exc:
            if exc.code == UNKNOWN_METHOD:
                return False
            continue
        except GatewayError:
            continue
        entries = result.get("approvals")
        if not isinstance(entries, list):
            continue
        answered = True
        for entry in entries[:MAX_PENDING_PER_SESSION]:
            if not isinstance(entry, dict):
                continue
            command = str(entry.get("command") or "")[:200]
            if (session_id, command) in seen:
                continue
            seen.add((session_id, command))
            report.pending_approvals.append(
                {"session_id": session_id, "command": command, "phase": "waiting"}
            )
    return answered


def _without_retry(text: str) -> str:
    """The doctor tries once: drop the client's "retrying" tail."""
    for tail in (" Retrying.", "; retrying.", "; reconnecting.", " reconnecting."):
        if text.endswith(tail):
            return text[: -len(tail)] + "."
    return text


def _write_text(out: TextIO, tried: list[str], reports: list[GatewayReport]) -> None:
    if not reports:
        out.write("No Hermes gateway found. Tried:\n")
        for line in tried:
            out.write(f"  - {line}\n")
        out.write(
            "Start one with `hermes serve` (or `hermes gateway`), set "
            "HERMES_TUI_GATEWAY_URL, or add a gateway in Settings.\n"
        )
        return
    for r in reports:
        out.write(f"Gateway: {r.name} [{r.kind}] at {r.where}\n")
        out.write(f"  State:   {r.state}\n")
        if r.error:
            out.write(f"  Problem: {r.error}\n")
        if r.state != "connected":
            continue
        out.write(f"  Dialect: {r.dialect or 'unknown'}\n")
        out.write(f"  Version: {r.version or 'unknown'}\n")
        out.write(f"  Live sessions: {len(r.sessions)}\n")
        for s in r.sessions:
            out.write(f"    - {s['id']}  {s['status'] or '-'}  {s['title']}\n")
        out.write(f"  Pending approvals: {len(r.pending_approvals)}\n")
        for a in r.pending_approvals:
            out.write(f"    - session {a['session_id']}: {a['command']}\n")
        if r.note:
            out.write(f"  Note: {r.note}\n")
