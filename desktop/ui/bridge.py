"""The one QObject where asyncio meets Qt (design.md example 7).

Why exactly one: widgets must never await (a coroutine inside a Qt handler starves the loop or
re-enters it, stack.md §5) and must never see websockets. Everything asynchronous — the gateway
clients' ``run()`` tasks, RPC commands, native notifications — is started *here*, on the
running qasync loop, with a reference kept until it ends; its outcome comes back as a signal.

Inbound, the bridge is every client's ``GatewayListener``: core events are folded into the
``AppState`` store and re-emitted as past-tense signals with one frozen payload each. Outbound,
slots are verbs (``decide``, ``set_yolo``, ...) that return at once; a failure arrives later as
``notice_received`` saying what failed, where, and what to do. Every decision is re-announced
as ``decision_made`` (with the command as shown), whichever surface made it, for the journal.
The YOLO slots (including "switch off and check") live in the ``bridge_yolo`` mixin, the
notification slots (the notifier starts on first use) in ``bridge_notify`` and the client
contract in ``bridge_clients``, to keep this module about lifecycle and routing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CoreEvent,
    NoticeReceived,
    ProtocolErrorReceived,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import Approval, ApprovalPhase, Choice, DecisionResult
from desktop.gateway.errors import GatewayError
from desktop.ui.app_state import AppState
from desktop.ui.approvals.requests import DecisionRequest
from desktop.ui.bridge_clients import (
    ClientFactory,
    ClientLike,
    ClientListener,
    gateway_client_factory,
)
from desktop.ui.bridge_events import (
    ApprovalUpdate,
    DecisionMade,
    Notice,
    SessionGone,
    SessionUpdate,
)
from desktop.ui.bridge_notify import NotificationSlots
from desktop.ui.bridge_yolo import YoloSlots
from desktop.ui.reask_guard import SURFACE_REASK, DenyMemory
from desktop.ui.snapshot import AppSnapshot
from desktop.ui.yolo_verify import SETTLE_SECONDS

__all__ = ["ClientFactory", "ClientLike", "GatewayBridge", "gateway_client_factory"]

log = logging.getLogger(__name__)


class GatewayBridge(YoloSlots, NotificationSlots, QObject):
    """Owns the gateway clients and their tasks; re-emits what they report as Qt signals."""

    approval_requested = Signal(object)  # ApprovalUpdate
    approval_changed = Signal(object)  # ApprovalUpdate
    session_changed = Signal(object)  # SessionUpdate
    session_removed = Signal(object)  # SessionGone
    connection_status_changed = Signal(str, object, object)  # gateway_id, old, new status
    notice_received = Signal(object)  # Notice
    snapshot_changed = Signal(object)  # AppSnapshot
    notification_action_invoked = Signal(object, object)  # NotificationPlan, ActionKind
    notifications_ready = Signal(bool)  # True: native service with buttons is on the bus
    gateway_removed = Signal(str)  # gateway_id; its client is closing
    decision_made = Signal(object)  # DecisionMade, after every decide()
    yolo_set = Signal(str, str, bool, bool)  # gateway_id, session_id, on, ok (call completed)
    yolo_checked = Signal(str, str, object)  # gateway_id, session_id, YoloCheck

    def __init__(
        self, client_factory: ClientFactory = gateway_client_factory, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._client_factory = client_factory
        self._clients: dict[str, ClientLike] = {}
        self._listeners: dict[str, ClientListener] = {}
        self._session_waiters: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        self.yolo_settle_s = SETTLE_SECONDS  # how long a gateway gets to report YOLO off
        self._state = AppState()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._run_tasks: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._notifier: Any = None  # desktop.ui.native_notify.NativeNotifier
        self._closing = False
        self.deny_memory = DenyMemory()  # deny means deny: re-asks of denied commands

    # -- set-up and shutdown -----------------------------------------------------------------
    def add_gateway(self, endpoint: Any) -> ClientLike:
        """Create the client for ``endpoint`` (started by :meth:`start`, or now if started)."""
        listener = ClientListener(self)
        client = self._client_factory(endpoint, listener)
        if client.gateway_id in self._clients:
            self.remove_gateway(client.gateway_id)
        self._clients[client.gateway_id] = client
        self._listeners[client.gateway_id] = listener
        self._state.add_gateway(client.gateway_id, client.name)
        self._state.set_status(client.gateway_id, client.status)
        if self._loop is not None:
            self._start_client(client)
        self._publish()
        return client

    def remove_gateway(self, gateway_id: str) -> None:
        """Forget ``gateway_id`` now; its client closes cleanly in the background."""
        client = self._clients.pop(gateway_id, None)
        if client is None:
            return
        self._listeners.pop(gateway_id).detach()
        self.deny_memory.forget_gateway(gateway_id)
        self._state.remove_gateway(gateway_id)
        task = self._run_tasks.pop(gateway_id, None)
        if self._loop is not None:

            async def stop() -> None:
                await client.close()
                if task is not None:
                    await asyncio.gather(task, return_exceptions=True)

            self._spawn(
                stop(), "Could not close the gateway connection", client.name, "", log_only=True
            )
        self.gateway_removed.emit(gateway_id)
        self._publish()

    def gateway_ids(self) -> tuple[str, ...]:
        return tuple(self._clients)

    def start(self, loop: asyncio.AbstractEventLoop, notifier: Any = None) -> None:
        """Start every client's ``run()`` on ``loop`` (the running qasync loop).

        ``notifier`` (a ``NativeNotifier``) is only kept: it is started on first use
        (:meth:`start_notifications`, see ``bridge_notify``).
        """
        self._loop = loop
        self._notifier = notifier
        for client in self._clients.values():
            self._start_client(client)
        if self._notifications_asked:  # someone asked before the loop was there
            self.start_notifications()

    async def aclose(self) -> None:
        """Close clients cleanly (a 1000 close), then cancel and await every task."""
        self._closing = True
        clients = list(self._clients.values())
        results = await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        for client, result in zip(clients, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("closing gateway %s failed: %r", client.gateway_id, result)
        if self._notifier is not None:
            await self._notifier.aclose()
        tasks = [*self._run_tasks.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._run_tasks.clear()
        self._tasks.clear()

    @property
    def snapshot(self) -> AppSnapshot:
        return self._state.snapshot()

    def gateway_name(self, gateway_id: str) -> str:
        return self._state.gateway_name(gateway_id)

    # -- GatewayListener (called on the loop's thread, which is Qt's main thread) -----------
    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        if self._closing:
            return
        self._state.apply(gateway_id, event)
        name = self._state.gateway_name(gateway_id)
        if isinstance(event, ApprovalRequested | ApprovalChanged):
            title = self._state.session_title(gateway_id, event.approval.session_id)
            update = ApprovalUpdate(gateway_id, name, event.approval, title)
            signal = (
                self.approval_requested
                if isinstance(event, ApprovalRequested)
                else self.approval_changed
            )
            signal.emit(update)
            if isinstance(event, ApprovalRequested) and self.deny_memory.is_reask_of_denied(
                gateway_id, event.approval
            ):
                self._deny_reask_soon(gateway_id, event.approval)
        elif isinstance(event, SessionChanged):
            self._wake((gateway_id, event.session.session_id))
            self.session_changed.emit(SessionUpdate(gateway_id, event.session))
        elif isinstance(event, SessionRemoved):
            self.session_removed.emit(SessionGone(gateway_id, event.session_id, event.reason))
        elif isinstance(event, NoticeReceived):
            where = name
            if event.session_id:
                where = f"{self._state.session_title(gateway_id, event.session_id)} on {name}"
            self.notice_received.emit(
                Notice(event.level, event.text, where, "", gateway_id, event.session_id)
            )
        elif isinstance(event, ProtocolErrorReceived):
            log.warning("gateway %s sent an unusable frame: %s", gateway_id, event.reason)
        self._publish()

    def on_status_changed(self, gateway_id: str, old: Any, new: Any) -> None:
        if self._closing:
            return
        self._state.set_status(gateway_id, new)
        self.connection_status_changed.emit(gateway_id, old, new)
        self._publish()

    # -- slots: commands from widgets; they never block and never raise --------------------
    def decide(self, request: DecisionRequest) -> DecisionResult:
        """Answer exactly ``request.key`` with ``request.choice`` (sync: the core queues it)."""
        client = self._clients.get(request.gateway_id)
        shown = self._state.approval(request.gateway_id, request.key)  # before it may resolve
        if client is None:
            result = DecisionResult(False, "that gateway is no longer configured")
        else:
            result = client.decide(request.key, request.choice, confirm_stale=request.confirm_stale)
        log.info(
            "decision %s on %s/%s from %s: %s",
            getattr(request.choice, "value", request.choice),
            request.gateway_id,
            request.key,
            request.surface,
            "sent" if result.sent else f"refused ({result.reason})",
        )
        if request.choice is Choice.DENY and shown is not None:
            self.deny_memory.denied(request.gateway_id, shown)
        session_id = shown.session_id if shown else ""
        self.decision_made.emit(
            DecisionMade(
                request.gateway_id,
                self._state.gateway_name(request.gateway_id),
                request.key,
                request.choice,
                request.surface,
                result.sent,
                result.reason,
                session_id,
                self._state.session_title(request.gateway_id, session_id) if shown else "",
                shown.command if shown else "",
            )
        )
        if not result.sent:
            self.notice_received.emit(
                Notice(
                    "warning",
                    "Your decision was not sent",
                    self._state.gateway_name(request.gateway_id),
                    f"{result.reason}. Open Review approvals… to see where it stands.",
                    request.gateway_id,
                )
            )
        return result

    approve = decide  # the brief's name for the same slot

    def deny_and_stop(self, gateway_id: str, keys: tuple[str, ...], surface: str) -> None:
        """Deny each of ``keys``, then interrupt their sessions ("Deny and stop the agent")."""
        sessions: list[str] = []
        for key in keys:
            row = self._state.approval(gateway_id, key)
            if row is not None and row.session_id not in sessions:
                sessions.append(row.session_id)
            self.decide(DecisionRequest(gateway_id, key, Choice.DENY, surface))
        for session_id in sessions:
            if gateway_id in self._clients:
                self.interrupt(gateway_id, session_id)

    def _deny_reask_soon(self, gateway_id: str, approval: Approval) -> None:
        """Answer a re-ask of a denied command with deny, after this event is delivered.

        Not on the stack of the core's own event delivery: the core is still handling the
        frame that asked. The row must still be the same, waiting command when the answer goes.
        """

        def answer() -> None:
            row = self._state.approval(gateway_id, approval.key)
            if (
                self._closing
                or row is None
                or row.phase is not ApprovalPhase.WAITING
                or row.command != approval.command
            ):
                return
            self.decide(DecisionRequest(gateway_id, approval.key, Choice.DENY, SURFACE_REASK))

        if self._loop is not None:
            self._loop.call_soon(answer)

    def set_approval_mode(self, gateway_id: str, mode: str) -> None:
        """Global for the gateway; the UI asks for confirmation before calling this."""
        client = self._clients[gateway_id]
        self._spawn(
            client.set_approval_mode(mode),
            f"Could not set the approval mode to {mode}",
            self._state.gateway_name(gateway_id),
            "Change approvals.mode in Hermes' config.yaml if the gateway does not allow it.",
            gateway_id,
        )

    def interrupt(self, gateway_id: str, session_id: str) -> None:
        client = self._clients[gateway_id]
        self._spawn(
            client.interrupt(session_id),
            "Could not interrupt the session",
            self._where(gateway_id, session_id),
            "Try again; if the session is stuck, stop it from the terminal.",
            gateway_id,
        )

    def new_task(self, gateway_id: str, cwd: str, prompt: str) -> None:
        client = self._clients[gateway_id]

        async def create() -> None:
            session_id = await client.create_session(cwd, prompt)
            self.notice_received.emit(
                Notice(
                    "info",
                    "Task started",
                    f"{cwd} on {self._state.gateway_name(gateway_id)}",
                    "",
                    gateway_id,
                    session_id,
                )
            )

        self._spawn(
            create(),
            "Could not start the task",
            f"{cwd} on {self._state.gateway_name(gateway_id)}",
            "Check that the folder exists on the gateway's machine and that it is connected.",
            gateway_id,
        )

    def reconnect(self, gateway_id: str) -> None:
        self._clients[gateway_id].reconnect_now()

    # -- internals ---------------------------------------------------------------------------
    def _start_client(self, client: ClientLike) -> None:
        assert self._loop is not None
        gateway_id = client.gateway_id
        task = self._loop.create_task(client.run(), name=f"gateway-client {gateway_id}")
        self._run_tasks[gateway_id] = task
        task.add_done_callback(functools.partial(self._client_ended, gateway_id))

    def _client_ended(self, gateway_id: str, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._closing or self._run_tasks.get(gateway_id) is not task:
            return  # cancelled, quitting, or a removed/replaced gateway's old client
        error = task.exception()
        if error is not None:
            log.error("gateway client %s stopped", gateway_id, exc_info=error)
            self.notice_received.emit(
                Notice(
                    "error",
                    "The connection stopped",
                    self._state.gateway_name(gateway_id),
                    "Restart Hermes Tray; the log has the details.",
                    gateway_id,
                )
            )

    def _spawn(
        self,
        coro: Coroutine[Any, Any, Any],
        what: str,
        where: str,
        advice: str,
        gateway_id: str = "",
        *,
        log_only: bool = False,
    ) -> asyncio.Task[Any]:
        if self._loop is None:
            coro.close()
            raise RuntimeError("GatewayBridge.start() has not run")
        task = self._loop.create_task(self._guard(coro, what, where, advice, gateway_id, log_only))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _guard(
        self,
        coro: Coroutine[Any, Any, Any],
        what: str,
        where: str,
        advice: str,
        gateway_id: str,
        log_only: bool,
    ) -> None:
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = str(exc) if isinstance(exc, GatewayError) else "unexpected error; see the log"
            log.warning(
                "%s (%s): %s", what, where, reason, exc_info=not isinstance(exc, GatewayError)
            )
            if not log_only and not self._closing:
                self.notice_received.emit(
                    Notice("error", what, where, f"{reason}. {advice}".strip(), gateway_id)
                )

    def _where(self, gateway_id: str, session_id: str) -> str:
        title = self._state.session_title(gateway_id, session_id)
        return f"{title} on {self._state.gateway_name(gateway_id)}"

    def _publish(self) -> None:
        self.snapshot_changed.emit(self._state.snapshot())
