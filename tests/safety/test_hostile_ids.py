"""Colliding ids: a server request id equal to one of our rpc ids, a boolean id, duplicate
``srq`` ids, and ``prompt_id`` reused across execution generations.

The rule that matters (design.md §2): the core may only answer a request whose identity and
content it showed the person. An id the gateway re-uses for *different* content is ambiguous —
the answer would go to whatever the gateway now files under that id — so the new request is
its own row (a new key) and the row the id meant until then is withdrawn ("the gateway
replaced this request"), never silently kept with the old text. A byte-identical re-send is the
same request and stays one row.
"""

from __future__ import annotations

import json

import pytest

from desktop.core import outcomes
from desktop.core.events import RpcResponded
from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.core.frames import wire_of
from tests.safety.driver import CoreDriver, approval_frame, event


def test_a_server_request_id_equal_to_our_rpc_id_is_kept_apart() -> None:
    drv = CoreDriver(Dialect.B).connect()
    rpc = drv.core.call("session.usage", {"session_id": "s1"})
    drv.flush()
    params = {"session_id": "s1", "command": "rm -rf x", "choices": ["once", "deny"]}
    drv.feed(json.dumps({"jsonrpc": "2.0", "id": rpc, "method": "approval", "params": params}))
    [row] = drv.rows_of("s1")
    sent, frames = drv.decide(row.key, Choice.ONCE)
    assert sent
    assert [json.loads(f.text) for f in frames] == [
        {"jsonrpc": "2.0", "id": rpc, "result": {"choice": "once"}}
    ]
    drv.feed(json.dumps({"jsonrpc": "2.0", "id": rpc, "result": {"calls": 3}}))
    answers = [e for e in drv.events if isinstance(e, RpcResponded)]
    assert [(a.rpc_id, dict(a.result or {})) for a in answers] == [(rpc, {"calls": 3})]


@pytest.mark.parametrize("fake_id", [True, 1.0, "1", [1], {"id": 1}])
def test_ids_that_only_look_like_ours_answer_nothing(fake_id: object) -> None:
    drv = CoreDriver(Dialect.C).connect()  # no handshake call: our first rpc id is 1
    rpc = drv.core.call("session.usage", {"session_id": "s1"})
    drv.flush()
    assert rpc == 1
    drv.feed(json.dumps({"jsonrpc": "2.0", "id": fake_id, "result": {"calls": 3}}))
    assert not [e for e in drv.events if isinstance(e, RpcResponded)]
    drv.feed(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"calls": 4}}))
    assert [e.rpc_id for e in drv.events if isinstance(e, RpcResponded)] == [1]


@pytest.mark.parametrize("dialect", [Dialect.B, Dialect.C], ids=["B", "C"])
def test_a_redelivered_request_with_the_same_content_maps_onto_its_row(dialect: Dialect) -> None:
    drv = CoreDriver(dialect).connect()
    frame = approval_frame(dialect, "s1", "srq-same", "rm -rf build/")
    drv.feed(frame)
    drv.feed(frame)
    [row] = drv.rows_of("s1")
    assert row.answerable
    assert drv.decide(row.key, Choice.ONCE)[0]
    drv.feed(frame)  # re-sent once more after the answer: still that one (answered) row
    [again] = drv.rows_of("s1")
    assert again.key == row.key
    assert again.phase is not ApprovalPhase.WAITING
    assert not drv.decide(row.key, Choice.ONCE)[0]


def test_a_reused_srq_id_with_another_command_is_not_answered_as_the_old_one() -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "ls -la"))
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "rm -rf ~"))
    old, new = drv.rows_of("s1")
    assert old.key != new.key
    assert old.outcome == outcomes.withdrawn(outcomes.REPLACED)
    for row in drv.rows_of("s1"):
        if row.phase is ApprovalPhase.RESOLVED:
            continue
        sent, _ = drv.decide(row.key, Choice.ONCE)
        assert not (sent and row.command == "ls -la"), (
            "approved 'ls -la' under an id now meaning 'rm -rf ~'"
        )
    assert not drv.decide(old.key, Choice.ONCE)[0]
    assert [json.loads(f.text) for f in drv.written if f.is_decision] == [
        {"jsonrpc": "2.0", "id": "srq-dup", "result": {"choice": "once"}}
    ]  # one answer, for the row showing "rm -rf ~"


