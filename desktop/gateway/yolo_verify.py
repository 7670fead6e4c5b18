"""Turn a session's YOLO off and check that the gateway really reports it off.

A time-boxed YOLO promises the bypass *ends*, but ``config.set`` can succeed while YOLO stays on
(``HERMES_YOLO_MODE``, a global ``approvals.mode off``). tui_gateway's ``session.info`` carries
the effective ``yolo``; canonical's has none, so it is read back with ``config.get``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from desktop.gateway.errors import GatewayError, NotSentError
from desktop.model.yolo_timer import YoloCheck

log = logging.getLogger(__name__)

SETTLE_SECONDS = 5.0  # how long the gateway gets to report the change


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
