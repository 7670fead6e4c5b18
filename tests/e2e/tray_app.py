"""The app as ``desktop.app`` composes it, around one real gateway, for one test's coroutine.

Why not ``desktop.app.run``: it owns the process (QApplication, its own loop, discovery,
single-instance lock, quitting). What matters end to end is everything below it, built exactly
as ``_main`` builds it: a ``GatewayBridge`` with the production client factory, and a
``TrayShell`` around it (tray icon and menu, ``ApprovalDialog``, New task dialog,
notifications). The test then acts only through what a person touches (``person``) and checks
the gateway's wire (``wire``) and the scratch directory on disk.

Use as ``async with TrayApp(server) as app:`` inside the test's one coroutine.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop.core.model import Approval, ApprovalPhase, OutcomeKind, SessionState
from desktop.gateway.client import GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.logsetup import register_secret
from desktop.model.approvals.layout import RowEntry
from desktop.model.bridge_events import ApprovalUpdate, Notice
from desktop.model.notify_policy import NotifySettings
from desktop.model.snapshot import GatewayView, Link
from desktop.settings.model import GatewayKind, Settings
from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import client_factory_for
from desktop.ui.shell import TrayShell
from tests.e2e.wire import WireTap
from tests.peers.hermes_server import HermesServer
from tests.waiting import drain, poll_until

GATEWAY_ID = "hermes"
CONNECT_S = 30.0
TURN_S = 60.0  # one agent turn on a warm gateway takes ~1 s; the first build ~4 s

# What the offscreen platform (every headless run) says about windows and a tray icon it cannot
# have: raise(), size hints, and no system-tray window signal. Limits of the platform, not ours.
OFFSCREEN_LIMITS = pytest.mark.qt_log_ignore(
    r"This plugin does not support",
    r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
)


class OffsetClock:
    """``time.monotonic`` plus a jump the test makes: "a minute later", without the minute.

    Why: the client's clock is a designed seam (time is a parameter of the core). Jumping it
    shows what the tray does once it *believes* time has passed, while the real gateway's own
    clock (and its approvals.timeout) is untouched.
    """

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class _NotifyLog(logging.Handler):
    """Records each notification the app asked for (its "notifying: …" log line) with the time.

    Why the log and not the notifier: offscreen there is no notification service, so the
    controller falls back to the tray balloon; the request itself is what a person would see.
    """

    LOGGER = "desktop.ui.notifications"

    def __init__(self, into: list[tuple[float, str]]) -> None:
        super().__init__(logging.INFO)
        self._into = into
        self._saved = logging.NOTSET

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        if str(record.msg).startswith("notifying:") and args:
            self._into.append((record.created, str(args[0])))

    def install(self) -> None:
        logger = logging.getLogger(self.LOGGER)
        self._saved = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self)

    def remove(self) -> None:
        logger = logging.getLogger(self.LOGGER)
        logger.removeHandler(self)
        logger.setLevel(self._saved)


class TrayApp:
    """Bridge + shell + the one real client; records what the bridge reported.

    ``clock``: the client's clock (default: the production one, ``time.monotonic``).
    """

    def __init__(
        self,
        server: HermesServer,
        *,
        clock: OffsetClock | None = None,
        notify_settings: NotifySettings | None = None,
    ) -> None:
        self.server = server
        self._clock = clock
        self.clients: list[Any] = []  # desktop.gateway.client.GatewayClient
        self.bridge = GatewayBridge(client_factory=self._make_client)
        self.quit_requested = asyncio.Event()
        # The person's clock (the shell's): helpers advance it by the dialog's dwell times, the
        # moment a person takes to read a row before answering it (person.reads).
        self.person_clock = OffsetClock()
        self.shell = TrayShell(
            self.bridge,
            on_quit=self.quit_requested.set,
            notify_settings=notify_settings,
            clock=self.person_clock,
        )
        self.notified: list[tuple[float, str]] = []  # (time.time(), batch id) per notification
        self.updates: list[ApprovalUpdate] = []
        self.notices: list[Notice] = []
        self.connects = 0  # how many times the connection reached CONNECTED
        self.wire = WireTap()
        self._quit_on_last_window = True
        self.bridge.approval_requested.connect(self.updates.append)
        self.bridge.approval_changed.connect(self.updates.append)
        self.bridge.notice_received.connect(self._on_notice)
        self._started: list[str] = []  # sessions the tray started, in order
        self.bridge.connection_status_changed.connect(self._on_status)
        self._notify_log = _NotifyLog(self.notified)

    def _make_client(self, endpoint: Any, listener: Any) -> Any:
        if self._clock is None:
            client = client_factory_for(Settings)(endpoint, listener)  # what the app creates
        else:
            client = GatewayClient(endpoint, listener=listener, clock=self._clock)
        self.clients.append(client)
        return client

    def _on_notice(self, notice: Notice) -> None:
        self.notices.append(notice)
        if notice.what == "Task started":  # its session is in the core now, marked as its own
            core = self.client.core
            for session in core.sessions():
                sid = session.session_id
                if core.started_here(sid) and sid not in self._started:
                    self._started.append(sid)

    def _on_status(self, _gateway_id: str, old: Any, new: Any) -> None:
        if new.state.name == "CONNECTED" and old.state.name != "CONNECTED":
            self.connects += 1

    # -- lifecycle ----------------------------------------------------------------------------
    async def __aenter__(self) -> TrayApp:
        # desktop.app does this first: closing the last window (the New task dialog after
        # "Start task", say) must not quit a tray app, which would stop the running loop.
        qapp = QApplication.instance()
        assert isinstance(qapp, QApplication)
        self._quit_on_last_window = qapp.quitOnLastWindowClosed()
        qapp.setQuitOnLastWindowClosed(False)
        self.wire.install()
        self._notify_log.install()
        register_secret(self.server.token)  # the URL carries it; keep it out of every log
        endpoint = GatewayEndpoint(
            GATEWAY_ID,
            f"Hermes {self.server.venv.peer.version} (e2e)",
            GatewayKind.URL,
            url=self.server.url,
        )
        self.bridge.add_gateway(endpoint)
        self.shell.show()
        self.bridge.start(asyncio.get_running_loop())
        await poll_until(
            lambda: self.gateway.link is Link.UP, CONNECT_S, "the tray to connect", self.explain
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            self.shell.dispose()
            await self.bridge.aclose()
            await drain()
        finally:
            self.wire.remove()
            self._notify_log.remove()
            QApplication.setQuitOnLastWindowClosed(self._quit_on_last_window)
            self.shell.deleteLater()
            self.bridge.deleteLater()

    def new_task(self, directory: object, prompt: str) -> None:
        """The New task dialog's slot (``task_requested`` → ``bridge.new_task``)."""
        self.bridge.new_task(GATEWAY_ID, str(directory), prompt)

    # -- what the app shows -------------------------------------------------------------------
    @property
    def client(self) -> Any:
        [client] = self.clients
        return client

    @property
    def dialog(self) -> ApprovalDialog:
        return self.shell.dialog

    @property
    def gateway(self) -> GatewayView:
        view = self.bridge.snapshot.gateway(GATEWAY_ID)
        assert view is not None
        return view

    def session(self, session_id: str) -> SessionState | None:
        return self.gateway.session(session_id)

    def latest(self, key: str) -> Approval:
        """The newest value the bridge reported for approval ``key``."""
        return next(u.approval for u in reversed(self.updates) if u.approval.key == key)

    def approvals(self, session_id: str | None = None) -> list[Approval]:
        """Every approval the bridge reported (newest value each), in arrival order."""
        keys = list(dict.fromkeys(u.approval.key for u in self.updates))
        found = [self.latest(k) for k in keys]
        return [a for a in found if session_id is None or a.session_id == session_id]

    def waiting(self, session_id: str | None = None) -> list[Approval]:
        return [a for a in self.approvals(session_id) if a.phase is ApprovalPhase.WAITING]

    def row(self, key: str) -> RowEntry | None:
        """The dialog's row for ``key`` (None once its batch left the dialog)."""
        return self.dialog.board.row((GATEWAY_ID, key))

    def started_sessions(self) -> list[str]:
        """Session ids of tasks the tray started, in order (as each "Task started" notice came)."""
        return list(self._started)

    # -- waiting ------------------------------------------------------------------------------
    async def wait(self, predicate: Callable[[], Any], what: str, timeout: float = TURN_S) -> Any:
        return await poll_until(predicate, timeout, what, self.explain)

    async def new_session(self, count: int = 1) -> str:
        """The id of the ``count``-th task the tray started (waits for it)."""
        await self.wait(lambda: len(self.started_sessions()) >= count, f"task {count} to start")
        return self.started_sessions()[count - 1]

    async def start_task(self, directory: object, prompt: str) -> str:
        """Start a task (the New task dialog's slot); its session id, once the tray says so.

        It counts the tasks started so far, so a test that starts several never numbers them.
        """
        count = len(self.started_sessions()) + 1
        self.new_task(directory, prompt)
        return await self.new_session(count)

    async def task_asks(self, directory: object, prompt: str) -> tuple[str, Approval]:
        """Start a task whose first command needs approval; its session id and that approval,
        once it waits on the person (and it alone: a second one fails the unpacking)."""
        sid = await self.start_task(directory, prompt)
        [asked] = await self.asked(sid)
        return sid, asked

    async def asked(self, session_id: str, count: int = 1) -> list[Approval]:
        """Wait until ``count`` approvals of the session wait on the person; return them."""
        await self.wait(
            lambda: len(self.waiting(session_id)) >= count,
            f"{count} approval(s) waiting in session {session_id}",
        )
        return self.waiting(session_id)

    async def resolved(self, key: str) -> Approval:
        await self.wait(
            lambda: self.latest(key).phase is ApprovalPhase.RESOLVED, f"approval {key} to end"
        )
        return self.latest(key)

    async def turn_over(self, session_id: str, turns: int = 1) -> None:
        """Wait for the agent's ``turns``-th ``message.complete`` in the session."""
        await self.wait(
            lambda: self.wire.turns_ended(session_id) >= turns,
            f"turn {turns} of session {session_id} to end",
        )

    # -- diagnostics --------------------------------------------------------------------------
    def explain(self) -> str:
        lines = [f"gateway: {self.bridge.snapshot.gateway(GATEWAY_ID)!r:.400}"]
        for a in self.approvals():
            kind = a.outcome.kind.value if a.outcome else ""
            lines.append(f"  {a.key} {a.session_id} {a.phase.value} {kind} {a.command[:80]!r}")
        lines.append(f"notices: {[(n.what, n.where, n.advice) for n in self.notices]}")
        lines.append("wire tail:\n" + self.wire.tail())
        lines.append("gateway log tail:\n" + self.server.log_tail(15))
        return "\n".join(lines)


def outcome(approval: Approval) -> OutcomeKind | None:
    return approval.outcome.kind if approval.outcome else None
