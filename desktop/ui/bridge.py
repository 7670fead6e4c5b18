"""The one QObject where asyncio meets Qt: widgets never await (stack.md §5) nor see websockets.

Every task is started here on the qasync loop and kept until it ends; its outcome comes back as a
signal (a failure as ``notice_received``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktop.core.decisions import refusal
from desktop.core.events import CoreEvent, ProtocolErrorReceived
from desktop.core.model import Approval, Choice, DecisionResult, Dialect
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import GatewayError
from desktop.gateway.status import ConnectionStatus, GatewayListener
from desktop.gateway.yolo_verify import SETTLE_SECONDS, switch_off_verified
from desktop.journal import Surface
from desktop.model.app_state import AppState, StoreChange
from desktop.model.bridge_events import (
    ApprovalUpdate,
    CommandReport,
    DecisionMade,
    DecisionRequest,
    Notice,
    PromptUpdate,
    RowsForgotten,
    SessionGone,
    SessionUpdate,
)
from desktop.model.notify_policy import NotificationPlan
from desktop.model.reask_guard import DenyMemory
from desktop.model.snapshot import AppSnapshot
from desktop.model.yolo_timer import YoloCheck

if TYPE_CHECKING:
    from desktop.gateway.client import GatewayClient
    from desktop.platform.native_notify import NativeNotifier

log = logging.getLogger(__name__)

ClientFactory = Callable[[GatewayEndpoint, GatewayListener], "GatewayClient"]


class _Removed:
    """The listener of a removed or replaced client, which may still deliver while it closes."""

    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        pass

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        pass


class GatewayBridge(QObject):
    approval_requested = Signal(object)  # ApprovalUpdate
    approval_changed = Signal(object)  # ApprovalUpdate
    prompt_asked = Signal(object)  # PromptUpdate: a question waits (or can now be answered)
    prompt_ended = Signal(object)  # PromptUpdate with ``ended`` set
    session_changed = Signal(object)  # SessionUpdate
    session_removed = Signal(object)  # SessionGone
    connection_status_changed = Signal(str, object, object)  # gateway_id, old, new status
    notice_received = Signal(object)  # Notice
    snapshot_changed = Signal(object)  # AppSnapshot
    notification_action_invoked = Signal(object, object)  # NotificationPlan, ActionKind
    notifications_ready = Signal(bool)  # True: native service with buttons is on the bus
    do_not_disturb_changed = Signal(object)  # DoNotDisturb, as the notifier read it
    gateway_removed = Signal(str)  # gateway_id; its client is closing
    decision_made = Signal(object)  # DecisionMade, after every decide()
    command_ran = Signal(object)  # CommandReport: Hermes ran a command that had no row here
    rows_forgotten = Signal(object)  # RowsForgotten: resolved rows the store no longer keeps
    yolo_set = Signal(str, str, bool, bool)  # gateway_id, session_id, on, ok (call completed)
    yolo_checked = Signal(str, str, object)  # gateway_id, session_id, YoloCheck

    def __init__(self, client_factory: ClientFactory, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._client_factory = client_factory
        self._clients: dict[str, GatewayClient] = {}
        self._state = AppState()
        self._state.subscribe(self._on_store_change)
        self._run_tasks: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # the loop holds tasks only weakly
        self._closing = False  # set once at quit: nothing more is reported
        self._session_change = asyncio.Event()  # set, then replaced, on every SessionChanged
        self._notifier: NativeNotifier | None = None
        self._notifier_asked = False  # start_notifications() was called
        self._notifier_started = False  # ... and the probe was started (or answered False)
        self.deny_memory = DenyMemory()  # deny means deny: re-asks of denied commands

    def add_gateway(self, endpoint: GatewayEndpoint) -> GatewayClient:
        client = self._client_factory(endpoint, self)
        if client.gateway_id in self._clients:
            self.remove_gateway(client.gateway_id)
        self._clients[client.gateway_id] = client
        if self._loop is not None:
            self._start_client(client)
        self._state.add_gateway(client.gateway_id, client.name, client.status)
        return client

    def remove_gateway(self, gateway_id: str) -> None:
        client = self._clients.pop(gateway_id, None)
        if client is None:
            return
        client.listener = _Removed()
        self.deny_memory.forget_gateway(gateway_id)
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
        self._state.remove_gateway(gateway_id)

    def gateway_ids(self) -> tuple[str, ...]:
        return tuple(self._clients)

    def start(
        self, loop: asyncio.AbstractEventLoop, notifier: NativeNotifier | None = None
    ) -> None:
        """Start every client's ``run()`` on ``loop``; ``notifier`` starts on first use."""
        self._loop = loop
        for client in self._clients.values():
            self._start_client(client)
        self._notifier = notifier
        if notifier is not None:
            notifier.watch_do_not_disturb(self.do_not_disturb_changed.emit)
        if self._notifier_asked:  # asked before the loop was there
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

    @property
    def rows(self) -> AppState:
        return self._state

    # -- GatewayListener (called on the loop's thread, which is Qt's main thread) -----------
    def on_core_event(self, gateway_id: str, event: CoreEvent) -> None:
        if self._closing:
            return
        if isinstance(event, ProtocolErrorReceived):
            log.warning("gateway %s sent an unusable frame: %s", gateway_id, event.reason)
        self._state.apply(gateway_id, event)  # announces to _on_store_change

    def on_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if self._closing:
            return
        self._state.set_status(gateway_id, new)  # announces the new snapshot
        self.connection_status_changed.emit(gateway_id, old, new)

    def _on_store_change(self, change: StoreChange) -> None:
        if isinstance(change, AppSnapshot):
            self.snapshot_changed.emit(change)
        elif isinstance(change, ApprovalUpdate):
            if change.arrived:
                self.approval_requested.emit(change)
                if self.deny_memory.is_reask_of_denied(change.gateway_id, change.approval):
                    self._deny_reask_soon(change.gateway_id, change.approval)
            else:
                self.approval_changed.emit(change)
        elif isinstance(change, SessionUpdate):
            self._session_change.set()  # wakes the YOLO-off checks (_next_session_change)
            self._session_change = asyncio.Event()
            self.session_changed.emit(change)
        elif isinstance(change, PromptUpdate):
            (self.prompt_ended if change.ended else self.prompt_asked).emit(change)
        elif isinstance(change, SessionGone):
            self.session_removed.emit(change)
        elif isinstance(change, RowsForgotten):
            self.rows_forgotten.emit(change)
        elif isinstance(change, CommandReport):
            self.command_ran.emit(change)
        else:
            self.notice_received.emit(change)

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
            request.choice.value,
            request.gateway_id,
            request.key,
            request.surface.value,
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
                )
            )
        return result

    def answer_prompt(self, gateway_id: str, key: str, answer: str) -> DecisionResult:
        """Answer clarify prompt ``key`` (never logged: a person may type anything into it)."""
        client = self._clients.get(gateway_id)
        if client is None:
            result = DecisionResult(False, "expired: that gateway is no longer configured")
        else:
            result = client.answer_prompt(key, answer)
        log.info(
            "answer to prompt %s/%s: %s",
            gateway_id,
            key,
            "sent" if result.sent else f"refused ({result.reason})",
        )
        return result

    def deny_and_stop(self, gateway_id: str, keys: tuple[str, ...], surface: Surface) -> None:
        rows = [self._state.approval(gateway_id, key) for key in keys]  # before they resolve
        for key in keys:
            self.decide(DecisionRequest(gateway_id, key, Choice.DENY, surface))
        for session_id in dict.fromkeys(row.session_id for row in rows if row is not None):
            if gateway_id in self._clients:
                self.interrupt(gateway_id, session_id)

    def _deny_reask_soon(self, gateway_id: str, approval: Approval) -> None:
        """Deny a re-ask of a denied command, once the core has finished the frame that asked."""

        def answer() -> None:
            row = self._state.approval(gateway_id, approval.key)
            if (
                self._closing
                or row is None
                or row.command != approval.command
                or refusal(row, Choice.DENY) is not None
            ):
                return
            self.decide(DecisionRequest(gateway_id, approval.key, Choice.DENY, Surface.REASK))

        if self._loop is not None:
            self._loop.call_soon(answer)

    def set_approval_mode(self, gateway_id: str, mode: str) -> None:
        """Global for the gateway; the UI asks for confirmation before calling this."""
        self._spawn(
            self._clients[gateway_id].set_approval_mode(mode),
            f"Could not set the approval mode to {mode}",
            self._state.gateway_name(gateway_id),
            "Change approvals.mode in Hermes' config.yaml if the gateway does not allow it.",
            gateway_id,
        )

    def interrupt(self, gateway_id: str, session_id: str) -> None:
        self._spawn(
            self._clients[gateway_id].interrupt(session_id),
            "Could not interrupt the session",
            self._where(gateway_id, session_id),
            "Try again; if the session is stuck, stop it from the terminal.",
            gateway_id,
        )

    def new_task(self, gateway_id: str, cwd: str, prompt: str) -> None:
        client = self._clients[gateway_id]
        where = f"{cwd} on {self._state.gateway_name(gateway_id)}"

        async def create() -> None:
            await client.create_session(cwd, prompt)
            self.notice_received.emit(Notice("info", "Task started", where))

        self._spawn(
            create(),
            "Could not start the task",
            where,
            "Check that the folder exists on the gateway's machine and that it is connected.",
            gateway_id,
        )

    def reconnect(self, gateway_id: str) -> None:
        self._clients[gateway_id].reconnect_now()

    def set_yolo(self, gateway_id: str, session_id: str, on: bool) -> None:
        """Ask for YOLO on/off; ``yolo_set`` reports whether the call went through."""
        client = self._clients[gateway_id]

        async def change() -> None:
            ok = False
            try:
                await client.set_yolo(session_id, on)
                ok = True
            finally:
                if not self._closing:
                    self.yolo_set.emit(gateway_id, session_id, on, ok)

        self._spawn(
            change(),
            f"Could not turn YOLO {'on' if on else 'off'}",
            self._where(gateway_id, session_id),
            "Check that the gateway is connected and try again from the tray menu.",
            gateway_id,
        )

    def switch_yolo_off_checked(self, gateway_id: str, session_id: str) -> None:
        """YOLO off, then check the gateway reports it off (how: ``gateway.yolo_verify``)."""
        client = self._clients.get(gateway_id)
        if client is None:
            self.yolo_checked.emit(gateway_id, session_id, YoloCheck.UNREACHABLE)
            return
        view = self._state.snapshot().gateway(gateway_id)
        canonical = view is not None and view.dialect is Dialect.C

        async def check() -> None:
            try:
                result = await switch_off_verified(
                    client,
                    session_id,
                    functools.partial(self._yolo_reported_on, gateway_id, session_id),
                    self._next_session_change,
                    read_back=functools.partial(client.read_yolo, session_id)
                    if canonical
                    else None,
                    settle=SETTLE_SECONDS,  # how long a gateway gets to report YOLO off
                )
            except Exception:  # a bug must not leave the box "turning off" for ever
                log.exception("switching YOLO off for %s/%s failed", gateway_id, session_id)
                result = YoloCheck.STILL_ON  # unconfirmed: the person is told to check
            if not self._closing:
                self.yolo_checked.emit(gateway_id, session_id, result)

        self._spawn(
            check(),
            "Could not turn YOLO off",
            self._where(gateway_id, session_id),
            "Turn it off in Hermes.",
            gateway_id,
        )

    async def end_yolo(self, sessions: list[tuple[str, str]], timeout: float = 2.0) -> None:
        """At quit: switch YOLO off for ``sessions`` (best effort, bounded by ``timeout``)."""
        targets = [(gid, sid) for gid, sid in sessions if gid in self._clients]
        if not targets:
            return
        calls = [self._clients[gid].set_yolo(sid, False) for gid, sid in targets]
        try:
            results = await asyncio.wait_for(
                asyncio.gather(*calls, return_exceptions=True), timeout
            )
        except TimeoutError:
            log.warning("YOLO off at quit: no answer within %.0f s", timeout)
            return
        for (gid, sid), result in zip(targets, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("YOLO off at quit for %s/%s failed: %s", gid, sid, result)
            else:
                log.info("YOLO off at quit for %s/%s (its time-box ends with the app)", gid, sid)

    async def _next_session_change(self, timeout: float) -> None:
        """Return on any session's next change (a check re-reads its own) or after ``timeout`` s."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._session_change.wait(), timeout)

    def start_notifications(self) -> None:
        """Probe the notification service on first use: dbus-fast is ~90 modules and 4 MiB.

        ``notifications_ready`` answers exactly once, whatever happened: bubbles wait for it.
        """
        self._notifier_asked = True
        if self._notifier_started or self._loop is None:
            return
        self._notifier_started = True
        notifier = self._notifier
        if notifier is None:
            self.notifications_ready.emit(False)
            return
        self._spawn(self._probe(notifier), "Starting notifications", "this desktop", "")

    async def _probe(self, notifier: NativeNotifier) -> None:
        available = False
        try:
            available = bool(await notifier.start())
        except Exception:  # a broken backend must not leave plans waiting for an answer
            log.exception("could not start native notifications; using the tray's balloon")
        self.notifications_ready.emit(available and bool(notifier.buttons))

    def show_notification(self, plan: NotificationPlan) -> None:
        if self._notifier is not None:
            shown = self._notifier.show(plan, self.notification_action_invoked.emit)
            self._spawn(shown, "Could not show a notification", "this desktop", "", log_only=True)

    def withdraw_notification(self, gateway_id: str, batch_id: str) -> None:
        if self._notifier is not None:
            closed = self._notifier.withdraw(gateway_id, batch_id)
            self._spawn(closed, "Could not close a notification", "this desktop", "", log_only=True)

    def show_text_notification(self, title: str, body: str, urgent: bool = False) -> None:
        if self._notifier is not None:
            shown = self._notifier.show_text(title, body, urgent=urgent)
            self._spawn(shown, "Could not show a notification", "this desktop", "", log_only=True)

    def _spawn(
        self,
        coro: Coroutine[Any, Any, object],
        what: str,
        where: str,
        advice: str,
        gateway_id: str = "",
        *,
        log_only: bool = False,
    ) -> None:
        """Run ``coro`` to its end; a failure is logged and (unless ``log_only``) a ``Notice``."""
        if self._loop is None:
            coro.close()
            raise RuntimeError("GatewayBridge.start() has not run")

        async def guarded() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                known = isinstance(exc, GatewayError)
                reason = str(exc) if known else "unexpected error; see the log"
                log.warning("%s (%s): %s", what, where, reason, exc_info=not known)
                if not log_only and not self._closing:
                    notice = Notice("error", what, where, f"{reason}. {advice}".strip())
                    self.notice_received.emit(notice)

        task = self._loop.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _start_client(self, client: GatewayClient) -> None:
        loop = self._loop
        assert loop is not None
        gateway_id = client.gateway_id
        task = loop.create_task(client.run(), name=f"gateway-client {gateway_id}")
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
                )
            )

    def _where(self, gateway_id: str, session_id: str) -> str:
        title = self._state.session_title(gateway_id, session_id)
        return f"{title} on {self._state.gateway_name(gateway_id)}"

    def _yolo_reported_on(self, gateway_id: str, session_id: str) -> bool | None:
        session = self._state.session(gateway_id, session_id)
        return None if session is None else session.yolo.effective
