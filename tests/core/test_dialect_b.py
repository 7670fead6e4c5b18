"""Dialect B (main tui_gateway): server→client requests, request.cancel, reconciliation."""

from __future__ import annotations

import json

import pytest

from desktop.core import decisions, outcomes
from desktop.core.events import ApprovalRequested, ProtocolErrorReceived
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import ApprovalPhase, Choice, Dialect, OutcomeKind
from tests.core.frames import (
    SID,
    STORED,
    Driver,
    b_approval,
    cancel,
    event,
    message_complete,
    result,
    wire_of,
)

SRQ = ["srq-4ef59b035bb9", "srq-24be949b41e3", "srq-7c0e42fcc9e6"]


def connected(**settings: object) -> Driver:
    return Driver(settings=CoreSettings(**settings)).connect(Dialect.B)  # type: ignore[arg-type]


def test_an_approval_request_is_answered_by_a_response_frame_with_its_own_id() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    row = drv.row()
    wire = wire_of(drv.core, row.key)
    assert (wire.srq_id, wire.request_id) == (SRQ[0], f"req-{SRQ[0]}")
    sent, _, frames = drv.decide(row.key, Choice.ONCE, write=False)
    assert sent
    (frame,) = frames
    assert (frame.is_decision, frame.rpc_id) == (True, None)
    assert json.loads(frame.text) == {"jsonrpc": "2.0", "id": SRQ[0], "result": {"choice": "once"}}
    assert drv.approval(row.key).phase is ApprovalPhase.SENDING
    drv.core.frame_written(frame.frame_id)
    drv.flush()
    outcome = drv.approval(row.key).outcome
    assert outcome is not None
    assert (outcome.kind, outcome.choice) == (
        OutcomeKind.APPROVED,
        Choice.ONCE,
    )


def test_a_batch_is_one_group_answered_in_any_order_never_with_all() -> None:
    drv = connected().feed(*(b_approval(srq, f"cmd {i}") for i, srq in enumerate(SRQ)))
    rows = drv.rows()
    assert len({r.batch_id for r in rows}) == 1
    assert [r.position for r in rows] == [0, 1, 2]
    assert all(r.answerable for r in rows)
    for index, choice in ((2, Choice.SESSION), (0, Choice.ONCE), (1, Choice.DENY)):
        assert drv.decide(rows[index].key, choice)[0]
    assert [(d["id"], d["result"]) for d in drv.decisions()] == [
        (SRQ[2], {"choice": "session"}),
        (SRQ[0], {"choice": "once"}),
        (SRQ[1], {"choice": "deny"}),
    ]
    assert all("all" not in d["result"] for d in drv.decisions())
    kinds = [drv.approval(r.key).outcome.kind for r in rows]  # type: ignore[union-attr]
    assert kinds == [OutcomeKind.APPROVED, OutcomeKind.DENIED, OutcomeKind.APPROVED]


def test_a_new_batch_starts_when_the_session_had_nothing_open() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    drv.decide(drv.row().key, Choice.ONCE)
    drv.feed(b_approval(SRQ[1], "next"))
    assert drv.row(0).batch_id != drv.row(1).batch_id
    assert drv.row(1).position == 0


@pytest.mark.parametrize(
    ("reason", "kind", "text"),
    [
        ("timeout", OutcomeKind.EXPIRED, outcomes.SERVER_TIMEOUT),
        ("interrupted", OutcomeKind.WITHDRAWN, outcomes.INTERRUPTED),
        ("resolved", OutcomeKind.WITHDRAWN, outcomes.SETTLED_ELSEWHERE),
        ("session_closed", OutcomeKind.WITHDRAWN, outcomes.SESSION_GONE),
        ("shutdown", OutcomeKind.WITHDRAWN, outcomes.GATEWAY_SHUTDOWN),
        ("moon_phase", OutcomeKind.WITHDRAWN, "withdrawn by Hermes (moon_phase)"),
        ("", OutcomeKind.WITHDRAWN, "withdrawn by Hermes (no reason)"),
    ],
)
def test_request_cancel_withdraws_exactly_the_matching_row(
    reason: str, kind: OutcomeKind, text: str
) -> None:
    drv = connected().feed(b_approval(SRQ[0]), b_approval(SRQ[1], "other"))
    drv.feed(cancel(SRQ[0], reason))
    target, other = drv.rows()
    assert target.outcome is not None
    assert (target.outcome.kind, target.outcome.reason) == (kind, text)
    assert other.phase is ApprovalPhase.WAITING


def test_request_cancel_fields_are_also_read_from_params() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    frame = {
        "jsonrpc": "2.0",
        "method": "event",
        "params": {"type": "request.cancel", "session_id": SID, "id": SRQ[0], "reason": "timeout"},
    }
    drv.feed(frame)
    outcome = drv.row().outcome
    assert outcome is not None
    assert outcome.kind is OutcomeKind.EXPIRED


