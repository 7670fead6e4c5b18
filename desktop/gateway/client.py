"""One gateway kept connected on the asyncio loop: dial, pump, settle RPC futures, reconnect.

The protocol lives in the sans-I/O ``GatewayCore``. A retryable failure waits in BACKOFF, a fatal
one (bad config, wrong protocol) in FAILED until ``reconnect_now()``. Each connection is a new
epoch, so nothing from an old socket is taken for an answer on a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection

from desktop.core.events import ApprovalRequested, HandshakeCompleted, RpcResponded
from desktop.core.gateway_core import CoreSettings, GatewayCore, OutboundFrame
from desktop.core.model import Choice, DecisionResult, Dialect
from desktop.core.session_state import APPROVAL_MODES
from desktop.gateway.approval_timeout import HERMES_DEFAULT, TimeoutLearner, Where
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.dashboard import http_get
from desktop.gateway.dialer import Dialer, sent_too_big
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import (
    CallTimeoutError,
    ConnectError,
    NotSentError,
    OutcomeUnknownError,
    RpcCallError,
    UnsupportedError,
)
from desktop.gateway.pump import KeepalivePace, SocketPump
from desktop.gateway.session_follower import SessionFollower, list_request
from desktop.gateway.status import (
    ConnectionSettings,
    ConnectionState,
    ConnectionStatus,
    GatewayListener,
)
from desktop.settings.model import GatewayKind, is_loopback_host

__all__ = ["ConnectionSettings", "ConnectionState", "ConnectionStatus", "GatewayClient"]

log = logging.getLogger(__name__)

PROFILE_CALL_TIMEOUT = 10.0


@dataclasses.dataclass
class _Call:
    """One of the app's own requests, settled by its answer or its frame's fate."""

    rpc_id: int
    method: str
    future: asyncio.Future[Mapping[str, Any]]
    written: bool = False

    def fail(self, error: Exception) -> None:
        if not self.future.done():
            self.future.set_exception(error)


class GatewayClient:
    def __init__(
        self,
        endpoint: GatewayEndpoint,
        *,
        listener: GatewayListener,
        clock: Callable[[], float] = time.monotonic,
        backoff: BackoffPolicy | None = None,
        core_settings: CoreSettings | None = None,
        connection_settings: ConnectionSettings | None = None,
        follow_all: bool = True,
    ) -> None:
        self.endpoint = endpoint
        self.gateway_id = endpoint.gateway_id
        self.name = endpoint.name
        self.listener = listener
        self._clock = clock
        self._backoff = backoff or BackoffPolicy()
        self._core_settings = core_settings or CoreSettings()
        self._settings = connection_settings or ConnectionSettings()
        self.core = GatewayCore(clock=clock, settings=self._core_settings)
        self.status = ConnectionStatus(ConnectionState.DISCONNECTED)
        self.dialer = Dialer(endpoint)
        self._calls: dict[int, _Call] = {}  # the app's own requests, by rpc_id
        self._pump: SocketPump | None = None
        self._closing = False
        self._wake = asyncio.Event()
        self._finished = asyncio.Event()
        self._running = False
        self._dial: asyncio.Task[ClientConnection] | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._handshake_timer: asyncio.TimerHandle | None = None
        self._handshake_expired = False
        self._version_task: asyncio.Task[None] | None = None
        self._timeouts = TimeoutLearner(endpoint.approval_timeout_s)
        self._delivery_pending = False
        self._was_connected = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.follower = SessionFollower(
            self.core,
            call=self.call,
            flush=self._after_input,
            spawn=self._spawn,
            later=self._call_later,
            clock=clock,
            follow_all=follow_all,
        )

    async def run(self) -> None:
        if self._running:
            raise RuntimeError(f"GatewayClient {self.gateway_id} is already running")
        self._running = True
        self._loop = asyncio.get_running_loop()
        self._finished.clear()
        attempt = 0
        try:
            while not self._closing:
                self._was_connected = False
                error = await self._connect_once(attempt)
                if self._stopping():
                    break
                if self._was_connected and (error is None or not error.auth):
                    # A drop after a good connection retries quickly; a credential refused right
                    # after C's handshake (the subprotocol alone) is no good connection.
                    attempt = 0
                    self.dialer.connected()
                if error is not None and error.fatal:
                    self._set_status(state=ConnectionState.FAILED, error=str(error))
                    await self._wait_wake(None)
                    attempt = 0
                    continue
                attempt += 1
                delay = self._backoff.delay(attempt)
                self._set_status(
                    state=ConnectionState.BACKOFF,
                    attempt=attempt,
                    error=str(error) if error else "The connection closed.",
                )
                await self._wait_wake(delay)
        finally:
            self._running = False
            self._cancel_timers()
            self._set_status(state=ConnectionState.DISCONNECTED, dialect=None)
            self._finished.set()

    async def close(self) -> None:
        """Close with code 1000, stop reconnecting, stop an owned backend. Idempotent."""
        self._closing = True
        self.follower.close()
        self._wake.set()
        if self._dial is not None:
            self._dial.cancel()
        if self._pump is not None:
            with contextlib.suppress(Exception):
                await self._pump.ws.close(1000, "tray closing")
        if self._running:
            await self._finished.wait()
        if self._version_task is not None:
            self._version_task.cancel()
            await asyncio.gather(self._version_task, return_exceptions=True)
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self.dialer.close()

    def _current_loop(self) -> asyncio.AbstractEventLoop | None:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            return self._loop

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        loop = self._current_loop()
        if loop is None:
            coro.close()
            return
        task = loop.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _call_later(self, delay: float, callback: Callable[[], None]) -> asyncio.TimerHandle | None:
        loop = self._current_loop()
        return loop.call_later(delay, callback) if loop is not None else None

    def _stopping(self) -> bool:
        """True once :meth:`close` was called (a method, so no type narrowing sticks to it)."""
        return self._closing

    def reconnect_now(self) -> None:
        """Skip the backoff wait (or leave FAILED) and dial at once; drop a live socket first."""
        self._wake.set()
        if self._pump is not None:
            self._spawn(self._pump.ws.close(1000, "reconnecting"))

    async def _wait_wake(self, delay: float | None) -> None:
        """Wait ``delay`` unless close() or reconnect_now() came since the last wait."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), delay)
        self._wake.clear()

    async def _connect_once(self, attempt: int) -> ConnectError | None:
        """Dial, handshake and pump one connection. Returns why it ended (None: clean close)."""
        self._set_status(state=ConnectionState.CONNECTING, attempt=attempt)
        dial = self.dialer.dial(self._settings, self._core_settings.max_frame_bytes)
        self._dial = asyncio.get_running_loop().create_task(dial)
        try:
            ws = await self._dial
        except asyncio.CancelledError:
            if self._closing:
                return None
            raise
        except Exception as exc:
            return await self.dialer.classify(exc)
        finally:
            self._dial = None
        if self._stopping():  # close() ran while the dial finished
            await ws.close(1000, "tray closing")
            return None
        self._pump = pump = SocketPump(
            ws,
            self.core,
            on_received=self._after_input,
            on_fate=self._on_frame_fate,
            peek=self.follower.peek,
            pace=self._keepalive_pace if self._settings.ping_interval is not None else None,
        )
        self.core.connection_opened(self.core.epoch + 1, subprotocol=ws.subprotocol)
        self._set_status(state=ConnectionState.HANDSHAKING, error="")
        self._handshake_expired = False
        self._handshake_timer = asyncio.get_running_loop().call_later(
            self._settings.handshake_timeout, self._handshake_timed_out
        )
        self._after_input()  # events and frames the core produced on connection_opened
        closed_by: BaseException | None = None
        try:
            closed_by = await pump.run()
        finally:
            # However the pump ended, no row may stay answerable on a socket nobody pumps.
            self._pump = None
            self._cancel_handshake_timer()
            self.core.connection_lost(too_big=sent_too_big(closed_by))
            self.follower.connection_lost()
            self._timeouts.forget()
            calls, self._calls = self._calls, {}
            for call in calls.values():
                call.fail(
                    OutcomeUnknownError(
                        f"The connection to {self.dialer.where} dropped after {call.method} was "
                        "sent; its outcome is unknown. Check the session before doing it again."
                    )
                    if call.written
                    else NotSentError(
                        f"The connection to {self.dialer.where} dropped before {call.method} was "
                        "sent; nothing happened. You can retry."
                    )
                )
            self._after_input()
            if ws.close_code is None:
                with contextlib.suppress(Exception):
                    await ws.close(1001, "tray connection reset")
        where = self.dialer.where
        if pump.silent_for is not None:
            return ConnectError(
                f"{where} stopped answering (no reply to a keepalive ping within "
                f"{pump.silent_for:g}s); reconnecting."
            )
        if self._handshake_expired:
            return ConnectError(
                f"{where} accepted the connection but sent no gateway.ready "
                f"within {self._settings.handshake_timeout:g}s; retrying."
            )
        if closed_by is None:  # websockets ends reading quietly on 1000/1001 only
            return ConnectError(f"{where} closed the connection; reconnecting.")
        return await self.dialer.classify(closed_by)

    def _keepalive_pace(self) -> KeepalivePace:
        """Short while any approval is open (a hang must show within 10 s), else the default."""
        s = self._settings
        idle_interval = s.ping_interval if s.ping_interval is not None else 30.0
        idle_timeout = s.ping_timeout if s.ping_timeout is not None else idle_interval
        if self.core.has_open_approvals():
            return KeepalivePace(
                min(s.busy_ping_interval, idle_interval), min(s.busy_ping_timeout, idle_timeout)
            )
        return KeepalivePace(idle_interval, idle_timeout)

    def _handshake_timed_out(self) -> None:
        self._handshake_timer = None
        if self.status.state is ConnectionState.HANDSHAKING and self._pump is not None:
            self._handshake_expired = True
            self._spawn(self._pump.ws.close(1000, "no gateway.ready"))

    def _cancel_handshake_timer(self) -> None:
        if self._handshake_timer is not None:
            self._handshake_timer.cancel()
            self._handshake_timer = None

    async def settled_version(self) -> str:
        """The Hermes version, once a probe still in flight has ended."""
        if self._version_task is not None:
            await asyncio.gather(self._version_task, return_exceptions=True)
        return self.status.version

    async def _read_version(self, host: str, port: int) -> None:
        """The version from the server's public ``/api/status``: the handshake does not say it."""
        try:
            timeout = self._settings.version_probe_timeout
            status, body = await http_get(host, port, "/api/status", timeout=timeout)
            info = json.loads(body) if status == 200 else {}
        except Exception:  # the version stays unknown
            return
        finally:
            self._version_task = None
        if self.status.state is ConnectionState.CONNECTED:  # else the next handshake asks again
            self._set_status(version=str(info.get("version", "")) if isinstance(info, dict) else "")

    def _flush(self) -> None:
        if self._pump is not None:
            self._pump.flush()
            return
        for frame in self.core.data_to_send():  # no socket: certainly not sent
            self.core.frame_failed(frame.frame_id, maybe_sent=False)
            self._on_frame_fate(frame, False)

    def _on_frame_fate(self, frame: OutboundFrame, maybe_sent: bool | None) -> None:
        call = self._calls.get(frame.rpc_id) if frame.rpc_id is not None else None
        if call is not None and maybe_sent is None:
            call.written = True
        elif call is not None:
            del self._calls[call.rpc_id]
            call.fail(
                OutcomeUnknownError(
                    f"{call.method} may have reached {self.name} but the connection failed while "
                    "sending it; its outcome is unknown. Check the session before doing it again."
                )
                if maybe_sent
                else NotSentError(
                    f"{call.method} was not sent to {self.name}; nothing happened. You can retry."
                )
            )
        if frame.is_decision:
            # A written B answer is final at once (no reply follows): show it now.
            self._deliver_soon()

    def _deliver_soon(self) -> None:
        """Deliver the core's events on the next loop turn (coalesced, never re-entrant)."""
        if self._delivery_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (closing): the next input or close delivers them
        self._delivery_pending = True
        loop.call_soon(self._deliver_now)

    def _deliver_now(self) -> None:
        self._delivery_pending = False
        self._after_input()

    def _after_input(self) -> bool:
        """True if an approval arrived: the pump then yields, so its row is painted at once."""
        asked = False
        for event in self.core.events_received():
            if isinstance(event, RpcResponded):
                self._responded(event)
            elif isinstance(event, HandshakeCompleted):
                self._handshake_done(event)
            asked = asked or isinstance(event, ApprovalRequested)
            try:
                self.listener.on_core_event(self.gateway_id, event)
            except Exception:
                log.exception("listener failed on %s", type(event).__name__)
            self.follower.on_event(event)
        if asked:
            if self._pump is not None:
                self._pump.retune()  # a row opened: ping at the busy pace now
            self._relearn_timeout()
        self._flush()  # events may have made the core queue frames (housekeeping)
        self._arm_tick()
        return asked

    async def _learn_timeout(self, dialect: Dialect, epoch: int) -> None:
        seconds = await self._timeouts.learn(dialect, self._timeout_where(), self._ask_profile)
        if seconds is not None and self.core.epoch == epoch and self.core.dialect is dialect:
            self.core.set_approval_timeout(seconds)
            self._after_input()

    def _relearn_timeout(self) -> None:
        """Hermes reads approvals.timeout for every wait: re-read it if the file changed."""
        seconds = self._timeouts.relearn()
        if seconds is not None and self.core.dialect in HERMES_DEFAULT:
            self.core.set_approval_timeout(seconds)
            self._after_input()  # deliver the re-timed rows (no new row: no second re-read)

    def _timeout_where(self) -> Where:
        backend = self.dialer.backend
        if self.endpoint.kind is GatewayKind.OWNED and backend is not None:
            return Where(local=True, environ=backend.environ)
        plan = self.dialer.current
        host = urlsplit(plan.url).hostname if plan is not None else None
        return Where(local=bool(host) and is_loopback_host(host or ""))

    async def _ask_profile(self) -> Mapping[str, Any]:
        # Only "profile": "full" would return the model's API keys.
        return await self.call("config.get", {"key": "profile"}, timeout=PROFILE_CALL_TIMEOUT)

    def _handshake_done(self, event: HandshakeCompleted) -> None:
        self._cancel_handshake_timer()
        self._was_connected = True
        target = self.dialer.current.status_url if self.dialer.current is not None else None
        if target is not None and self._version_task is None:
            self._version_task = asyncio.get_running_loop().create_task(self._read_version(*target))
        self._set_status(
            state=ConnectionState.CONNECTED,
            dialect=event.dialect,
            attempt=0,
            error="",
        )
        if event.dialect in HERMES_DEFAULT and self.endpoint.kind is not GatewayKind.DEMO:
            self._spawn(self._learn_timeout(event.dialect, event.epoch))

    def _arm_tick(self) -> None:
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        deadline = self.core.next_deadline()
        if deadline is not None:
            delay = max(0.0, deadline - self._clock())
            loop = self._current_loop()
            if loop is not None:
                self._tick_handle = loop.call_later(delay, self._on_tick)

    def _on_tick(self) -> None:
        self._tick_handle = None
        self.core.tick()
        self._flush()
        self._after_input()

    def _cancel_timers(self) -> None:
        self._cancel_handshake_timer()
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def _set_status(self, **changes: Any) -> None:
        old = self.status
        new = dataclasses.replace(old, **changes)
        if new == old:
            return
        self.status = new
        log.info(
            "gateway %s: %s%s",
            self.gateway_id,
            new.state.value,
            f" ({new.error})" if new.error else "",
        )
        try:
            self.listener.on_status_changed(self.gateway_id, old, new)
        except Exception:
            log.exception("listener failed on a status change")

    def decide(self, key: str, choice: Choice, *, confirm_stale: bool = False) -> DecisionResult:
        """Answer approval ``key`` (one frame or a refusal); events come on the next loop turn."""
        result = self.core.decide(key, choice, confirm_stale=confirm_stale)
        self._flush()
        self._deliver_soon()  # listeners see the row's new state after decide() returned
        return result

    def answer_prompt(self, key: str, answer: str) -> DecisionResult:
        result = self.core.answer_prompt(key, answer)
        self._flush()
        self._deliver_soon()
        return result

    async def call(
        self, method: str, params: Mapping[str, Any], *, timeout: float = 30.0
    ) -> Mapping[str, Any]:
        """One JSON-RPC request; the answer's ``result``. Raises ``desktop.gateway.errors``."""
        if self.status.state is not ConnectionState.CONNECTED or self._pump is None:
            raise NotSentError(
                f"Not connected to {self.name} ({self.status.state.value}); {method} was not sent."
            )
        rpc_id = self.core.call(method, params)
        pending = _Call(rpc_id, method, asyncio.get_running_loop().create_future())
        self._calls[rpc_id] = pending
        self._flush()
        self._after_input()
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), timeout)
        except TimeoutError:
            self._calls.pop(rpc_id, None)
            if self._withdraw(rpc_id):
                raise NotSentError(
                    f"{method} could not be sent to {self.name} within "
                    f"{timeout:g}s; nothing was sent."
                ) from None
            raise CallTimeoutError(
                f"{self.name} did not answer {method} within {timeout:g}s; its outcome is unknown."
            ) from None

    # -- session requests: their params differ per dialect in small, easy-to-miss ways
    # (protocol.md §2-§5); canonical's parameter sets are closed.
    async def set_yolo(self, session_id: str, on: bool) -> None:
        params = {"session_id": session_id, "key": "yolo", "value": "on" if on else "off"}
        if self._dialect() is not Dialect.C:
            params["scope"] = "session"
        await self.call("config.set", params)

    async def read_yolo(self, session_id: str) -> None:
        """``config.get yolo`` (canonical's ``session.info`` has no ``yolo``); the core folds it."""
        await self.call("config.get", {"session_id": session_id, "key": "yolo"})

    async def set_approval_mode(self, mode: str) -> None:
        dialect = self._dialect()
        if mode not in APPROVAL_MODES:
            raise ValueError(f"approval mode must be one of {sorted(APPROVAL_MODES)}, not {mode!r}")
        if dialect is Dialect.C:
            raise UnsupportedError(
                "The canonical gateway has no approval-mode setting over the connection; change "
                "approvals.mode in Hermes' config.yaml instead."
            )
        await self.call("config.set", {"key": "approvals.mode", "value": mode})

    async def interrupt(self, session_id: str) -> None:
        """Canonical's interrupt names the session's ``execution_generation``."""
        params: dict[str, Any] = {"session_id": session_id}
        if self._dialect() is Dialect.C:
            session = self.core.session(session_id)
            generation = session.execution_generation if session is not None else None
            if generation is None:
                raise UnsupportedError(
                    f"Session {session_id} has no known execution generation yet; wait for its "
                    "snapshot and try again."
                )
            params["execution_generation"] = generation
        await self.call("session.interrupt", params)

    async def create_session(self, cwd: str, prompt: str) -> str:
        params: dict[str, Any] = {"source": "gui", "cwd": cwd}
        if self._dialect() is not Dialect.C:  # a desktop session that outlives the socket
            params.update(source=self._core_settings.session_source, close_on_disconnect=False)
        result = await self.call("session.create", params)
        session_id = str(result.get("session_id", ""))
        if not session_id:
            raise RpcCallError(-32603, "session.create returned no session_id")
        stored = str(result.get("stored_session_id") or "")
        self.core.watch_session(session_id, stored_session_id=stored)
        self._after_input()
        if prompt:
            await self.call("prompt.submit", {"session_id": session_id, "text": prompt})
        return session_id

    async def list_live_sessions(self) -> list[Mapping[str, Any]]:
        result = await self.call(*list_request(self._dialect()))
        sessions = result.get("sessions")
        return [s for s in sessions if isinstance(s, Mapping)] if isinstance(sessions, list) else []

    def _responded(self, event: RpcResponded) -> None:
        call = self._calls.pop(event.rpc_id, None)
        if call is None or call.future.done():
            return
        if event.error is not None:
            call.fail(RpcCallError(event.error.code, event.error.message, event.error.reason))
        else:
            call.future.set_result(event.result if event.result is not None else {})

    def _withdraw(self, rpc_id: int) -> bool:  # a method: the pump may be gone after an await
        return self._pump is not None and self._pump.withdraw_rpc(rpc_id)

    def _dialect(self) -> Dialect:
        dialect = self.core.dialect
        if dialect is None or self.status.state is not ConnectionState.CONNECTED:
            raise NotSentError(f"Not connected to {self.name}; nothing was sent.")
        return dialect
