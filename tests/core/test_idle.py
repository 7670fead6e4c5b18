"""Nothing waits, nothing counts down: what the tray's timers and keepalive pace ask the core."""

from __future__ import annotations

from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.core.frames import Driver, b_approval


def test_connected_with_nothing_waiting_nothing_is_open_and_no_deadline_is_armed() -> None:
    drv = Driver().connect(Dialect.B)
    drv.flush()
    assert drv.core.next_deadline() is None
    assert not drv.core.has_open_approvals()


def test_an_approval_is_open_until_its_answer_is_written() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-4ef59b035bb9"))
    key = drv.row().key
    assert drv.core.has_open_approvals()
    sent, _, frames = drv.decide(key, Choice.ONCE, write=False)
    assert sent
    assert drv.core.has_open_approvals()  # sending: its fate is not known yet
    drv.core.frame_written(frames[0].frame_id)
    drv.flush()
    assert drv.approval(key).phase is ApprovalPhase.RESOLVED
    assert not drv.core.has_open_approvals()
