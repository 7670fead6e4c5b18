"""The dialect is fixed once per connection by its handshake (protocol.md §1.3, §6.2)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.events import HandshakeCompleted
from desktop.core.model import Dialect
from tests.core.frames import SID, Driver, a_approval, b_approval, c_approval, error, event, result


def dialect_of(drv: Driver) -> Dialect | None:
    """Read afresh (a property mypy would otherwise narrow across calls)."""
    return drv.core.dialect


@pytest.mark.parametrize(
    ("answer", "dialect", "server_requests"),
    [
        (
            lambda rpc: result(rpc, {"server_requests": ["approval", "tour"]}),
            Dialect.B,
            ("approval", "tour"),
        ),
        (lambda rpc: error(rpc, -32601, "unknown method: client.capabilities"), Dialect.A, ()),
        (lambda rpc: error(rpc, -32603, "crash"), Dialect.A, ()),  # strictest rules when unsure
    ],
)
def test_capabilities_answer_fixes_a_or_b(
    answer: Any, dialect: Dialect, server_requests: tuple[str, ...]
) -> None:
    drv = Driver()
    drv.core.connection_opened(1)
    drv.feed(event("gateway.ready", "", {"skin": {}, "replay_epoch": "e1"}))
    caps = drv.request("client.capabilities")
    assert caps["params"] == {"server_requests": True}
    assert isinstance(caps["id"], int)
    assert dialect_of(drv) is None
    drv.feed(answer(caps["id"]))
    assert dialect_of(drv) is dialect
    assert drv.of_type(HandshakeCompleted) == [
        HandshakeCompleted(dialect, 1, server_requests, "e1")
    ]


def test_the_canonical_subprotocol_fixes_c_at_once_without_asking() -> None:
    drv = Driver().connect(Dialect.C)
    assert drv.core.dialect is Dialect.C
    assert drv.of_type(HandshakeCompleted) == [HandshakeCompleted(Dialect.C, 1)]
    drv.feed(event("gateway.ready", "", {"skin": {}, "replay_epoch": "r9"}))
    assert drv.requests("client.capabilities") == []


def test_a_second_gateway_ready_asks_nothing_more() -> None:
    drv = Driver().connect(Dialect.A)
    drv.feed(event("gateway.ready", "", {"skin": {}}))
    assert len(drv.requests("client.capabilities")) == 1
    assert len(drv.of_type(HandshakeCompleted)) == 1


def test_every_connection_runs_its_own_handshake_and_may_land_elsewhere() -> None:
    drv = Driver().connect(Dialect.A)
    drv.lose()
    assert dialect_of(drv) is None
    drv.connect(Dialect.B)
    assert dialect_of(drv) is Dialect.B
    assert drv.core.epoch == 2
    assert [e.dialect for e in drv.of_type(HandshakeCompleted)] == [Dialect.A, Dialect.B]


def test_an_answer_from_a_lost_connection_fixes_nothing() -> None:
    drv = Driver()
    drv.core.connection_opened(1)
    drv.feed(event("gateway.ready", "", {}))
    stale = drv.request("client.capabilities")["id"]
    drv.lose()
    drv.core.connection_opened(2)
    drv.feed(result(stale, {"server_requests": []}))
    assert drv.core.dialect is None


@pytest.mark.parametrize(
    ("frame", "fixed", "answerable_after"),
    [
        (a_approval(), Dialect.A, True),
        (b_approval("srq-000000000001"), Dialect.B, True),
        (b_approval("srq-000000000002"), Dialect.A, True),  # keyed answers are safe anywhere
        (a_approval(), Dialect.B, False),  # no id: B cannot take a FIFO answer safely
        (c_approval("p-1"), Dialect.A, False),  # a prompt shape only C answers
    ],
)
def test_approvals_before_the_dialect_is_fixed_are_queued_but_never_answerable(
    frame: dict[str, Any], fixed: Dialect, answerable_after: bool
) -> None:
    drv = Driver()
    drv.core.watch_session(SID)
    drv.core.connection_opened(1)
    drv.feed(event("gateway.ready", "", {}))
    drv.feed(frame)
    row = drv.row()
    assert not row.answerable
    assert "handshake" in row.blocked_reason
    assert drv.decisions() == []
    caps = drv.request("client.capabilities")["id"]
    if fixed is Dialect.B:
        drv.feed(result(caps, {"server_requests": ["approval"]}))
    else:
        drv.feed(error(caps, -32601))
    assert drv.row().answerable is answerable_after


def test_frames_before_any_connection_are_still_read() -> None:
    drv = Driver()
    drv.feed(event("session.title", "s9", {"title": "early"}))
    (session,) = drv.core.sessions()
    assert session.title == "early"
