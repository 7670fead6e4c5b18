"""The waiters of tests/waiting.py on real Qt signals and on a plain subscribe call."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QObject, Signal

from tests.waiting import emitted, holds, recorded


class Source(QObject):
    one = Signal(int)
    two = Signal(str, int)


@pytest.fixture
def source(qloop):
    made = Source()
    yield made
    made.deleteLater()


def receivers(source: Source, signal: str) -> int:
    return source.receivers(f"2{signal}")


def test_holds_returns_at_once_when_the_state_already_holds(source, arun):
    # The change came before the wait: no emission follows, and the wait must not need one.
    assert arun(holds(lambda: "already", source.one, timeout=0.2)) == "already"


def test_holds_wakes_on_the_announcing_emission(source, arun):
    state = {"n": 0}

    async def scenario():
        def bump():
            state["n"] = 3
            source.one.emit(3)

        asyncio.get_running_loop().call_later(0.02, bump)
        return await holds(lambda: state["n"] >= 3 and state["n"], source.one)

    assert arun(scenario()) == 3
    assert receivers(source, "one(int)") == 0


def test_holds_times_out_saying_what_and_how_many_announcements(source, arun):
    async def scenario():
        asyncio.get_running_loop().call_soon(source.one.emit, 1)
        await holds(lambda: False, source.one, timeout=0.1, what="the row is gone")

    with pytest.raises(TimeoutError, match=r"0\.1s: the row is gone after 1 announcement"):
        arun(scenario())
    assert receivers(source, "one(int)") == 0


def test_holds_needs_a_source():
    with pytest.raises(TypeError, match="announces"):
        asyncio.run(holds(lambda: True))


def test_emitted_skips_emissions_the_check_refuses_and_returns_the_arguments(source, arun):
    async def scenario():
        loop = asyncio.get_running_loop()
        loop.call_soon(source.two.emit, "a", 1)
        loop.call_soon(source.two.emit, "b", 2)
        return await emitted(source.two, lambda name, n: n == 2)

    assert arun(scenario()) == ("b", 2)
    assert receivers(source, "two(QString,int)") == 0


def test_emitted_times_out_listing_what_it_saw(source, arun):
    async def scenario():
        asyncio.get_running_loop().call_soon(source.one.emit, 7)
        await emitted(source.one, lambda n: n == 8, timeout=0.1, what="eight")

    with pytest.raises(TimeoutError, match=r"eight .*saw 1: \[7\]"):
        arun(scenario())


def test_a_failing_check_fails_the_wait(source, arun):
    async def scenario():
        asyncio.get_running_loop().call_soon(source.one.emit, 0)
        await emitted(source.one, lambda n: 1 / n)

    with pytest.raises(ZeroDivisionError):
        arun(scenario())


def test_waits_on_a_plain_subscribe_call_and_unsubscribes(aloop, arun):
    callbacks = []
    gateways = []

    def subscribe(callback):
        callbacks.append(callback)
        return lambda: callbacks.remove(callback)

    def add_gateway():
        gateways.append("g1")
        for callback in list(callbacks):
            callback()

    async def scenario():
        asyncio.get_running_loop().call_soon(add_gateway)
        return await holds(lambda: list(gateways), subscribe)

    assert arun(scenario()) == ["g1"]
    assert callbacks == []


def test_recorded_is_a_plain_list_of_every_emission(source):
    seen = recorded(source.one, source.two)
    source.one.emit(1)
    source.two.emit("x", 2)
    assert seen == [1, ("x", 2)]
