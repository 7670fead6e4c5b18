"""Colliding ids: a server request id equal to one of our rpc ids, a boolean id, duplicate
``srq`` ids, and ``prompt_id`` reused across execution generations.

The rule that matters (design.md §2): the core may only answer a request whose identity and
content it showed the person. An id the gateway re-uses for *different* content is ambiguous —
the answer would go to whatever the gateway now files under that id — so the row must stop
being answerable (or the new request become its own row), never silently keep the old text.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.events import RpcResponded
from desktop.core.model import ApprovalPhase, Choice, Dialect
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


def test_a_redelivered_request_with_the_same_content_maps_onto_its_row() -> None:
    drv = CoreDriver(Dialect.B).connect()
    frame = approval_frame(Dialect.B, "s1", "srq-same", "rm -rf build/")
    drv.feed(frame)
    drv.feed(frame)
    [row] = drv.rows_of("s1")
    assert row.answerable
    assert drv.decide(row.key, Choice.ONCE)[0]


@pytest.mark.xfail(
    strict=True,
    reason="bug: desktop/core/approvals.py ApprovalBook.ask returns the existing row for a known "
    "srq id without comparing content; a second `approval` request reusing an open srq id "
    "for another command stays shown as the first command and stays answerable, so the "
    "answer goes to whatever the gateway now files under that id",
)
def test_a_reused_srq_id_with_another_command_is_not_answered_as_the_old_one() -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "ls -la"))
    drv.feed(approval_frame(Dialect.B, "s1", "srq-dup", "rm -rf ~"))
    for row in drv.rows_of("s1"):
        if row.phase is ApprovalPhase.RESOLVED:
            continue
        sent, _ = drv.decide(row.key, Choice.ONCE)
        assert not (sent and row.command == "ls -la"), (
            "approved 'ls -la' under an id now meaning 'rm -rf ~'"
        )


@pytest.mark.xfail(
    strict=True,
    reason="bug (liveness): desktop/core/approvals.py ApprovalBook.ask maps a new `approval` "
    "request onto an already RESOLVED row with the same srq id, so the new request is never "
    "shown and the agent waits for its timeout",
)
def test_a_srq_id_reused_after_its_answer_is_shown_again() -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(approval_frame(Dialect.B, "s1", "srq-old", "ls -la"))
    [first] = drv.rows_of("s1")
    assert drv.decide(first.key, Choice.DENY)[0]
    drv.feed(approval_frame(Dialect.B, "s1", "srq-old", "make deploy"))
    assert [r.command for r in drv.rows_of("s1") if r.phase is not ApprovalPhase.RESOLVED] == [
        "make deploy"
    ]


@pytest.mark.xfail(
    strict=True,
    reason="bug (liveness): desktop/core/approvals.py ApprovalBook.find(PROMPT, …) matches by "
    "prompt_id only; a prompt id reused in a new execution_generation is merged into the old "
    "row (still showing the old command and answering the old generation), so the new prompt "
    "is never shown",
)
@pytest.mark.parametrize("old_settled", [False, True], ids=["old-open", "old-settled"])
def test_a_prompt_id_reused_in_a_new_generation_is_its_own_request(old_settled: bool) -> None:
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "ls -la", generation=3))
    if old_settled:
        drv.feed(event("approval.settled", "s1", {"prompt_id": "p1", "execution_generation": 3}))
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    live = [r for r in drv.rows_of("s1") if r.phase is not ApprovalPhase.RESOLVED]
    assert ("rm -rf ~", 4) in [(r.command, r.wire.execution_generation) for r in live]


def test_a_prompt_answer_always_names_the_generation_the_row_showed() -> None:
    """Whatever the merge above does, the wire never answers a generation nobody saw."""
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "ls -la", generation=3))
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    for row in drv.rows_of("s1"):
        _sent, frames = drv.decide(row.key, Choice.ONCE)
        for frame in frames:
            params = json.loads(frame.text)["params"]
            assert (row.command, params["execution_generation"]) in (("ls -la", 3), ("rm -rf ~", 4))


@pytest.mark.xfail(
    strict=True,
    reason="bug (liveness): desktop/core/wire_effects.py _settled looks the prompt up by "
    "prompt_id only; an approval.settled for generation 3 withdraws the open generation-4 "
    "prompt that reuses the id",
)
def test_a_settle_for_another_generation_leaves_the_live_prompt_alone() -> None:
    drv = CoreDriver(Dialect.C).connect()
    drv.feed(approval_frame(Dialect.C, "s1", "p1", "rm -rf ~", generation=4))
    drv.feed(event("approval.settled", "s1", {"prompt_id": "p1", "execution_generation": 3}))
    [row] = drv.rows_of("s1")
    assert row.phase is ApprovalPhase.WAITING