def test_a_queued_answer_is_taken_back_when_its_id_is_reused() -> None:
    """The person clicked "ls -la"; before the frame left, the id came back as "rm -rf ~"."""
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "ls -la"))
    [old] = drv.rows_of("s1")
    assert drv.core.decide(old.key, Choice.ONCE).sent  # queued, not yet drained
    drv.core.receive_text(approval_frame(Dialect.B, "s1", "srq-dup", "rm -rf ~"))
    assert not [f for f in drv.flush() if f.is_decision]
    gone, new = drv.rows_of("s1")
    assert gone.outcome == outcomes.withdrawn(outcomes.REPLACED)
    assert (new.command, new.phase, new.answerable) == ("rm -rf ~", ApprovalPhase.WAITING, True)


def test_a_srq_id_reused_after_its_answer_is_shown_again() -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-old", "ls -la"))
    [first] = drv.rows_of("s1")
    assert drv.decide(first.key, Choice.DENY)[0]
    drv.feed(approval_frame(Dialect.B, "s1", "srq-old", "make deploy"))
    assert [r.command for r in drv.rows_of("s1") if r.phase is not ApprovalPhase.RESOLVED] == [
        "make deploy"
    ]
    denied, shown = drv.rows_of("s1")
    assert denied.outcome == outcomes.decided(Choice.DENY)  # kept as it was
    sent, frames = drv.decide(shown.key, Choice.ONCE)
    assert sent
    assert [json.loads(f.text) for f in frames] == [
        {"jsonrpc": "2.0", "id": "srq-old", "result": {"choice": "once"}}
    ]


@pytest.mark.parametrize("old_settled", [False, True], ids=["old-open", "old-settled"])
def test_a_prompt_id_reused_in_a_new_generation_is_its_own_request(old_settled: bool) -> None:
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "ls -la", generation=3))
    if old_settled:
        drv.feed(event("approval.settled", "s1", {"prompt_id": "p1", "execution_generation": 3}))
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    old, new = drv.rows_of("s1")
    live = [r for r in drv.rows_of("s1") if r.phase is not ApprovalPhase.RESOLVED]
    assert [(r.command, wire_of(drv.core, r.key).execution_generation) for r in live] == [
        ("rm -rf ~", 4)
    ]
    assert old.key != new.key
    if not old_settled:
        assert old.outcome == outcomes.withdrawn(outcomes.REPLACED)
    sent, frames = drv.decide(new.key, Choice.ONCE)
    assert sent
    assert json.loads(frames[0].text)["params"] == {
        "session_id": "s1",
        "execution_generation": 4,
        "prompt_id": "p1",
        "choice": "once",
    }


def test_a_prompt_answer_always_names_the_generation_the_row_showed() -> None:
    """Whatever the gateway re-uses, the wire never answers a generation nobody saw."""
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "ls -la", generation=3))
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    for row in drv.rows_of("s1"):
        _sent, frames = drv.decide(row.key, Choice.ONCE)
        for frame in frames:
            params = json.loads(frame.text)["params"]
            assert (row.command, params["execution_generation"]) in (("ls -la", 3), ("rm -rf ~", 4))


def test_a_settle_for_another_generation_leaves_the_live_prompt_alone() -> None:
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    drv.feed(event("approval.settled", "s1", {"prompt_id": "p1", "execution_generation": 3}))
    [row] = drv.rows_of("s1")
    assert row.phase is ApprovalPhase.WAITING
    drv.feed(event("approval.settled", "s1", {"prompt_id": "p1", "execution_generation": 4}))
    [row] = drv.rows_of("s1")
    assert row.outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
