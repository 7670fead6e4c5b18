"""Edges: odd but legal frames, bookkeeping limits, and the answerability rule case by case."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core import decisions, outcomes, payloads
from desktop.core.approvals import HEAD_ONLY
from desktop.core.decisions import AnswerContext, assess
from desktop.core.events import ProtocolErrorReceived, SessionChanged
from desktop.core.gateway_core import CoreSettings
from desktop.core.jsonrpc import parse_message
from desktop.core.model import (
    Approval,
    ApprovalPhase,
    Choice,
    Dialect,
    Outcome,
    OutcomeKind,
)
from desktop.core.payloads import truthy_setting
from desktop.core.wire import RowKind
from tests.core.frames import (
    SID,
    STORED,
    Driver,
    a_approval,
    b_approval,
    c_approval,
    event,
    message_complete,
    result,
    settled,
)

CTX = AnswerContext(Dialect.A, frozenset({RowKind.FIFO}), connected=True, now=10.0, margin=5.0)
OFFLINE = AnswerContext(Dialect.A, CTX.answers, connected=False, now=10.0, margin=5.0)
NO_DIALECT = AnswerContext(None, frozenset(), connected=True, now=10.0, margin=5.0)


def approval(**changes: Any) -> Approval:
    base = Approval("k", SID, "b", 0, "cmd", expires_at=60.0)
    return Approval(**{**{f: getattr(base, f) for f in base.__slots__}, **changes})


@pytest.mark.parametrize(
    ("row", "kind", "extra", "ctx", "expected"),
    [
        (approval(phase=ApprovalPhase.RESOLVED), RowKind.FIFO, {}, CTX, (False, "")),
        (
            approval(phase=ApprovalPhase.SENDING),
            RowKind.FIFO,
            {},
            CTX,
            (False, decisions.SENDING),
        ),
        (approval(), RowKind.FIFO, {"too_long": True}, CTX, (False, decisions.TOO_LONG)),
        (approval(), RowKind.FIFO, {}, OFFLINE, (False, decisions.DISCONNECTED)),
        (approval(), RowKind.FIFO, {}, NO_DIALECT, (False, decisions.NO_HANDSHAKE)),
        (approval(), RowKind.PROMPT, {}, CTX, (False, decisions.WRONG_SHAPE)),
        (approval(), RowKind.FIFO, {"is_head": False}, CTX, (False, decisions.NOT_HEAD)),
        (approval(expires_at=15.0), RowKind.FIFO, {}, CTX, (False, decisions.TOO_CLOSE)),
        (approval(expires_at=15.001), RowKind.FIFO, {}, CTX, (True, "")),
        (approval(expires_at=None), RowKind.FIFO, {}, CTX, (True, "")),
        (
            approval(phase=ApprovalPhase.STALE),
            RowKind.FIFO,
            {"stale_reason": "why"},
            CTX,
            (True, "why"),
        ),
    ],
)
def test_answerability_case_by_case(
    row: Approval,
    kind: RowKind,
    extra: dict[str, Any],
    ctx: AnswerContext,
    expected: tuple[bool, str],
) -> None:
    args: dict[str, Any] = {"too_long": False, "is_head": True, "stale_reason": ""} | extra
    args["head_only"] = kind in HEAD_ONLY
    assert assess(row.phase, row.expires_at, kind, ctx=ctx, **args) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", True),
        ("ON", True),
        (" yes ", True),
        (True, True),
        (1, True),
        (0, False),
        ("off", False),
        ("no", False),
        ("maybe", None),
        (None, None),
        (2.5, None),
    ],
)
def test_config_values_read_as_booleans(value: object, expected: bool | None) -> None:
    assert truthy_setting(value) is expected


def test_very_deep_json_is_a_protocol_error_even_when_the_size_is_allowed() -> None:
    (item,) = parse_message("[" * 100_000 + "]" * 100_000, max_bytes=10**7, max_depth=64)
    assert isinstance(item, ProtocolErrorReceived)
    assert item.reason in ("nested too deeply", "nested deeper than 64 levels")


@pytest.mark.parametrize(
    "frame",
    [
        event("tool.start", "", {"tool_id": "t"}),
        event("tool.complete", "", {"tool_id": "t"}),
        event("message.start", ""),
        event("message.complete", "", {}),
        event("session.usage", "", {"total": 1}),
        event("todo.updated", "", {"todos": []}),
        event("session.info", "", {"title": "x"}),
        event("session.replay_gap", "", {}),
        event("session.reclaimed", "", {}),
        event("request.cancel", SID, {"method": "approval"}),  # no id
        event("approval.settled", SID, {"execution_generation": 1}),  # no prompt id
    ],
)
@pytest.mark.parametrize("dialect", [Dialect.A, Dialect.B, Dialect.C])
def test_events_missing_what_they_need_change_no_approval(
    frame: dict[str, Any], dialect: Dialect
) -> None:
    drv = Driver().connect(dialect)
    drv.feed(a_approval() if dialect is Dialect.A else b_approval("srq-1"))
    before = drv.rows()
    drv.feed(frame)
    assert drv.rows() == before
    assert drv.of_type(ProtocolErrorReceived) == []


@pytest.mark.parametrize(("dialect", "closed"), [(Dialect.A, True), (Dialect.B, False)])
def test_a_tool_result_of_an_odd_shape_is_not_read_as_blocked(
    dialect: Dialect, closed: bool
) -> None:
    drv = Driver().connect(dialect)
    drv.feed(a_approval() if dialect is Dialect.A else b_approval("srq-1"))
    drv.feed(event("tool.complete", SID, {"tool_id": "t", "name": "terminal", "result": 42}))
    expected = outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE) if closed else None
    assert drv.row().outcome == expected


@pytest.mark.parametrize(
    ("frame", "withdrawn"),
    [
        (
            event(
                "request.cancel", SID, {"id": "srq-1", "method": "approval", "reason": "timeout"}
            ),
            True,
        ),
        (settled("p-1"), True),
        (settled("p-unknown"), False),
    ],
)
def test_withdrawals_before_the_handshake_still_apply(
    frame: dict[str, Any], withdrawn: bool
) -> None:
    drv = Driver()
    drv.core.connection_opened(1)
    drv.feed(b_approval("srq-1") if "request.cancel" in str(frame) else c_approval("p-1"))
    drv.feed(frame)
    assert (drv.row().outcome is not None) is withdrawn


def test_a_single_pattern_key_stands_in_for_the_list() -> None:
    frame = a_approval(pattern_keys=None)
    frame["params"]["payload"].pop("pattern_keys")
    drv = Driver().connect(Dialect.A).feed(frame)
    assert drv.row().pattern_keys == ("delete in root path",)


def test_snapshot_items_without_id_or_method_are_skipped() -> None:
    drv = Driver().connect(Dialect.B)
    drv.core.watch_session(SID, stored_session_id=STORED)
    rpc = drv.core.resume_session(SID)
    drv.flush()
    junk = [
        {"method": "approval", "params": {}},
        {"id": "srq-9", "params": {}},
        {"id": "srq-8", "method": "approval", "params": 5},
    ]
    drv.feed(
        result(
            rpc, {"session_id": SID, "running": True, "open_requests": junk, "usage": {"total": 4}}
        )
    )
    assert drv.rows() == []
    assert [f["error"]["code"] for f in drv.sent_json() if f.get("id") == "srq-8"] == [-32602]
    assert drv.core.session(SID).usage.total == 4  # type: ignore[union-attr]


def test_a_snapshot_of_an_unknown_session_without_an_id_is_ignored() -> None:
    drv = Driver(follows=()).connect(Dialect.A)
    rpc = drv.core.call("session.resume", {"session_id": "by exact title"})
    drv.flush()
    drv.feed(result(rpc, {"running": True}))
    assert drv.core.sessions() == ()


def test_resolved_rows_beyond_the_limit_are_forgotten_oldest_first() -> None:
    drv = Driver(settings=CoreSettings(max_resolved_approvals=2)).connect(Dialect.B)
    for number in range(4):
        drv.feed(b_approval(f"srq-{number}", f"cmd {number}"))
        drv.decide(drv.rows()[-1].key, Choice.ONCE)
    assert [row.command for row in drv.rows()] == ["cmd 2", "cmd 3"]


def test_the_rows_resolved_longest_ago_are_forgotten_first_whenever_they_arrived() -> None:
    """A row that waited long and was answered just now keeps its late outcome's place."""
    drv = Driver(settings=CoreSettings(max_resolved_approvals=2)).connect(Dialect.B)
    drv.feed(b_approval("srq-old", "cmd old"))
    for number in range(3):
        drv.feed(b_approval(f"srq-{number}", f"cmd {number}"))
        drv.decide(drv.rows()[-1].key, Choice.ONCE)
    drv.decide(drv.rows()[0].key, Choice.DENY)
    assert [row.command for row in drv.rows()] == ["cmd old", "cmd 2"]


