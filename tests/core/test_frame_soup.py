"""Random frame soup: the core never raises and never breaks its promises.

Hypothesis mixes plausible frames of all three dialects (approvals, cancels, settlements, tool
and turn events, session info, answers to random request ids), junk, clock jumps, reconnects,
write failures and clicks on random rows. After every step the invariants must hold:

* a decision is sent for a 0.19.0 (FIFO) row only if it was its session's head at that moment;
* ``decide`` queues exactly one frame when it says ``sent`` and none otherwise, and never two
  decision frames for one row;
* an outcome, once given, never changes; ``ApprovalRequested`` comes once per row.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, note, settings, target
from hypothesis import strategies as st

from desktop.core.events import ApprovalRequested
from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect, Outcome
from tests.core.frames import (
    DENIED,
    TIMED_OUT,
    Driver,
    a_approval,
    b_approval,
    c_approval,
    cancel,
    error,
    event,
    message_complete,
    result,
    settled,
    tool_complete,
    tool_start,
    wire_of,
)

sessions = st.sampled_from(["s1", "s2"])
srqs = st.sampled_from(["srq-1", "srq-2", "srq-3"])
prompts = st.sampled_from(["p1", "p2", "p3"])
tools = st.sampled_from(["t1", "t2", ""])
commands = st.sampled_from(["rm -rf a", "rm -rf b", "chmod 777 c"])
rpc_ids = st.integers(min_value=1, max_value=40)

outcomes_a = st.sampled_from([None, DENIED, TIMED_OUT])
turn_ends = st.sampled_from(["complete", "interrupted"])


def _info(session_id: str, running: bool) -> dict[str, Any]:
    return event("session.info", session_id, {"running": running, "stored_session_id": "st"})


def _snapshot(rpc_id: int, session_id: str) -> dict[str, Any]:
    body = {"session_id": session_id, "running": True, "open_requests": [], "prompts": []}
    return result(rpc_id, body)


def _server_request(srq: str, method: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": srq, "method": method, "params": {}}


def _refusal(rpc_id: int, code: int) -> dict[str, Any]:
    return error(rpc_id, code, "x", "not_found" if code == 4001 else "")


frames = st.one_of(
    st.builds(a_approval, commands, sessions),
    st.builds(b_approval, srqs, commands, sessions),
    st.builds(c_approval, prompts, st.integers(1, 3), commands, sessions),
    st.builds(cancel, srqs, st.sampled_from(["timeout", "resolved", "x"]), sessions),
    st.builds(lambda p, s: settled(p, session_id=s), prompts, sessions),
    st.builds(lambda t, s, e: tool_complete(t, s, error=e), tools, sessions, outcomes_a),
    st.builds(tool_start, tools, sessions),
    st.builds(lambda s: event("message.start", s), sessions),
    st.builds(message_complete, sessions, turn_ends),
    st.builds(_info, sessions, st.booleans()),
    st.builds(lambda s: event("session.reclaimed", "", {"session_id": s}), sessions),
    st.builds(lambda s: event("session.replay_gap", s, {}), sessions),
    st.builds(lambda i, n: result(i, {"resolved": n}), rpc_ids, st.integers(0, 2)),
    st.builds(lambda i, v: result(i, {"status": v}), rpc_ids, st.sampled_from(["resolved", "x"])),
    st.builds(_refusal, rpc_ids, st.sampled_from([4009, 4001, -32601])),
    st.builds(_snapshot, rpc_ids, sessions),
    st.builds(_server_request, srqs, st.sampled_from(["tour", "approval"])),
    st.text(max_size=30),
    st.binary(max_size=30),
)

operations = st.one_of(
    st.tuples(st.just("feed"), frames),
    st.tuples(st.just("advance"), st.floats(min_value=0, max_value=70)),
    st.tuples(st.just("decide"), st.integers(0, 12), st.sampled_from(list(Choice)), st.booleans()),
    st.tuples(st.just("lose")),
    st.tuples(st.just("open"), st.sampled_from([Dialect.A, Dialect.B, Dialect.C])),
    st.tuples(st.just("unsent"), st.booleans()),
    st.tuples(
        st.just("call"),
        st.sampled_from(["ping", "session.interrupt", "session.close", "config.get"]),
    ),
)


def is_fifo(drv: Driver, row: Approval) -> bool:
    return wire_of(drv.core, row.key).fifo


def fifo_head(drv: Driver, rows: tuple[Approval, ...], session_id: str) -> Approval | None:
    """The oldest open FIFO row of the session (rows are listed in arrival order)."""
    return next(
        (
            r
            for r in rows
            if is_fifo(drv, r)
            and r.session_id == session_id
            and r.phase is not ApprovalPhase.RESOLVED
        ),
        None,
    )


def apply(drv: Driver, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "feed":
        frame = op[1]
        drv.feed(frame if isinstance(frame, str | bytes) else json.dumps(frame))
    elif kind == "advance":
        drv.advance(op[1])
    elif kind == "lose":
        drv.lose()
    elif kind == "open":
        drv.connect(op[1])
    elif kind == "unsent":
        drv.core.decide("approval-1", Choice.ONCE)
        for frame in drv.core.data_to_send():
            drv.written.append(frame)
            drv.core.frame_failed(frame.frame_id, maybe_sent=op[1])
        drv.flush()
    elif kind == "call":
        drv.core.call(op[1], {"session_id": "s1"})
        drv.flush()


def run_soup(start: Dialect, ops: list[tuple[Any, ...]]) -> None:
    drv = Driver().connect(start)
    outcomes: dict[str, Outcome] = {}
    decided: set[str] = set()
    fifo_answers = 0
    for op in ops:
        if op[0] == "decide":
            rows = drv.core.approvals()
            if not rows:
                continue
            row = rows[op[1] % len(rows)]
            head = fifo_head(drv, rows, row.session_id)
            answer = drv.core.decide(row.key, op[2], confirm_stale=op[3])
            # a poll an earlier answer queued may go out here too: it answers nothing
            new = [frame for frame in drv.flush() if frame.is_decision]
            assert len(new) == (1 if answer.sent else 0)
            if answer.sent:
                assert row.key not in decided
                decided.add(row.key)
                if is_fifo(drv, row):
                    fifo_answers += 1
                    assert drv.core.dialect is Dialect.A
                    assert head is not None
                    assert head.key == row.key
                    assert json.loads(new[0].text)["params"]["choice"] == op[2].value
        elif op[0] == "reply":
            asked = [f.rpc_id for f in drv.written if f.is_decision and f.rpc_id is not None]
            if asked:
                drv.feed(result(asked[-1], {"resolved": op[1]}))
        else:
            apply(drv, op)
        for approval in drv.core.approvals():
            if approval.outcome is not None:
                assert outcomes.setdefault(approval.key, approval.outcome) == approval.outcome
                assert approval.phase is ApprovalPhase.RESOLVED
    target(float(fifo_answers), label="FIFO answers sent")  # steer towards the risky path
    note(f"{fifo_answers} FIFO answers, {len(decided)} answers in all")
    requested = [e.approval.key for e in drv.emitted if isinstance(e, ApprovalRequested)]
    assert len(requested) == len(set(requested))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([Dialect.A, Dialect.B, Dialect.C]), st.lists(operations, max_size=50))
def test_random_frame_soup_never_raises_nor_answers_a_non_head(
    start: Dialect, ops: list[tuple[Any, ...]]
) -> None:
    run_soup(start, ops)


a_frames = st.one_of(
    st.builds(a_approval, commands, sessions),
    st.builds(lambda t, s, e: tool_complete(t, s, error=e), tools, sessions, outcomes_a),
    st.builds(tool_start, tools, sessions),
    st.builds(message_complete, sessions, turn_ends),
    st.builds(lambda i, n: result(i, {"resolved": n}), rpc_ids, st.integers(0, 2)),
)
a_operations = st.one_of(
    st.tuples(st.just("feed"), a_frames),
    st.tuples(st.just("decide"), st.integers(0, 12), st.sampled_from(list(Choice)), st.booleans()),
    st.tuples(st.just("advance"), st.floats(min_value=0, max_value=30)),
    st.tuples(st.just("lose")),
    st.tuples(st.just("open"), st.just(Dialect.A)),
    st.tuples(st.just("reply"), st.integers(0, 1)),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(a_operations, max_size=60))
def test_0_19_soup_only_ever_answers_the_head(ops: list[tuple[Any, ...]]) -> None:
    run_soup(Dialect.A, ops)