def test_an_answer_after_request_cancel_sends_nothing() -> None:
    drv = connected().feed(b_approval(SRQ[0]), cancel(SRQ[0], "interrupted"))
    for choice in Choice:
        sent, reason, frames = drv.decide(drv.row().key, choice, confirm_stale=True)
        assert (sent, frames, reason) == (False, [], "already withdrawn")
    assert drv.decisions() == []


def test_a_cancel_that_overtakes_a_queued_answer_takes_the_answer_back() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    key = drv.row().key
    drv.core.decide(key, Choice.ONCE)  # queued, not yet drained by the adapter
    drv.core.receive_text(json.dumps(cancel(SRQ[0], "timeout")))
    assert drv.core.data_to_send() == []
    assert drv.approval(key).outcome is not None
    assert drv.approval(key).outcome.kind is OutcomeKind.EXPIRED  # type: ignore[union-attr]


def test_a_cancel_after_the_answer_left_wins_and_a_late_written_report_changes_nothing() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    key = drv.row().key
    _, _, frames = drv.decide(key, Choice.ONCE, write=False)
    drv.feed(cancel(SRQ[0], "resolved"))
    drv.core.frame_written(frames[0].frame_id)
    drv.flush()
    assert drv.approval(key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)


def test_a_cancel_after_the_answer_was_written_changes_nothing() -> None:
    drv = connected().feed(b_approval(SRQ[0]))
    key = drv.row().key
    drv.decide(key, Choice.DENY)
    drv.feed(cancel(SRQ[0], "resolved"))
    assert drv.approval(key).outcome == outcomes.decided(Choice.DENY)


def test_a_re_ask_after_the_batch_was_answered_is_a_new_row_never_answered_for_you() -> None:
    drv = connected().feed(event("message.start", SID))
    drv.feed(*(b_approval(srq, f"cmd {i}") for i, srq in enumerate(SRQ)))
    for row in drv.rows():
        drv.decide(row.key, Choice.ONCE)
    before = len(drv.decisions())
    drv.feed(b_approval("srq-58e13247e72a", "cmd 2"))  # the batch re-gated after a failure
    reask = drv.row()
    assert reask.reask_of == drv.row(2).key
    assert reask.phase is ApprovalPhase.WAITING
    assert reask.answerable
    assert len(drv.decisions()) == before
    assert reask.batch_id != drv.row(2).batch_id


@pytest.mark.parametrize(
    ("command", "keys", "new_turn", "is_reask"),
    [
        ("cmd 0", ["delete in root path"], False, True),
        ("cmd 0", ["other key"], False, False),  # same text, other pattern keys
        ("cmd 9", ["delete in root path"], False, False),
        ("cmd 0", ["delete in root path"], True, False),  # a later turn asks afresh
    ],
)
def test_re_asks_are_the_same_command_and_keys_within_one_turn(
    command: str, keys: list[str], new_turn: bool, is_reask: bool
) -> None:
    drv = connected().feed(event("message.start", SID), b_approval(SRQ[0], "cmd 0"))
    drv.decide(drv.row().key, Choice.ONCE)
    if new_turn:
        drv.feed(message_complete(), event("message.start", SID))
    drv.feed(b_approval(SRQ[1], command, pattern_keys=keys))
    assert bool(drv.row().reask_of) is is_reask


def test_a_duplicate_request_while_the_first_still_waits_is_not_a_re_ask() -> None:
    drv = connected().feed(b_approval(SRQ[0], "same"), b_approval(SRQ[1], "same"))
    assert drv.row(1).reask_of == ""
    assert drv.row(1).batch_id == drv.row(0).batch_id


def test_the_same_server_request_delivered_twice_is_one_row() -> None:
    drv = connected().feed(b_approval(SRQ[0]), b_approval(SRQ[0]))
    assert len(drv.rows()) == 1
    assert len(drv.of_type(ApprovalRequested)) == 1


@pytest.mark.parametrize(
    "params",
    [None, [1, 2], {"session_id": SID}, {"command": "rm -rf x"}, {"session_id": SID, "command": 5}],
)
def test_a_malformed_approval_request_is_refused_so_the_agent_never_waits(params: object) -> None:
    frame: dict[str, object] = {"jsonrpc": "2.0", "id": "srq-bad", "method": "approval"}
    if params is not None:
        frame["params"] = params
    drv = connected().feed(frame)
    (answer,) = [f for f in drv.sent_json() if f.get("id") == "srq-bad"]
    assert answer["error"]["code"] == -32602
    assert drv.of_type(ProtocolErrorReceived)
    assert drv.rows() == []


def test_an_over_long_command_is_shown_cut_and_can_only_be_denied() -> None:
    drv = connected(max_command_chars=20).feed(b_approval(SRQ[0], "x" * 50))
    row = drv.row()
    assert row.command == "x" * 20
    assert (row.answerable, row.blocked_reason) == (False, decisions.TOO_LONG)
    for choice in (Choice.ONCE, Choice.SESSION, Choice.ALWAYS):
        assert drv.decide(row.key, choice)[0] is False  # what was not read is never approved
    assert drv.decide(row.key, Choice.DENY)[0] is True  # but nothing runs on a deny
    (answer,) = [f for f in drv.sent_json() if f.get("id") == SRQ[0]]
    assert answer["result"] == {"choice": "deny"}


