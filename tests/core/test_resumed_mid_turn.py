"""0.19.0 sessions resumed mid-turn: the first approval seen may not be the FIFO head.

0.19.0 never re-sends a pending approval after a resume, and ``approval.respond`` answers the
session's oldest one. So when a resume finds the session running, an approval published while
the tray was away may sit, unseen, ahead of everything it sees next. Until the turn is over,
such rows start STALE with ``decisions.HEAD_UNSURE``: a plain click sends nothing, the
explicit confirmation does. Sessions resumed idle, fresh sessions and other dialects are not
affected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from desktop.core import decisions
from desktop.core.events import ApprovalRequested
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.core.frames import (
    SID,
    STORED,
    Driver,
    a_approval,
    b_approval,
    event,
    message_complete,
    result,
)

UNSURE = (ApprovalPhase.STALE, decisions.HEAD_UNSURE)


def resumed(running: bool, dialect: Dialect = Dialect.A, *, early: bool = False) -> Driver:
    """Reconnected and resumed ``SID`` (``early``: an approval arrives before the answer)."""
    drv = Driver(settings=CoreSettings(a_approval_timeout=60.0)).connect(dialect)
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.lose()
    drv.connect(dialect)
    if early:
        drv.feed(a_approval("early"))
    resume = drv.request("session.resume")
    drv.feed(result(resume["id"], {"session_id": SID, "running": running}))
    return drv


def state(drv: Driver, index: int = -1) -> tuple[ApprovalPhase, str]:
    row = drv.row(index)
    return row.phase, row.blocked_reason


def test_rows_of_a_session_resumed_running_start_stale_and_need_the_confirmation() -> None:
    drv = resumed(running=True).feed(a_approval("x"))
    [shown] = [e.approval for e in drv.of_type(ApprovalRequested)]
    assert (shown.phase, shown.blocked_reason) == UNSURE  # never announced as plainly waiting
    sent, reason, frames = drv.decide(shown.key, Choice.ONCE)
    assert (sent, frames) == (False, [])
    assert reason == f"{decisions.HEAD_UNSURE} (confirm to answer anyway)"
    assert drv.decide(shown.key, Choice.ONCE, confirm_stale=True)[0]


def test_every_row_of_that_turn_stays_in_doubt_and_a_failed_write_keeps_the_reason() -> None:
    drv = resumed(running=True).feed(a_approval("x"))
    first = drv.row().key
    drv.core.decide(first, Choice.ONCE, confirm_stale=True)
    [frame] = drv.core.data_to_send()
    drv.core.frame_failed(frame.frame_id, maybe_sent=False)
    drv.flush()
    assert state(drv, 0) == UNSURE
    drv.feed(a_approval("y"))
    assert drv.row().phase is ApprovalPhase.STALE
    assert drv.row().blocked_reason == decisions.NOT_HEAD


def test_an_approval_that_beat_the_resume_answer_is_put_in_doubt_too() -> None:
    drv = resumed(running=True, early=True)
    assert state(drv) == UNSURE


END_OF_TURN: dict[str, Callable[[Driver], Any]] = {
    "message.complete": lambda drv: drv.feed(message_complete()),
    "message.start": lambda drv: drv.feed(event("message.start", SID)),
    "running false": lambda drv: drv.feed(event("session.info", SID, {"running": False})),
    "interrupt": lambda drv: drv.feed(
        result(drv.core.call("session.interrupt", {"session_id": SID}), {"status": "ok"})
    ),
}


@pytest.mark.parametrize("end", list(END_OF_TURN), ids=list(END_OF_TURN))
def test_once_the_turn_is_over_the_next_approval_is_the_head_again(end: str) -> None:
    drv = resumed(running=True)
    END_OF_TURN[end](drv)
    drv.feed(a_approval("y"))
    assert (drv.row().phase, drv.row().answerable) == (ApprovalPhase.WAITING, True)
    assert drv.decide(drv.row().key, Choice.ONCE)[0]


def test_a_session_resumed_idle_and_other_sessions_are_not_in_doubt() -> None:
    drv = resumed(running=False).feed(a_approval("x"))
    assert (drv.row().phase, drv.row().answerable) == (ApprovalPhase.WAITING, True)
    drv = resumed(running=True)
    drv.core.watch_session("other")
    drv.feed(a_approval("x", session_id="other"))
    assert (drv.row().phase, drv.row().answerable) == (ApprovalPhase.WAITING, True)


def test_attaching_to_a_running_session_puts_it_in_doubt_but_a_new_session_does_not() -> None:
    drv = Driver().connect(Dialect.A)
    rpc = drv.core.call("session.resume", {"session_id": "stored-2"})
    drv.feed(result(rpc, {"session_id": "s2", "session_key": "stored-2", "running": True}))
    rpc = drv.core.call("session.create", {"cols": 80})
    drv.feed(result(rpc, {"session_id": "s3", "running": True}))
    drv.feed(a_approval("x", session_id="s2"), a_approval("y", session_id="s3"))
    attached, fresh = drv.rows()
    assert (attached.phase, attached.blocked_reason) == UNSURE
    assert (fresh.phase, fresh.answerable) == (ApprovalPhase.WAITING, True)


def test_a_forgotten_session_leaves_no_doubt_behind() -> None:
    drv = resumed(running=True)
    rpc = drv.core.call("session.close", {"session_id": SID})
    drv.feed(result(rpc, {"closed": True}))
    drv.core.watch_session(SID)  # followed again, from scratch
    drv.feed(a_approval("x"))
    assert (drv.row().phase, drv.row().answerable) == (ApprovalPhase.WAITING, True)


def test_keyed_rows_of_newer_gateways_are_not_affected() -> None:
    drv = resumed(running=True, dialect=Dialect.B).feed(b_approval("srq-1"))
    assert (drv.row().phase, drv.row().answerable) == (ApprovalPhase.WAITING, True)
