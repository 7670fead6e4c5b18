"""Each row says why it was asked, where, and what became of its command (real transcripts)."""

from __future__ import annotations

import dataclasses

from desktop.core import outcomes
from desktop.core.events import CommandRan
from desktop.core.model import AskReason, Choice, RunKind, RunResult
from desktop.core.wire import RowKind, ToolCompleted
from tests.core.replay import PEER_A, PEER_B, Replay
from tests.core.test_lifecycle_table import Bench


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


def test_a_re_ask_after_a_deny_names_the_row_it_replaces() -> None:
    rows = by_command(Replay(PEER_B, "batch3_reask").run())
    first, again = rows["c"]
    assert first.result == RunResult(RunKind.NOT_USED)  # approved, thrown away: Hermes asked again
    assert again.reask_of == first.key
    because = again.asked_because
    assert (because.reason, because.earlier_key) == (AskReason.AFTER_DENY, first.key)
    assert because.earlier_position == first.position
    assert again.result == RunResult(RunKind.RAN, 0, "")
    [b] = rows["b -delete"]
    assert b.result == RunResult(RunKind.BLOCKED)


def test_a_re_ask_after_a_failure_says_the_exit_code() -> None:
    rows = by_command(Replay(PEER_B, "regate").run())
    r1 = rows["r1 && false"][0]
    assert r1.result == RunResult(RunKind.RAN, 1, "")
    first, again = rows["r2"][:2]
    assert first.result == RunResult(RunKind.NOT_USED)
    because = again.asked_because
    assert (because.reason, because.exit_code, because.earlier_key) == (
        AskReason.AFTER_FAILURE,
        1,
        first.key,
    )


def _reasked_after(end: object) -> AskReason:
    bench = Bench(RowKind.SERVER_REQUEST)
    first = bench.row
    if end == "expired":
        bench.lc.withdrawn(first, outcomes.expired())
    elif end == "withdrawn":
        bench.lc.withdrawn(first, outcomes.withdrawn("gone"))
    else:
        bench.lc.withdrawn(first, outcomes.decided(Choice.ONCE))
    again = bench.lc.asked(dataclasses.replace(bench.asked, reply_id="srq-2"), 1)
    assert again.reask_of == first.key
    return again.asked_because.reason


def test_re_ask_reasons_after_a_timeout_a_withdrawal_or_nothing_said() -> None:
    assert _reasked_after("expired") is AskReason.AFTER_TIMEOUT
    assert _reasked_after("withdrawn") is AskReason.AFTER_WITHDRAWAL
    assert _reasked_after("approved") is AskReason.AGAIN


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