def test_an_approval_event_without_an_id_is_shown_but_never_answered_on_b() -> None:
    drv = connected().feed(event("approval.request", SID, {"command": "rm -rf x"}))
    assert (drv.row().answerable, drv.row().blocked_reason) == (False, decisions.WRONG_SHAPE)


def test_resume_after_reconnect_reconciles_open_requests_without_duplicates() -> None:
    drv = connected()
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(*(b_approval(srq, f"cmd {i}") for i, srq in enumerate(SRQ)))
    answered, kept, gone = drv.rows()
    drv.decide(answered.key, Choice.ONCE)
    drv.lose()
    assert drv.approval(kept.key).phase is ApprovalPhase.STALE
    drv.connect(Dialect.B)
    resume = drv.request("session.resume")
    assert resume["params"] == {
        "session_id": STORED,
        "source": "desktop",
        "close_on_disconnect": False,
        "omit_messages": True,
    }
    requested_before = len(drv.of_type(ApprovalRequested))
    kept_frame = b_approval(SRQ[1], "cmd 1")
    snapshot = {
        "session_id": SID,
        "running": True,
        "status": "waiting",
        "pending_approval": kept_frame["params"],
        "open_requests": [
            {"id": SRQ[1], "method": "approval", "params": kept_frame["params"]},
            {
                "id": "srq-4ca2d3bb410f",
                "method": "approval",
                "params": b_approval("x", "w1")["params"],
            },
            {"id": "srq-411648443b8e", "method": "terminal.read", "params": {"session_id": SID}},
        ],
    }
    drv.feed(result(resume["id"], snapshot))
    assert drv.approval(kept.key).phase is ApprovalPhase.WAITING
    assert drv.approval(gone.key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
    assert drv.approval(answered.key).outcome == outcomes.decided(Choice.ONCE)
    new = [e.approval.command for e in drv.of_type(ApprovalRequested)[requested_before:]]
    assert new == ["w1"]
    declined = [f for f in drv.sent_json() if f.get("id") == "srq-411648443b8e"]
    assert [f["error"]["code"] for f in declined] == [4404]


def test_approval_pending_closes_rows_another_viewer_answered_but_not_newer_ones() -> None:
    drv = connected().feed(b_approval(SRQ[0], "a"), b_approval(SRQ[1], "b"))
    rpc = drv.core.link.poll_pending(SID)
    drv.flush()
    assert drv.request("approval.pending")["params"] == {"session_id": SID}
    drv.feed(b_approval(SRQ[2], "c"))  # published after the server answered the poll
    drv.feed(result(rpc, {"approvals": [{"command": "b", "request_id": f"req-{SRQ[1]}"}]}))
    a, b, c = drv.rows()
    assert a.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert b.phase is ApprovalPhase.WAITING
    assert c.phase is ApprovalPhase.WAITING


def test_the_end_of_the_turn_asks_the_gateway_which_cards_still_wait() -> None:
    drv = connected().feed(event("message.start", SID), b_approval(SRQ[0]), b_approval(SRQ[1]))
    drv.flush()
    drv.feed(message_complete())  # never a withdrawal by itself: the pending list decides
    a, b = drv.rows()
    assert a.phase is b.phase is ApprovalPhase.WAITING
    poll = drv.request("approval.pending")
    assert poll["params"] == {"session_id": SID}
    drv.feed(result(poll["id"], {"approvals": [{"request_id": f"req-{SRQ[1]}"}]}))
    a, b = drv.rows()
    assert a.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)  # another viewer's
    assert b.phase is ApprovalPhase.WAITING


def test_a_malformed_turn_end_withdraws_nothing() -> None:
    drv = connected().feed(event("message.start", SID), b_approval(SRQ[0]), b_approval(SRQ[1]))
    drv.feed(event("message.complete", SID, {"status": 7, "usage": "junk", "text": None}))
    assert [r.phase for r in drv.rows()] == [ApprovalPhase.WAITING] * 2
    assert drv.decide(drv.row().key, Choice.ONCE)[0] is True


def test_the_tool_call_a_card_gated_ending_closes_it() -> None:
    """Another viewer answered by a response frame: tui_gateway cancels nothing here."""
    drv = connected().feed(b_approval(SRQ[0], "rm -rf /tmp/x"))
    args = {"command": "rm -rf /tmp/x"}
    drv.feed(event("tool.start", SID, {"tool_id": "t1", "name": "terminal", "args": args}))
    assert drv.row().phase is ApprovalPhase.WAITING
    result_ok = {"output": "", "exit_code": 0, "error": None}
    drv.feed(event("tool.complete", SID, {"tool_id": "t1", "args": args, "result": result_ok}))
    assert drv.row().outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
    assert drv.row().result is not None
