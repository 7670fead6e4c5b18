"""Switch YOLO off and check what the gateway reports: one retry, then "still on"; not sent
means "unreachable" (retry after a reconnect). Plain asyncio, scripted client."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from desktop.gateway.errors import NotSentError, RpcCallError
from desktop.gateway.yolo_verify import switch_off_verified
from desktop.model.yolo_timer import YoloCheck


class Gateway:
    """Scripted peer: what it reports after each config.set, and whether it can be reached."""

    def __init__(self, *, reports_off_after: int | None = 1, reachable: bool = True) -> None:
        self.reports_off_after = reports_off_after  # None: never off
        self.reachable = reachable
        self.sets: list[bool] = []
        self.reads = 0
        self.on = True
        self.changed = asyncio.Event()
        self.fail_set = False

    async def set_yolo(self, session_id: str, on: bool) -> None:
        if not self.reachable:
            raise NotSentError("Not connected to Local (backoff); config.set was not sent.")
        self.sets.append(on)
        if self.fail_set:
            raise RpcCallError(4002, "refused")
        if self.reports_off_after is not None and len(self.sets) >= self.reports_off_after:
            loop = asyncio.get_running_loop()
            loop.call_soon(self._report_off)  # like the session.info that follows the result

    def _report_off(self) -> None:
        self.on = False
        self.changed.set()

    def reported_on(self) -> bool:
        return self.on

    async def wait_change(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)
        self.changed.clear()

    async def read_back(self) -> None:
        self.reads += 1
        await asyncio.sleep(0)


def run(aloop, gateway: Gateway, **kwargs) -> YoloCheck:
    return aloop.run_until_complete(
        switch_off_verified(gateway, "s1", gateway.reported_on, gateway.wait_change, **kwargs)
    )


def test_off_as_soon_as_the_gateway_reports_it(aloop):
    gateway = Gateway()
    assert run(aloop, gateway, settle=5.0) is YoloCheck.OFF
    assert gateway.sets == [False]


def test_still_on_after_exactly_one_retry(aloop):
    gateway = Gateway(reports_off_after=None)
    assert run(aloop, gateway, settle=0.05) is YoloCheck.STILL_ON
    assert gateway.sets == [False, False]


def test_the_retry_can_succeed(aloop):
    gateway = Gateway(reports_off_after=2)
    assert run(aloop, gateway, settle=0.05) is YoloCheck.OFF
    assert gateway.sets == [False, False]


def test_not_sent_is_unreachable_not_still_on(aloop):
    gateway = Gateway(reachable=False)
    assert run(aloop, gateway, settle=0.05) is YoloCheck.UNREACHABLE
    assert gateway.sets == []


def test_a_refused_set_is_checked_against_what_is_reported(aloop):
    gateway = Gateway(reports_off_after=None)
    gateway.fail_set = True
    assert run(aloop, gateway, settle=0.05) is YoloCheck.STILL_ON
    assert gateway.sets == [False, False]


def test_a_gone_session_counts_as_off(aloop):
    gateway = Gateway(reports_off_after=None)
    gateway.on = None  # type: ignore[assignment]
    assert run(aloop, gateway, settle=0.05) is YoloCheck.OFF


@pytest.mark.parametrize(("after", "expected"), [(1, YoloCheck.OFF), (None, YoloCheck.STILL_ON)])
def test_canonical_reads_yolo_back_instead_of_waiting(aloop, after, expected):
    gateway = Gateway(reports_off_after=after)

    async def read_back() -> None:
        await gateway.read_back()
        await asyncio.sleep(0)  # the folded answer has landed by now

    assert run(aloop, gateway, settle=60.0, read_back=read_back) is expected
    assert gateway.reads == len(gateway.sets)
