"""Each row says why it was asked, where, and what became of its command (real transcripts)."""

from __future__ import annotations

import dataclasses

from desktop.core import outcomes
from desktop.core.approvals import Row
from desktop.core.events import CommandRan
from desktop.core.model import Approval, AskedBecause, AskReason, Choice, RunKind, RunResult
from desktop.core.wire import RowKind, ToolCompleted
from tests.core.replay import PEER_A, PEER_B, Replay
from tests.core.test_approval_table import Bench


def by_command(replay: Replay) -> dict[str, list]:
    rows: dict[str, list] = {}
    for row in replay.rows():
        rows.setdefault(row.command.rsplit("/", 1)[-1], []).append(row)
    return rows


def test_0_19_rows_carry_context_and_what_ran() -> None:
    replay = Replay(PEER_A, "three").run()
    rows = by_command(replay)
    [a], [b], [c] = rows["a"], rows["b -delete"], rows["c"]
    assert a.context.tool == "terminal"
    assert a.context.agent_message == "I'll clean up three scratch directories."
    assert a.context.cwd  # from session.info
    assert a.result == RunResult(RunKind.RAN, 0, "")
    assert b.result == RunResult(RunKind.BLOCKED)
    assert c.result == RunResult(RunKind.RAN, 0, "")
    assert all(r.asked_because.reason is AskReason.FIRST for r in (a, b, c))
    [ran] = [e for e in replay.events if isinstance(e, CommandRan)]
    assert ran.command == "rm -rf /tmp/hermes-scratch/d"  # allowed for the session: no row
    assert (ran.result.kind, ran.result.exit_code, ran.context.tool) == (RunKind.RAN, 0, "terminal")
    assert ran.approval_note == ""  # Hermes did not ask: the session allowed it


def test_a_command_asked_while_the_tray_was_away_carries_hermes_note_that_it_asked() -> None:
    replay = Replay(PEER_A, "reconnect").run()
    [ran] = [e for e in replay.events if isinstance(e, CommandRan)]
    assert ran.command == "rm -rf /tmp/hermes-scratch/s3"
    assert ran.approval_note == (
        "Command required approval (delete in root path) and was approved by the user."
    )


def cause(again: Approval) -> tuple[AskReason, str, int | None, int | None]:
    why = again.asked_because
    return why.reason, why.cause_key, why.cause_position, why.exit_code


def test_a_re_ask_after_a_deny_names_the_denied_row_not_the_one_it_replaces() -> None:
    rows = by_command(Replay(PEER_B, "batch3_reask").run())  # #3 once, #1 once, #2 deny
    first, again = rows["c"]
    [b] = rows["b -delete"]
    assert first.result == RunResult(RunKind.NOT_USED)  # approved, thrown away: Hermes asked again
    assert (again.reask_of, again.asked_because.earlier_key) == (first.key, first.key)
    assert cause(again) == (AskReason.AFTER_DENY, b.key, 1, None)
    assert again.asked_because.cause_batch_id == b.batch_id
    assert again.result == RunResult(RunKind.RAN, 0, "")
    assert b.result == RunResult(RunKind.BLOCKED)


def test_every_re_ask_after_a_failure_names_the_failed_row_and_its_exit_code() -> None:
    rows = by_command(Replay(PEER_B, "regate").run())  # two sessions: #1 exits 1
    failed = rows["r1 && false"]
    assert [r.result for r in failed] == [RunResult(RunKind.RAN, 1, "")] * 2
    reasks = [r for r in rows["r2"] + rows["r3 -delete"] if r.reask_of]
    assert len(reasks) == 4
    for again in reasks:
        [r1] = [r for r in failed if r.session_id == again.session_id]
        assert cause(again) == (AskReason.AFTER_FAILURE, r1.key, 0, 1)
        assert again.context.tool == "terminal"


