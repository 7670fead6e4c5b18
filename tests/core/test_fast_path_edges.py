"""The moments a cached answer of the approval book must be dropped, one scenario each.

Random soups rarely hit these exactly, so each is scripted: the expected values are asserted
outright, and the whole record must also equal a run with the fast paths off
(``test_fast_paths.both_ways``). Also pinned: a stream frame costs no per-row work however many
approvals wait (what the bench's "per message.delta, N waiting" rows measure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from desktop.core import answer_rules, approvals
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import ApprovalPhase, Dialect, OutcomeKind
from desktop.core.wire_effects import OTHER_TOOL_FINISHED
from tests.core.frames import Driver, a_approval, b_approval, event, tool_complete, tool_start
from tests.core.test_fast_paths import both_ways, seen

SETTINGS = CoreSettings(a_approval_timeout=60.0, staleness_margin=5.0)


def scripted(script: Callable[[Driver], None]) -> Callable[[], list[object]]:
    def run() -> list[object]:
        drv = Driver(settings=SETTINGS).connect(Dialect.A)
        script(drv)
        return [drv.emitted, drv.written, seen(drv.core)]

    return run


def delta(session_id: str = "a1b2c3d4") -> dict[str, Any]:
    return event("message.delta", session_id, {"text": "token "})


def test_a_new_stale_reason_on_a_row_already_stale_reaches_its_card() -> None:
    def script(drv: Driver) -> None:
        drv.feed(tool_start("call_1_0"), a_approval())
        drv.lose()
        drv.connect(Dialect.A)
        assert drv.row().phase is ApprovalPhase.STALE
        assert drv.row().blocked_reason != OTHER_TOOL_FINISHED
        drv.feed(tool_complete("call_9_9"))  # the phase stays STALE; only the reason moves
        assert drv.row().blocked_reason == OTHER_TOOL_FINISHED

    both_ways(scripted(script))


def test_a_clock_that_goes_back_out_of_the_margin_makes_the_head_answerable_again() -> None:
    def script(drv: Driver) -> None:
        drv.feed(a_approval())
        drv.advance(56.0)
        assert drv.row().blocked_reason == answer_rules.TOO_CLOSE
        drv.now -= 10.0
        drv.feed(delta())
        assert (drv.row().answerable, drv.row().blocked_reason) == (True, "")

    both_ways(scripted(script))


def test_next_deadline_moves_on_with_the_clock_alone() -> None:
    def script(drv: Driver) -> None:
        drv.feed(a_approval())
        arrived = drv.row().arrived_at
        drv.lose()  # disconnected: crossing the margin changes no row, so nothing else moves
        assert drv.core.next_deadline() == arrived + 55.0
        drv.now += 56.0  # no tick, no frame
        assert drv.core.next_deadline() == arrived + 60.0
        drv.now -= 2.0
        assert drv.core.next_deadline() == arrived + 55.0

    both_ways(scripted(script))


def test_a_row_expires_on_the_stream_frame_that_comes_after_its_timeout() -> None:
    def script(drv: Driver) -> None:
        drv.feed(a_approval(), delta())
        expires = drv.row().expires_at
        assert expires is not None
        for before in (4.0, 2.0, 0.001):  # inside the margin: the caches settle there
            drv.now = expires - before
            drv.feed(delta())
        assert drv.row().outcome is None
        drv.now = expires  # exactly due; the timer has not fired, a delta arrives first
        drv.feed(delta())
        outcome = drv.row().outcome
        assert outcome is not None
        assert outcome.kind is OutcomeKind.EXPIRED

    both_ways(scripted(script))


def test_a_second_request_is_seen_by_the_rows_walks_at_once() -> None:
    def script(drv: Driver) -> None:
        drv.feed(a_approval("a"), delta(), a_approval("b"))
        head, tail = drv.rows()
        assert head.answerable
        assert (tail.answerable, tail.blocked_reason) == (False, answer_rules.NOT_HEAD)
        drv.advance(56.0)
        assert drv.core.next_deadline() == head.expires_at

    both_ways(scripted(script))


@pytest.mark.parametrize("waiting", [0, 10, 200])
def test_a_stream_frame_does_no_work_per_waiting_approval(
    waiting: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    drv = Driver().connect(Dialect.B)
    for n in range(waiting):
        drv.feed(b_approval(f"srq-{n}", f"rm -rf x{n}", session_id=f"s{n // 10}"))
    drv.feed(delta("s0"))  # the first input after the last change settles the caches
    drv.core.next_deadline()
    walked: list[object] = []

    def counting(*args: Any, **kwargs: Any) -> tuple[bool, str]:
        walked.append(args[0])
        return answer_rules.assess(*args, **kwargs)

    monkeypatch.setattr(approvals, "assess", counting)
    monkeypatch.setattr(approvals.Row, "phase", property(lambda row: walked.append(row)))
    for n in range(20):
        drv.feed(delta(f"s{n % 3}"))
        drv.core.next_deadline()
    assert walked == []
    assert len(drv.rows()) == waiting
    state = drv.core._core  # and the waiting sessions are compared by identity, not item by item
    assert state.sessions._waiting_applied is not None
    assert state.sessions._waiting_applied[0] is state.approvals.waiting_sessions()


@pytest.mark.parametrize("dialect", [None, Dialect.A, Dialect.B, Dialect.C])
def test_the_rules_finish_checks_are_those_of_the_context_refresh_would_get(
    dialect: Dialect | None,
) -> None:
    drv = Driver().connect(dialect)
    for state in (drv.core._core, Driver().core._core):  # connected, and never connected
        assert state.rules() == state.context().rules
    drv.lose()
    assert drv.core._core.rules() == drv.core._core.context().rules