def test_an_answer_for_a_forgotten_row_is_ignored() -> None:
    drv = Driver(settings=CoreSettings(max_resolved_approvals=0)).connect(Dialect.C)
    drv.feed(c_approval("p-1"))
    _, _, frames = drv.decide(drv.row().key, Choice.ONCE)
    drv.feed(settled("p-1"))
    assert drv.rows() == []
    drv.feed(result(frames[0].rpc_id, {"status": "resolved"}))
    assert drv.rows() == []


def test_reconnecting_to_another_protocol_withdraws_rows_it_cannot_answer() -> None:
    drv = Driver().connect(Dialect.A).feed(a_approval())
    drv.lose()
    drv.connect(Dialect.B)
    assert drv.row().outcome == outcomes.withdrawn(outcomes.PROTOCOL_CHANGED)


def test_a_turn_that_ends_near_the_local_timeout_reads_as_an_expiry() -> None:
    drv = Driver().connect(Dialect.A).feed(event("message.start", SID), a_approval())
    drv.advance(58.0)
    drv.feed(message_complete())
    outcome = drv.row().outcome
    assert outcome is not None
    assert outcome.kind is OutcomeKind.EXPIRED


def test_deadlines_only_count_fifo_rows_that_wait() -> None:
    drv = Driver().connect(Dialect.A).feed(b_approval("srq-1"), a_approval())
    fifo = drv.rows()[1]
    assert drv.core.next_deadline() == fifo.arrived_at + 55.0
    drv.decide(fifo.key, Choice.ONCE)
    assert drv.core.next_deadline() is None


