"""Decisions in every dialect: one frame or none, only offered choices, never resent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from desktop.core import outcomes
from desktop.core.decisions import decision
from desktop.core.events import RpcResponded
from desktop.core.model import ApprovalPhase, Choice, Dialect, OutcomeKind
from desktop.core.wire import ApprovalAsked, RowKind
from tests.core.frames import Driver, a_approval, b_approval, c_approval

Maker = Callable[[], dict[str, Any]]
DIALECTS: list[tuple[Dialect, Maker]] = [
    (Dialect.A, lambda: a_approval()),
    (Dialect.B, lambda: b_approval("srq-000000000001")),
    (Dialect.C, lambda: c_approval("p-1")),
]


def with_row(dialect: Dialect, frame: dict[str, Any]) -> tuple[Driver, str]:
    drv = Driver().connect(dialect).feed(frame)
    return drv, drv.row().key


@pytest.mark.parametrize(
    ("extra", "offered"),
    [
        (
            {"choices": ["once", "session", "always", "deny"]},
            (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY),
        ),
        ({"choices": ["deny", "once"]}, (Choice.DENY, Choice.ONCE)),  # the server's order
        ({"choices": ["once", "session", "deny"]}, (Choice.ONCE, Choice.SESSION, Choice.DENY)),
        (
            {"choices": ["once", "yes", "deny", "once"]},
            (Choice.ONCE, Choice.DENY),
        ),  # unknown, dupes
        ({"choices": []}, (Choice.ONCE, Choice.DENY)),
        ({"choices": None}, (Choice.ONCE, Choice.DENY)),  # no choices key (MCP elicitation)
        ({"smart_denied": True}, (Choice.ONCE, Choice.DENY)),
    ],
)
@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
def test_only_the_servers_choices_are_offered_in_its_order(
    dialect: Dialect, make: Maker, extra: dict[str, Any], offered: tuple[Choice, ...]
) -> None:
    frame = make()
    target = frame["params"]["payload"] if "payload" in frame["params"] else frame["params"]
    target.update(extra)
    if extra.get("choices") is None:
        target.pop("choices", None)
    drv, key = with_row(dialect, frame)
    assert drv.approval(key).choices == offered
    assert drv.approval(key).smart_denied is bool(extra.get("smart_denied"))
    for choice in set(Choice) - set(offered):
        sent, reason, frames = drv.decide(key, choice)
        assert (sent, frames) == (False, [])
        assert "not offered" in reason


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
@pytest.mark.parametrize("bad", ["yes", "", "ONCE", None, 1, "all"])
def test_a_choice_that_is_not_a_choice_never_reaches_the_wire(
    dialect: Dialect, make: Maker, bad: object
) -> None:
    drv, key = with_row(dialect, make())
    sent, _, frames = drv.decide(key, bad)  # type: ignore[arg-type]
    assert (sent, frames) == (False, [])
    assert drv.approval(key).phase is ApprovalPhase.WAITING


@pytest.mark.parametrize("kind", list(RowKind))
def test_the_encoder_itself_refuses_anything_but_a_choice(kind: RowKind) -> None:
    asked = ApprovalAsked("s", kind, "x", reply_id="srq-1", request_id="p", execution_generation=1)
    with pytest.raises(TypeError):
        decision(asked, "once")  # type: ignore[arg-type]
    assert decision(asked, Choice.ONCE)[1]["choice"] == "once"


@pytest.mark.parametrize(
    "asked",
    [
        ApprovalAsked("s", RowKind.SERVER_REQUEST, "x"),
        ApprovalAsked("s", RowKind.PROMPT, "x", request_id="p"),
        ApprovalAsked("s", RowKind.PROMPT, "x", execution_generation=2),
    ],
)
def test_the_encoder_refuses_a_row_without_the_ids_its_kind_needs(asked: ApprovalAsked) -> None:
    with pytest.raises(ValueError, match="without"):
        decision(asked, Choice.DENY)


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
def test_a_frame_certainly_not_sent_returns_the_row_to_waiting(
    dialect: Dialect, make: Maker
) -> None:
    drv, key = with_row(dialect, make())
    _, _, frames = drv.decide(key, Choice.ONCE, write=False)
    drv.core.frame_failed(frames[0].frame_id, maybe_sent=False)
    drv.flush()
    row = drv.approval(key)
    assert (row.phase, row.answerable, row.outcome) == (ApprovalPhase.WAITING, True, None)
    sent, _, again = drv.decide(key, Choice.DENY)
    assert sent
    assert len(again) == 1
    assert again[0].frame_id != frames[0].frame_id


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
def test_a_frame_that_may_have_left_ends_unknown_and_is_never_resent(
    dialect: Dialect, make: Maker
) -> None:
    drv, key = with_row(dialect, make())
    _, _, frames = drv.decide(key, Choice.ONCE, write=False)
    drv.core.frame_failed(frames[0].frame_id, maybe_sent=True)
    drv.flush()
    assert drv.approval(key).outcome == outcomes.unknown()
    assert drv.approval(key).outcome.reason == "sent, outcome unknown — check the agent"  # type: ignore[union-attr]
    assert drv.decide(key, Choice.ONCE, confirm_stale=True)[0] is False
    assert len(drv.decisions()) == 1


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
@pytest.mark.parametrize(("drained", "written"), [(True, False), (True, True)])
def test_losing_the_connection_while_sending_ends_unknown(
    dialect: Dialect, make: Maker, drained: bool, written: bool
) -> None:
    drv, key = with_row(dialect, make())
    drv.core.decide(key, Choice.ONCE)
    frames = drv.core.data_to_send() if drained else []
    if written:
        for frame in frames:
            drv.core.frame_written(frame.frame_id)
    drv.core.connection_lost()
    drv.flush()
    outcome = drv.approval(key).outcome
    if dialect is Dialect.B and written:
        assert outcome == outcomes.decided(Choice.ONCE)  # written is final: no answer comes back
    else:
        assert outcome == outcomes.unknown()
    drv.connect(dialect)
    assert drv.decide(key, Choice.ONCE, confirm_stale=True)[0] is False
    assert not [f for f in drv.written if f.is_decision and f not in frames]


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
def test_a_decision_never_drained_before_the_loss_was_not_sent_and_waits_again(
    dialect: Dialect, make: Maker
) -> None:
    drv, key = with_row(dialect, make())
    drv.core.decide(key, Choice.ONCE)
    drv.core.connection_lost()
    drv.flush()
    row = drv.approval(key)
    assert row.outcome is None
    assert row.phase is ApprovalPhase.STALE
    assert drv.decisions() == []


@pytest.mark.parametrize(("dialect", "make"), DIALECTS)
def test_a_late_report_about_a_frame_from_a_lost_connection_changes_nothing(
    dialect: Dialect, make: Maker
) -> None:
    drv, key = with_row(dialect, make())
    _, _, frames = drv.decide(key, Choice.ONCE, write=False)
    drv.lose()
    drv.connect(dialect)
    before = drv.approval(key)
    drv.core.frame_failed(frames[0].frame_id, maybe_sent=False)
    drv.core.frame_written(frames[0].frame_id)
    drv.flush()
    assert drv.approval(key) == before
    assert before.outcome is not None
    assert before.outcome.kind is OutcomeKind.UNKNOWN


def test_deciding_an_unknown_key_sends_nothing() -> None:
    drv = Driver().connect(Dialect.B)
    sent, reason, frames = drv.decide("approval-999", Choice.ONCE)
    assert (sent, frames) == (False, [])
    assert "no such approval" in reason


def test_calls_get_integer_ids_and_their_answers_as_rpc_responded() -> None:
    drv = Driver().connect(Dialect.B)
    first = drv.core.call("ping", {})
    second = drv.core.call("session.list", {"limit": 5})
    drv.flush()
    assert second == first + 1
    assert json.loads(drv.written[-1].text) == {
        "jsonrpc": "2.0",
        "id": second,
        "method": "session.list",
        "params": {"limit": 5},
    }
    drv.feed({"jsonrpc": "2.0", "id": first, "result": {"pong": True}})
    assert drv.responded() == [RpcResponded(first, {"pong": True}, None)]


def test_a_call_while_disconnected_is_answered_at_once_and_sends_nothing() -> None:
    drv = Driver()
    rpc = drv.core.call("ping", {})
    drv.flush()
    assert drv.written == []
    (answer,) = drv.responded()
    assert answer.rpc_id == rpc
    assert answer.error is not None
    assert "not sent" in answer.error.message


def test_pending_calls_are_answered_with_an_error_when_the_connection_goes() -> None:
    drv = Driver().connect(Dialect.A)
    rpc = drv.core.call("session.list", {})
    drv.flush()
    drv.lose()
    (answer,) = drv.responded()
    assert answer.rpc_id == rpc
    assert answer.error is not None
    assert answer.error.code == -32097


@pytest.mark.parametrize("method", ["approval.respond", "request.answer"])
def test_decisions_cannot_be_smuggled_through_call(method: str) -> None:
    drv = Driver().connect(Dialect.A)
    with pytest.raises(ValueError, match="decide"):
        drv.core.call(method, {"session_id": "s", "choice": "yes"})
    assert drv.flush() == []


def test_an_error_about_an_unreadable_frame_is_reported_not_matched() -> None:
    drv = Driver().connect(Dialect.A)
    drv.feed({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
    assert drv.responded() == []
    assert drv.emitted[-1].reason == "the gateway could not read a frame"  # type: ignore[union-attr]
