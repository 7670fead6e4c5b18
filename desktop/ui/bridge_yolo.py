"""YOLO for the bridge: switch on/off, switch off *and check*, and switch off at quit.

Turning YOLO off for a time-box awaits the gateway twice (``config.set``, then what it
reports), so it happens behind the bridge, never in a widget. What is checked
and how often lives in ``desktop.gateway.yolo_verify``; *when* to switch off lives in
``yolo_timer`` and its Qt adapter ``yolo_timebox``. Results go out through the two callbacks
the bridge turns into its ``yolo_set`` and ``yolo_checked`` signals.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping

from desktop.core.model import Dialect
from desktop.gateway.yolo_verify import SETTLE_SECONDS, YoloCheck, switch_off_verified
from desktop.ui.bridge_clients import ClientLike
from desktop.ui.bridge_tasks import TaskRunner

log = logging.getLogger(__name__)

Ident = tuple[str, str]  # (gateway_id, session_id)


class YoloService:
    """Owns the waits for what a gateway reports after a YOLO change.

    ``clients`` is the bridge's live map (read only), ``reported_on`` a session's effective
    YOLO as last reported (None: session gone), ``dialect`` a gateway's connected dialect,
    ``where`` how a notice names a session.
    """

    def __init__(
        self,
        tasks: TaskRunner,
        clients: Mapping[str, ClientLike],
        *,
        reported_on: Callable[[str, str], bool | None],
        dialect: Callable[[str], Dialect | None],
        where: Callable[[str, str], str],
        on_set: Callable[[str, str, bool, bool], None],
        on_checked: Callable[[str, str, YoloCheck], None],
    ) -> None:
        self._tasks = tasks
        self._clients = clients
        self._reported_on = reported_on
        self._dialect = dialect
        self._where = where
        self._on_set = on_set
        self._on_checked = on_checked
        self._waiters: dict[Ident, list[asyncio.Future[None]]] = {}
        self.settle_s = SETTLE_SECONDS  # how long a gateway gets to report YOLO off

    def set_yolo(self, gateway_id: str, session_id: str, on: bool) -> None:
        """Ask for YOLO on/off; ``on_set`` reports whether the call went through."""
        client = self._clients[gateway_id]

        async def change() -> None:
            ok = False
            try:
                await client.set_yolo(session_id, on)
                ok = True
            finally:
                if not self._tasks.closing:
                    self._on_set(gateway_id, session_id, on, ok)

        self._tasks.spawn(
            change(),
            f"Could not turn YOLO {'on' if on else 'off'}",
            self._where(gateway_id, session_id),
            "Check that the gateway is connected and try again from the tray menu.",
            gateway_id,
        )

    def switch_off_checked(self, gateway_id: str, session_id: str) -> None:
        """YOLO off, then check the gateway reports it off (``on_checked`` says how it went)."""
        client = self._clients.get(gateway_id)
        if client is None:
            self._on_checked(gateway_id, session_id, YoloCheck.UNREACHABLE)
            return
        canonical = self._dialect(gateway_id) is Dialect.C

        async def check() -> None:
            try:
                result = await switch_off_verified(
                    client,
                    session_id,
                    functools.partial(self._reported_on, gateway_id, session_id),
                    functools.partial(self._next_change, (gateway_id, session_id)),
                    read_back=functools.partial(client.read_yolo, session_id)
                    if canonical
                    else None,
                    settle=self.settle_s,
                )
            except Exception:  # a bug must not leave the box "turning off" for ever
                log.exception("switching YOLO off for %s/%s failed", gateway_id, session_id)
                result = YoloCheck.STILL_ON  # unconfirmed: the person is told to check
            if not self._tasks.closing:
                self._on_checked(gateway_id, session_id, result)

        self._tasks.spawn(
            check(),
            "Could not turn YOLO off",
            self._where(gateway_id, session_id),
            "Turn it off in Hermes.",
            gateway_id,
        )

    async def end_yolo(self, sessions: list[Ident], timeout: float = 2.0) -> None:
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

    def session_changed(self, gateway_id: str, session_id: str) -> None:
        """A SessionChanged arrived: release whoever waits on that session."""
        for waiter in self._waiters.pop((gateway_id, session_id), []):
            if not waiter.done():
                waiter.set_result(None)

    async def _next_change(self, ident: Ident, timeout: float) -> None:
        """Return on the session's next SessionChanged, or after ``timeout`` seconds."""
        loop = self._tasks.loop
        assert loop is not None  # only called from a task it runs
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.setdefault(ident, []).append(waiter)
        try:
            await asyncio.wait({waiter}, timeout=timeout)
        finally:
            waiters = self._waiters.get(ident, [])
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters:
                self._waiters.pop(ident, None)