def test_approval_pending_answers_without_a_list_or_for_other_rows_change_nothing() -> None:
    drv = (
        Driver()
        .connect(Dialect.B)
        .feed(b_approval("srq-1"), event("approval.request", SID, {"command": "x"}))
    )
    bodies: list[dict[str, Any]] = [{}, {"approvals": []}]
    for body in bodies:
        rpc = drv.core.call("approval.pending", {"session_id": SID})
        drv.flush()
        drv.feed(result(rpc, body))
    srq_row, fifo_row = drv.rows()
    assert srq_row.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert fifo_row.outcome is None


@pytest.mark.parametrize("dialect", [Dialect.A, Dialect.C])
def test_polling_pending_approvals_is_b_only(dialect: Dialect) -> None:
    drv = Driver().connect(dialect)
    drv.core.watch_session(SID)
    assert drv.core.link.poll_pending(SID) is None
    assert drv.core.link.poll_pending("unknown") is None


def test_resume_is_refused_while_disconnected_or_for_unknown_sessions() -> None:
    drv = Driver()
    drv.core.watch_session(SID, stored_session_id=STORED)
    assert drv.core.resume_session(SID) is None
    drv.connect(Dialect.A)
    assert drv.core.resume_session("unknown") is None


def test_a_session_resumed_onto_an_id_already_known_keeps_the_known_one() -> None:
    drv = Driver().connect(Dialect.A)
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(event("session.title", "n3w", {"title": "already here"}))
    rpc = drv.core.resume_session(SID)
    drv.flush()
    drv.feed(result(rpc, {"session_id": "n3w", "running": False}))
    assert [s.session_id for s in drv.core.sessions()] == ["n3w"]
    assert drv.core.session("n3w").title == "already here"  # type: ignore[union-attr]


def test_frame_reports_for_frames_the_core_never_gave_out_are_ignored() -> None:
    drv = Driver().connect(Dialect.A)
    drv.core.frame_written(999)
    drv.core.frame_failed(998, maybe_sent=True)
    assert drv.flush() == []


def test_connection_lost_twice_is_harmless_and_opening_twice_implies_a_loss() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"))
    drv.lose()
    drv.lose()
    drv.core.connection_opened(7)
    drv.core.connection_opened(8)
    drv.flush()
    assert drv.core.epoch == 8
    assert drv.row().phase is ApprovalPhase.STALE


def test_a_cancelled_answer_whose_frame_was_already_taken_ends_once() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"))
    key = drv.row().key
    drv.core.decide(key, Choice.ONCE)
    drv.core.data_to_send()  # taken by the adapter, not yet reported
    drv.feed(
        event("request.cancel", SID, {"id": "srq-1", "method": "approval", "reason": "resolved"})
    )
    drv.lose()
    assert drv.approval(key).outcome == outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)


def test_session_changed_is_not_emitted_when_nothing_changed() -> None:
    drv = Driver().connect(Dialect.A).feed(event("session.info", SID, {"title": "t"}))
    drv.emitted.clear()
    drv.feed(event("session.info", SID, {"title": "t"}))
    assert drv.of_type(SessionChanged) == []


def test_outcome_constructors_say_what_happened() -> None:
    assert outcomes.cancelled("timeout") == Outcome(
        OutcomeKind.EXPIRED, reason=outcomes.SERVER_TIMEOUT
    )
    assert outcomes.decided(Choice.ALWAYS) == Outcome(OutcomeKind.APPROVED, Choice.ALWAYS)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3.0), (2.5, 2.5), (True, None), ("7", None), (10**309, None), (float("inf"), None)],
)
def test_payload_number_takes_only_finite_numbers(value: object, expected: float | None) -> None:
    """An int beyond float range is valid JSON; it must read as "no number", never raise."""
    assert payloads.number({"n": value}, "n") == expected