def test_a_re_ask_after_timeouts_names_the_first_row_that_timed_out() -> None:
    rows = by_command(Replay(PEER_B, "timeout").run())
    x1, x2 = rows["x1"], rows["x2 -delete"]
    # all three unanswered: x2 and x3 are asked again because x1 timed out (not their own)
    unanswered = [r for r in rows["x2 -delete"] + rows["x3"] if r.reask_of][:2]
    assert [cause(r) for r in unanswered] == [(AskReason.AFTER_TIMEOUT, x1[0].key, 0, None)] * 2
    # x1 ran: x3 is asked again because x2 timed out
    [last] = [r for r in rows["x3"] if r.reask_of and r.session_id == x1[1].session_id]
    assert x1[1].result == RunResult(RunKind.RAN, 0, "")
    assert cause(last) == (AskReason.AFTER_TIMEOUT, x2[-1].key, 1, None)


def _reasked_after(end: str) -> AskedBecause:
    bench = Bench(RowKind.SERVER_REQUEST)
    first = bench.row
    if end == "expired":
        bench.lc.withdrawn(first, outcomes.expired())
    elif end == "withdrawn":
        bench.lc.withdrawn(first, outcomes.withdrawn("gone"))
    elif end == "failed":
        bench.lc.withdrawn(first, outcomes.decided(Choice.ONCE))
        bench.lc.tool_completed(ToolCompleted("s1", "t1", "terminal", exit_code=2))
    else:
        bench.lc.withdrawn(first, outcomes.decided(Choice.ONCE))
    again = bench.lc.asked(dataclasses.replace(bench.asked, reply_id="srq-2"), 1)
    assert again.reask_of == first.key
    return again.asked_because


def test_without_an_earlier_failed_row_the_replaced_rows_own_end_says_why() -> None:
    expired, failed = _reasked_after("expired"), _reasked_after("failed")
    assert (expired.reason, expired.cause_key, expired.cause_position) == (
        AskReason.AFTER_TIMEOUT,
        expired.earlier_key,
        0,
    )
    assert (failed.reason, failed.exit_code) == (AskReason.AFTER_FAILURE, 2)
    for end in ("withdrawn", "approved"):  # a withdrawal is Hermes taking it back, no cause
        assert _reasked_after(end) == AskedBecause(AskReason.AGAIN, "approval-1")


def _batch_of_three(bench: Bench) -> list[Row]:
    """Three rows asked up front (B) in a session with no tool running yet."""
    asked = dataclasses.replace(bench.asked, session_id="s2")
    return [
        bench.lc.asked(dataclasses.replace(asked, reply_id=f"srq-{n}", command=f"rm -rf /{n}"), 1)
        for n in (1, 2, 3)
    ]


def test_a_sibling_withdrawn_or_after_the_replaced_row_is_no_cause() -> None:
    bench = Bench(RowKind.SERVER_REQUEST)
    lc = bench.lc
    one, two, three = _batch_of_three(bench)
    lc.withdrawn(one, outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE))
    lc.withdrawn(three, outcomes.decided(Choice.DENY))  # a later row: it re-gates nothing before
    lc.withdrawn(two, outcomes.decided(Choice.ONCE))
    again = lc.asked(dataclasses.replace(two.asked, reply_id="srq-9"), 1)
    assert again.asked_because == AskedBecause(AskReason.AGAIN, two.key)


def test_a_row_that_ran_and_is_asked_again_was_not_re_gated() -> None:
    bench = Bench(RowKind.SERVER_REQUEST)
    lc = bench.lc
    one, two, _ = _batch_of_three(bench)
    lc.withdrawn(one, outcomes.decided(Choice.DENY))
    lc.withdrawn(two, outcomes.decided(Choice.ONCE))
    lc.tool_started("s2", "t2", "terminal", two.asked.command)
    lc.tool_completed(ToolCompleted("s2", "t2", "terminal", exit_code=0))
    again = lc.asked(dataclasses.replace(two.asked, reply_id="srq-9"), 1)
    assert again.asked_because == AskedBecause(AskReason.AGAIN, two.key)  # the agent ran it again


def test_output_head_is_bounded_to_the_first_lines() -> None:
    bench = Bench(RowKind.FIFO)
    row = bench.row
    bench.lc.decided(row, Choice.ONCE, 1)
    bench.lc.answered(row, outcomes.decided(Choice.ONCE))
    output = "\n".join(f"line {n}" for n in range(50))
    bench.lc.tool_completed(ToolCompleted("s1", "t1", "terminal", exit_code=3, output=output))
    assert row.result is not None
    assert row.result.output_head.splitlines() == [f"line {n}" for n in range(5)]
    assert row.result.exit_code == 3
