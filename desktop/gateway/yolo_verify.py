"""Turn a session's YOLO off and check that the gateway really reports it off. asyncio, Qt-free.

Why check at all: a time-boxed YOLO is a promise that the bypass *ends*. ``config.set`` can
succeed while YOLO stays in effect (``HERMES_YOLO_MODE`` frozen in the gateway process, a
global ``approvals.mode off``, a gateway that ignores the key), and a promise the app cannot
keep must be said out loud rather than shown as kept. So after each ``config.set yolo off`` the
app waits for what the gateway reports (protocol.md §3.7):

* tui_gateway (A/B): the ``session.info`` event that follows ``config.set`` carries ``yolo``,
  the *effective* bypass; the core folds it into ``SessionState.yolo``;
* canonical (C): ``session.info`` has no ``yolo``, so the app reads it back with
  ``config.get {session_id, key: "yolo"}``, which the core folds the same way.

One retry, then :attr:`YoloCheck.STILL_ON` (the caller raises the notice). A ``config.set``
that could not be sent at all (not connected) is :attr:`YoloCheck.UNREACHABLE`: the caller
tries again once the gateway is back, instead of crying wolf.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from desktop.gateway.errors import GatewayError, NotSentError

log = logging.getLogger(__name__)

SETTLE_SECONDS = 5.0  # how long the gateway gets to report the change


class YoloCheck(enum.Enum):
    OFF = "off"  # the gateway reports YOLO off (or the session is gone)
    STILL_ON = "still on"  # it still reports YOLO on after a retry
    UNREACHABLE = "unreachable"  # config.set could not be sent: retry after a reconnect


class YoloClient(Protocol):
    async def set_yolo(self, session_id: str, on: bool) -> None: ...


ReportedOn = Callable[[], bool | None]  # the session's effective YOLO now; None: session gone
WaitChange = Callable[[float], Awaitable[None]]  # returns on the session's next change or timeout
ReadBack = Callable[[], Awaitable[object]] | None  # canonical: ask the gateway (config.get)


async def switch_off_verified(
    client: YoloClient,
    session_id: str,
    reported_on: ReportedOn,
    wait_change: WaitChange,
    *,
    read_back: ReadBack = None,
    settle: float = SETTLE_SECONDS,
    attempts: int = 2,
) -> YoloCheck:
    """Send ``config.set yolo off`` up to ``attempts`` times until the gateway reports it off."""
    for attempt in range(1, attempts + 1):
        try:
            await client.set_yolo(session_id, False)
        except NotSentError as exc:
            log.info("YOLO off for %s not sent (%s); retrying after a reconnect", session_id, exc)
            return YoloCheck.UNREACHABLE
        except GatewayError as exc:  # refused, or its fate unknown: check what is reported
            log.warning("YOLO off for %s, attempt %d: %s", session_id, attempt, exc)
        if await _reported_off(reported_on, wait_change, read_back, settle):
            return YoloCheck.OFF
        log.warning("gateway still reports YOLO on for %s after attempt %d", session_id, attempt)
    return YoloCheck.STILL_ON


async def _reported_off(
    reported_on: ReportedOn, wait_change: WaitChange, read_back: ReadBack, settle: float
) -> bool:
    if read_back is not None:
        try:
            await read_back()
        except GatewayError as exc:
            log.warning("could not read YOLO back: %s", exc)
            return False
        return not reported_on()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settle
    while reported_on():
        left = deadline - loop.time()
        if left <= 0:
            return False
        await wait_change(left)
    return True
