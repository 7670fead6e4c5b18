"""The decision recorder as plain calls on a real journal: a line per decision, written with the
outcome the gateway reported, at the time the person decided; bounded; never a token."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from desktop import logsetup
from desktop.core import outcomes
from desktop.core.events import CommandRan
from desktop.core.model import (
    NO_CONTEXT,
    ApprovalPhase,
    Choice,
    Outcome,
    OutcomeKind,
    RunKind,
    RunResult,
)
from desktop.journal import Journal, Surface
from desktop.model.bridge_events import CommandReport, DecisionMade
from desktop.model.decision_log import (
    LINE_LIMIT,
    RECENT_LIMIT,
    DecisionRecorder,
    entry_details,
    entry_line,
    outcome_text,
)
from tests.model.builders import approval

CANARY = "canary-TOKEN-9d41e2"
TZ = timezone(timedelta(hours=1))
DECIDED = datetime(2026, 11, 29, 14, 2, 3, tzinfo=TZ)
RESOLVED = DECIDED + timedelta(seconds=7)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def journal(tmp_path):
    return Journal(tmp_path / "data", clock=lambda: RESOLVED)


@pytest.fixture
def clock():
    return Clock(DECIDED)


@pytest.fixture
def recorder(journal, clock):
    return DecisionRecorder(journal, clock=clock)


def made(key="k1", choice=Choice.ONCE, surface=Surface.DIALOG_BUTTON, *, sent=True, **extra):
    fields = dict(
        gateway_id="g1",
        gateway_name="Local",
        key=key,
        choice=choice,
        surface=surface,
        sent=sent,
        reason="" if sent else "the command timed out",
        session_id="s1",
        session_title="Fix the build",
        command="rm -rf build",
    )
    fields.update(extra)
    return DecisionMade(**fields)


def resolved(key="k1", kind=OutcomeKind.APPROVED, choice=Choice.ONCE, reason="", result=None):
    row = approval(key, phase=ApprovalPhase.RESOLVED)
    return dataclasses.replace(row, outcome=Outcome(kind, choice, reason), result=result)


def ran(command="rm -rf /tmp/scratch/d", exit_code=0, approval_note="", yolo=False):
    result = RunResult(RunKind.RAN, exit_code)
    report = CommandRan("s1", command, result, NO_CONTEXT, approval_note)
    return CommandReport("g1", "Local", "Fix the build", report, yolo)


def lines(journal):
    return [json.loads(line) for line in journal.path.read_text().splitlines()]


def test_a_decision_is_written_only_when_the_gateway_reports_its_outcome(recorder, journal):
    assert recorder.decided(made()) is None
    assert not journal.path.exists()
    recorder.approval_changed("g1", approval("k1", phase=ApprovalPhase.SENDING))
    assert not journal.path.exists()
    entry = recorder.approval_changed("g1", resolved())
    assert entry is not None
    [line] = lines(journal)
    assert line.pop("id") == entry.id
    assert line == {
        "time": "2026-11-29T14:02:03+01:00",  # when the person decided, not when it resolved
        "gateway_id": "g1",
        "gateway_name": "Local",
        "session_id": "s1",
        "session_title": "Fix the build",
        "command": "rm -rf build",
        "choice": "once",
        "surface": "dialog.button",
        "outcome": "approved (once)",
        "result": "",  # Hermes has not said yet what became of the command
    }
    assert recorder.close() == []  # nothing left waiting


def test_the_outcome_is_the_gateways_not_the_persons_choice(recorder, journal):
    recorder.decided(made(choice=Choice.ONCE))
    recorder.approval_changed(
        "g1", resolved(kind=OutcomeKind.WITHDRAWN, choice=None, reason="settled elsewhere")
    )
    [line] = lines(journal)
    assert (line["choice"], line["outcome"]) == ("once", "withdrawn: settled elsewhere")


def test_a_refused_decision_is_written_at_once_as_not_sent(recorder, journal):
    recorder.decided(made(sent=False))
    [line] = lines(journal)
    assert line["outcome"] == "not sent: the command timed out"
    assert recorder.close() == []  # nothing left waiting


def test_resolutions_nobody_decided_here_write_nothing(recorder, journal):
    recorder.approval_changed("g2", resolved())
    recorder.approval_changed(
        "g1", resolved(kind=OutcomeKind.WITHDRAWN, choice=None, reason="cancelled")
    )
    assert not journal.path.exists()


def test_a_row_that_expired_unanswered_is_journaled_as_blocked(recorder, journal):
    recorder.approval_changed(
        "g1",
        resolved(kind=OutcomeKind.EXPIRED, choice=None, reason="nobody answered"),
        "Local",
        "Fix the build",
    )
    [line] = lines(journal)
    assert (line["choice"], line["surface"], line["session_title"]) == (
        "none",
        "nobody",
        "Fix the build",
    )
    assert line["outcome"].startswith("expired")


def test_removing_a_gateway_or_quitting_closes_waiting_decisions_as_unknown(recorder, journal):
    recorder.decided(made("k1"))
    recorder.decided(made("k2", gateway_id="g2"))
    written = recorder.gateway_removed("g1", "the gateway was removed in Settings")
    assert [e.outcome for e in written] == ["unknown: the gateway was removed in Settings"]
    recorder.close()
    assert [line["outcome"] for line in lines(journal)] == [
        "unknown: the gateway was removed in Settings",
        "unknown: Hermes Tray quit before the gateway reported it",
    ]
    assert recorder.close() == []  # nothing left waiting


def test_recent_starts_from_the_file_and_stays_bounded(journal, clock):
    first = DecisionRecorder(journal, clock=clock)
    for n in range(RECENT_LIMIT + 3):
        first.decided(made(f"k{n}", command=f"echo {n}"))
        first.approval_changed("g1", resolved(f"k{n}"))
    assert len(first.recent) == RECENT_LIMIT
    assert first.recent[0].command == f"echo {RECENT_LIMIT + 2}"  # newest first
    again = DecisionRecorder(journal, clock=clock)  # next start: read from the file
    assert [e.command for e in again.recent] == [e.command for e in first.recent]


def test_a_token_in_a_command_never_reaches_the_file(recorder, journal):
    logsetup.register_secret(CANARY)  # as TokenStore(on_secret=...) does in the app
    recorder.decided(made(command=f"curl -H 'X-Token: {CANARY}' http://x/?token={CANARY}"))
    recorder.approval_changed("g1", resolved())
    text = journal.path.read_text()
    assert CANARY not in text
    assert "***" in text


def test_menu_lines_say_when_what_how_it_ended_and_where(journal, recorder):
    recorder.decided(made(command="rm -rf build"))
    entry = recorder.approval_changed("g1", resolved())
    assert entry_line(entry, DECIDED) == "14:02 ✓ rm -rf build — approved (once) · Fix the build"
    assert entry_line(entry, DECIDED + timedelta(days=2)) == (
        "29 Nov ✓ rm -rf build — approved (once) · Fix the build"
    )
    long = dataclasses.replace(entry, command="h" * 60 + "t" * 40, outcome="denied")
    long = dataclasses.replace(long, session_title="Make every flaky test pass again · webshop")
    assert entry_line(long, DECIDED) == (  # the command's end and the folder are kept
        "14:02 ✗ " + "h" * 21 + "…" + "t" * 10 + " — denied · Make every flaky… · webshop"
    )
    unnamed = dataclasses.replace(entry, session_title="")
    assert entry_line(unnamed, DECIDED).endswith(" · session s1")
    assert "Fix the build on Local" in entry_details(entry)
    assert "dialog.button" in entry_details(entry)


def test_outcome_words():
    assert outcome_text(Outcome(OutcomeKind.APPROVED, Choice.SESSION)) == "approved (session)"
    assert outcome_text(Outcome(OutcomeKind.EXPIRED, None, "timed out")) == "expired: timed out"
    assert outcome_text(Outcome(OutcomeKind.UNKNOWN, None, "connection lost")) == (
        "unknown: connection lost"
    )


def test_a_decision_whose_socket_died_is_journalled_as_fate_unknown_never_approved(
    recorder, journal
):
    """Written into a socket that then died: SENDING is no outcome, UNKNOWN is recorded."""
    assert recorder.decided(made()) is None
    assert recorder.approval_changed("g1", approval("k1", phase=ApprovalPhase.SENDING)) is None
    assert not journal.path.exists()  # "I pressed Approve" is not what happened
    entry = recorder.approval_changed(
        "g1", resolved(kind=OutcomeKind.UNKNOWN, choice=None, reason="the connection was lost")
    )
    assert entry is not None
    assert entry.outcome == "unknown: the connection was lost"
    assert [row["outcome"] for row in lines(journal)] == ["unknown: the connection was lost"]
    assert " ○ " in entry_line(entry, DECIDED)


def test_what_became_of_the_command_is_appended_to_its_decision(recorder, journal):
    recorder.decided(made())
    entry = recorder.approval_changed("g1", resolved())
    assert entry.result == ""
    assert recorder.approval_changed("g1", resolved()) is None  # told again, nothing new
    later = recorder.approval_changed("g1", resolved(result=RunResult(RunKind.RAN, 2)))
    assert later is not None
    assert (later.id, later.result) == (entry.id, "ran, exit 2")
    decision, result = lines(journal)
    assert (decision["outcome"], result) == (
        "approved (once)",
        {"time": RESOLVED.isoformat(), "decision": entry.id, "result": "ran, exit 2"},
    )
    assert recorder.recent == (later,)
    assert entry_line(later, DECIDED) == (
        "14:02 ✓ rm -rf build — approved (once), ran, exit 2 · Fix the build"
    )
    assert "The command: ran, exit 2" in entry_details(later)
    again = recorder.approval_changed("g1", resolved(result=RunResult(RunKind.RAN, 2)))
    assert again is None  # the same result told twice is one line
    assert len(lines(journal)) == 2
    restarted = DecisionRecorder(journal, clock=Clock(DECIDED))
    assert [e.result for e in restarted.recent] == ["ran, exit 2"]


@pytest.mark.parametrize(
    ("kind", "reason", "result", "stored", "shown"),
    [
        (OutcomeKind.DENIED, "", RunKind.BLOCKED, "blocked", "denied"),
        (OutcomeKind.EXPIRED, "timeout", RunKind.TIMED_OUT, "timed out", "expired: timeout"),
        (
            OutcomeKind.WITHDRAWN,
            outcomes.SETTLED_ELSEWHERE,
            RunKind.WITHDRAWN,
            "answered elsewhere",
            f"withdrawn: {outcomes.SETTLED_ELSEWHERE}",
        ),
        (
            OutcomeKind.APPROVED,
            "",
            RunKind.NOT_USED,
            "not used — asked again",
            "approved (once), not used — asked again",
        ),
    ],
)
def test_a_result_known_at_the_outcome_is_on_the_decisions_line(
    recorder, journal, kind, reason, result, stored, shown
):
    recorder.decided(made())
    choice = Choice.ONCE if kind is OutcomeKind.APPROVED else None
    entry = recorder.approval_changed("g1", resolved(kind=kind, choice=choice, reason=reason,
                                                     result=RunResult(result)))  # fmt: skip
    [line] = lines(journal)
    assert line["result"] == entry.result == stored
    assert entry_line(entry, DECIDED).endswith(f" — {shown} · Fix the build")


def test_a_late_run_after_a_withdrawal_is_appended(recorder, journal):
    recorder.decided(made())
    withdrawn = RunResult(RunKind.WITHDRAWN)
    gone = resolved(kind=OutcomeKind.WITHDRAWN, choice=None, reason="interrupted", result=withdrawn)
    first = recorder.approval_changed("g1", gone)
    ran_late = dataclasses.replace(gone, result=RunResult(RunKind.RAN))
    later = recorder.approval_changed("g1", ran_late)
    assert (first.result, later.result) == ("withdrawn", "ran")  # no exit code reported: none shown
    assert [line.get("result") for line in lines(journal)] == ["withdrawn", "ran"]


def test_results_of_rows_nobody_decided_here_write_nothing(recorder, journal):
    recorder.approval_changed("g1", resolved(result=RunResult(RunKind.RAN, 0)))
    assert not journal.path.exists()


def test_a_new_gateway_core_numbering_its_rows_anew_is_not_linked_to_old_lines(recorder, journal):
    recorder.decided(made())
    recorder.approval_changed("g1", resolved())
    recorder.gateway_removed("g1", "the gateway was removed in Settings")
    recorder.approval_changed("g1", resolved(result=RunResult(RunKind.RAN, 1)))
    assert len(lines(journal)) == 1


def test_a_risky_command_hermes_ran_unasked_is_journaled_with_its_session(recorder, journal):
    entry = recorder.command_ran(ran())
    assert entry is not None
    [line] = lines(journal)
    assert {k: line[k] for k in ("choice", "surface", "outcome", "result", "session_title")} == {
        "choice": "none",
        "surface": "hermes",
        "outcome": "not asked",
        "result": "ran, exit 0",
        "session_title": "Fix the build",
    }
    assert entry_line(entry, DECIDED) == (
        "14:02 ○ rm -rf /tmp/scratch/d — not asked, ran, exit 0 · Fix the build"
    )
    yolo = recorder.command_ran(ran(exit_code=1, yolo=True))
    assert (yolo.outcome, yolo.result) == ("not asked (YOLO on)", "ran, exit 1")


def test_a_harmless_command_is_no_decision_unless_hermes_says_it_asked(recorder, journal):
    assert recorder.command_ran(ran("ls -la /tmp")) is None
    assert not journal.path.exists()
    note = "Command required approval (delete in root path) and was approved by the user."
    entry = recorder.command_ran(ran("ls -la /tmp", approval_note=note))
    assert entry.outcome == f"asked elsewhere: {note}"
    line = entry_line(entry, DECIDED)
    assert line.endswith(", ran, exit 0 · Fix the build")  # the result survives the cut
    assert len(line) <= LINE_LIMIT


def test_menu_lines_are_bounded_whatever_the_gateway_sent(recorder):
    recorder.decided(made(command="c" * 5000, session_title="t" * 500))
    entry = recorder.approval_changed(
        "g1", resolved(kind=OutcomeKind.WITHDRAWN, choice=None, reason="r" * 500,
                       result=RunResult(RunKind.RAN, -15))
    )  # fmt: skip
    line = entry_line(entry, DECIDED)
    assert len(line) <= LINE_LIMIT
    assert ", ran, exit -15 · ttt" in line
