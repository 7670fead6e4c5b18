"""The bridge's YOLO slots: switch on/off, switch off *and check*, and switch off at quit.

Why a mixin of ``GatewayBridge`` rather than widgets' business: turning YOLO off for a time-box
awaits the gateway twice (``config.set``, then what it reports), and awaiting belongs in the one
place asyncio meets Qt. The result comes back as the ``yolo_checked`` signal; the pure logic of
*when* to switch off lives in ``yolo_timer`` and its Qt adapter ``yolo_timebox``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING

from desktop.core.model import Dialect
from desktop.ui.bridge_host import BridgeHost
from desktop.ui.yolo_verify import YoloCheck, canonical_read_back, switch_off_verified

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from desktop.ui.app_state import AppState
    from desktop.ui.bridge_clients import ClientLike

log = logging.getLogger(__name__)


class YoloSlots(BridgeHost):
    """Mixed into GatewayBridge, which provides the state, clients, signals and ``_spawn``."""

    if TYPE_CHECKING:
        _clients: dict[str, ClientLike]
        _state: AppState
        _closing: bool
        _session_waiters: dict[tuple[str, str], list[asyncio.Future[None]]]
        yolo_settle_s: float
        yolo_set: SignalInstance
        yolo_checked: SignalInstance

        def _where(self, gateway_id: str, session_id: str) -> str: ...

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
        """YOLO off, then check the gateway reports it off (``yolo_checked`` says how it went)."""
        client = self._clients.get(gateway_id)
        if client is None:
            self.yolo_checked.emit(gateway_id, session_id, YoloCheck.UNREACHABLE)
            return

        def reported_on() -> bool | None:
            session = self._state.session(gateway_id, session_id)
            return None if session is None else session.yolo.effective

        view = self._state.snapshot().gateway(gateway_id)
        canonical = view is not None and view.dialect is Dialect.C

        async def check() -> None:
            try:
                result = await switch_off_verified(
                    client,
                    session_id,
                    reported_on,
                    functools.partial(self._next_change, (gateway_id, session_id)),
                    read_back=canonical_read_back(client, session_id) if canonical else None,
                    settle=self.yolo_settle_s,
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

    # -- waiting for what the gateway reports ------------------------------------------------
    async def _next_change(self, ident: tuple[str, str], timeout: float) -> None:
        """Return on the session's next SessionChanged, or after ``timeout`` seconds."""
        assert self._loop is not None
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._session_waiters.setdefault(ident, []).append(waiter)
        try:
            await asyncio.wait({waiter}, timeout=timeout)
        finally:
            waiters = self._session_waiters.get(ident, [])
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters:
                self._session_waiters.pop(ident, None)

    def _wake(self, ident: tuple[str, str]) -> None:
        """A SessionChanged arrived for ``ident``: release whoever waits on it."""
        for waiter in self._session_waiters.pop(ident, []):
            if not waiter.done():
                waiter.set_result(None)
