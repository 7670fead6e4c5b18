"""Ids the gateway re-uses: a request is the same only if its id *and* its content are.

An answer on B goes by ``srq`` id and on C by ``prompt_id`` + generation, so it lands on
whatever the gateway files under that id when it arrives. When an id comes back with other
content, the new request gets its own row and the old row is withdrawn ("replaced"): nobody
may answer the old text under an id that now means something else. A byte-identical re-send is
a re-delivery and stays one row.
"""

from __future__ import annotations

import json

from desktop.core import decisions, outcomes
from desktop.core.events import ApprovalRequested
from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.core.frames import (
    SID,
    STORED,
    Driver,
    b_approval,
    c_approval,
    cancel,
    result,
    settled,
)

REPLACED = outcomes.withdrawn(outcomes.REPLACED)


def test_b_a_byte_identical_resend_is_one_row_announced_once() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"), b_approval("srq-1"))
    [row] = drv.rows()
    assert len(drv.of_type(ApprovalRequested)) == 1
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, True)


def test_b_an_id_back_with_another_description_is_another_request() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"))
    drv.feed(b_approval("srq-1", description="something else entirely"))
    old, new = drv.rows()
    assert old.outcome == REPLACED
    assert (new.description, new.phase) == ("something else entirely", ApprovalPhase.WAITING)
    assert (new.replaces, old.replaces) == (old.key, "")  # surfaces give it a longer look


def test_b_a_resume_snapshot_that_files_other_content_under_a_known_id_replaces_the_row() -> None:
    drv = Driver().connect(Dialect.B)
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(b_approval("srq-1", "ls -la"))
    [old] = drv.rows()
    drv.lose()
    drv.connect(Dialect.B)
    resume = drv.request("session.resume")
    params = b_approval("srq-1", "rm -rf ~")["params"]
    snapshot = {
        "session_id": SID,
        "running": True,
        "open_requests": [{"id": "srq-1", "method": "approval", "params": params}],
    }
    drv.feed(result(resume["id"], snapshot))
    gone, new = drv.rows()
    assert gone.key == old.key
    assert gone.outcome == REPLACED
    assert (new.command, new.phase, new.answerable) == ("rm -rf ~", ApprovalPhase.WAITING, True)


def test_b_a_cancel_for_a_reused_id_closes_what_the_id_means_now() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1", "ls -la"))
    drv.decide(drv.row().key, Choice.DENY)
    drv.feed(b_approval("srq-1", "make deploy"), cancel("srq-1", "timeout"))
    denied, expired = drv.rows()
    assert denied.outcome == outcomes.decided(Choice.DENY)
    assert expired.outcome == outcomes.expired()


def test_b_an_answer_already_gone_settles_itself_and_puts_the_new_row_in_doubt() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1", "ls -la"))
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.ONCE, write=False)  # drained, not yet written
    drv.feed(b_approval("srq-1", "rm -rf ~"))
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    drv.core.frame_written(frames[0].frame_id)
    drv.flush()
    assert drv.approval(key).outcome == outcomes.decided(Choice.ONCE)
    new = drv.row()
    assert (new.command, new.phase) == ("rm -rf ~", ApprovalPhase.STALE)
    assert new.blocked_reason == decisions.ANSWER_UNDER_ID  # Hermes may have taken ours
    assert drv.decide(new.key, Choice.DENY)[0] is False
    assert drv.decide(new.key, Choice.DENY, confirm_stale=True)[0] is True


def test_c_same_prompt_and_generation_with_other_content_is_replaced() -> None:
    drv = Driver().connect(Dialect.C).feed(c_approval("p-1", 4, "ls -la"))
    drv.feed(c_approval("p-1", 4, "rm -rf ~"))
    old, new = drv.rows()
    assert old.outcome == REPLACED
    sent, _, frames = drv.decide(new.key, Choice.DENY)
    assert sent
    assert json.loads(frames[0].text)["params"]["prompt_id"] == "p-1"
    assert not drv.decide(old.key, Choice.ONCE)[0]


def test_c_an_answer_that_left_under_the_same_generation_puts_the_new_row_in_doubt() -> None:
    drv = Driver().connect(Dialect.C).feed(c_approval("p-1", 4, "ls -la"))
    key = drv.row().key
    drv.decide(key, Choice.ONCE)  # written; the result is still to come
    drv.feed(c_approval("p-1", 4, "rm -rf ~"))
    assert drv.approval(key).phase is ApprovalPhase.SENDING
    assert (drv.row().phase, drv.row().blocked_reason) == (
        ApprovalPhase.STALE,
        decisions.ANSWER_UNDER_ID,
    )


def test_c_an_answer_awaiting_its_result_outlives_a_new_generation_of_its_id() -> None:
    drv = Driver().connect(Dialect.C).feed(c_approval("p-1", 3, "ls -la"))
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.ONCE)
    drv.feed(c_approval("p-1", 4, "rm -rf ~"))
    assert drv.approval(key).phase is ApprovalPhase.SENDING  # its answer names generation 3
    drv.feed(settled("p-1", 3), result(frames[0].rpc_id, {"status": "resolved"}))
    assert drv.approval(key).outcome == outcomes.decided(Choice.ONCE)
    assert (drv.row().command, drv.row().phase) == ("rm -rf ~", ApprovalPhase.WAITING)


def test_c_an_old_generation_re_sent_maps_onto_its_own_row() -> None:
    drv = Driver().connect(Dialect.C).feed(c_approval("p-1", 3, "ls -la"), settled("p-1", 3))
    drv.feed(c_approval("p-1", 4, "rm -rf ~"), c_approval("p-1", 3, "ls -la"))
    assert [(r.command, r.phase) for r in drv.rows()] == [
        ("ls -la", ApprovalPhase.RESOLVED),
        ("rm -rf ~", ApprovalPhase.WAITING),
    ]


def test_c_a_settle_without_a_generation_closes_the_open_prompt_of_that_id() -> None:
    drv = Driver().connect(Dialect.C).feed(c_approval("p-1", 3, "ls -la"))
    drv.decide(drv.row().key, Choice.DENY)
    drv.feed(c_approval("p-1", 4, "rm -rf ~"))
    frame = settled("p-1", 4)
    del frame["params"]["payload"]["execution_generation"]
    drv.feed(frame)
    assert drv.row().outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
