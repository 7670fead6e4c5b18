"""Real gateway conversations replayed through the core, checked against their own timeline.

Each case replays one recorded transcript (``tests/fixtures/transcripts``) with
``tests.core.replay`` and compares the core's final state with what ``transcript_oracle``
reads from the same file. A few scenario checks pin the hazards the recordings caught.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.events import HandshakeCompleted, ProtocolErrorReceived
from desktop.core.model import ApprovalPhase, Dialect, Outcome
from tests.core import transcript_oracle
from tests.core.frames import wire_of
from tests.core.replay import PEER_A, PEER_B, Replay, events_of, frames, notes

CASES = [
    *[(PEER_A, name, None) for name in (
        "always", "badchoice", "code", "concurrent", "interrupt", "reconnect",
        "reconnect_late", "three", "timeout", "usage", "yolo",
    )],
    *[(PEER_B, name, None) for name in (
        "batch3", "batch3_reask", "batch3ok", "cancel", "extras", "mixed", "nocaps",
        "readterm", "reconnect", "regate", "source", "timeout", "todo_usage", "yolo",
    )],
    *[(PEER_B, "viewers", conn) for conn in (8, 9, 10)],
]  # fmt: skip
IDS = [
    f"{'A' if peer == PEER_A else 'B'}-{name}{'' if conn is None else f'-conn{conn}'}"
    for peer, name, conn in CASES
]


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def replayed(request: pytest.FixtureRequest) -> tuple[Replay, transcript_oracle.Facts]:
    peer, name, conn = request.param
    replay = Replay(peer, name, conn).run()
    facts = transcript_oracle.read(replay.lines, conn, peer_b=peer == PEER_B)
    return replay, facts


def outcome_of(outcome: Outcome | None) -> tuple[object, object] | None:
    return None if outcome is None else (outcome.kind, outcome.choice)


def test_the_handshake_finds_the_recorded_dialect(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, _ = replayed
    expected = Dialect.A if replay.peer == PEER_A else Dialect.B
    dialects = {event.dialect for event in replay.events if isinstance(event, HandshakeCompleted)}
    assert dialects == {expected}


def test_every_recorded_approval_is_one_row_with_the_outcome_the_timeline_implies(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, facts = replayed
    rows = replay.rows()
    assert [(r.session_id, r.command, r.pattern_keys) for r in rows] == [
        (a.session_id, a.command, a.keys) for a in facts.approvals
    ]
    assert [outcome_of(r.outcome) for r in rows] == [a.outcome for a in facts.approvals]
    for row in rows:
        assert (row.phase is ApprovalPhase.RESOLVED) is (row.outcome is not None)


def test_batches_and_re_asks_follow_the_timeline(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, facts = replayed
    rows = replay.rows()
    starts = [
        i == 0 or rows[i].batch_id != rows[i - 1].batch_id or rows[i].position == 0
        for i in range(len(rows))
    ]
    assert [row.position == 0 for row in rows] == [a.new_batch for a in facts.approvals]
    assert starts == [a.new_batch for a in facts.approvals]
    assert [bool(row.reask_of) for row in rows] == [a.reask for a in facts.approvals]


def test_sessions_end_with_the_title_usage_plan_and_yolo_last_reported(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, facts = replayed
    sessions = {s.session_id: s for s in replay.core.sessions()}
    for session_id, title in facts.titles.items():
        assert sessions[session_id].title == title
    for session_id, (total, calls) in facts.usage.items():
        assert (sessions[session_id].usage.total, sessions[session_id].usage.calls) == (
            total,
            calls,
        )
    for session_id, todos in facts.todos.items():
        shown = [(t.id, t.content, t.status.value) for t in sessions[session_id].todos.items]
        assert shown == todos
    for session_id, yolo in facts.yolo.items():
        assert sessions[session_id].yolo == yolo


def test_decision_frames_only_ever_answer_what_the_harness_answered_in_time(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, facts = replayed
    expected = []
    for approval in facts.approvals:
        if approval.answer is None:
            continue
        if replay.peer == PEER_A:
            params = {"session_id": approval.session_id, "choice": approval.answer.value}
            expected.append({"method": "approval.respond", "params": params})
        else:
            expected.append({"id": approval.srq, "result": {"choice": approval.answer.value}})
    sent = [
        {k: v for k, v in body.items() if k in ("method", "params", "result")}
        | ({"id": body["id"]} if "result" in body else {})
        for body in replay.sent_decisions()
    ]
    assert sorted(json.dumps(b, sort_keys=True) for b in sent) == sorted(
        json.dumps(b, sort_keys=True) for b in expected
    )


def test_nothing_real_is_ever_a_protocol_error(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, _ = replayed
    assert [e for e in replay.events if isinstance(e, ProtocolErrorReceived)] == []


def test_every_window_request_is_declined_once_as_not_shown(
    replayed: tuple[Replay, transcript_oracle.Facts],
) -> None:
    replay, _ = replayed
    received = {
        f["id"]
        for f in frames(replay.lines, "in", replay.conn)
        if f.get("method") not in (None, "event", "approval")
    }
    errors = [(f["id"], f["error"]["code"]) for f in replay.sent_json() if "error" in f]
    assert sorted(errors) == sorted((srq, 4404) for srq in received)


# -- scenario checks: the hazards the recordings caught -------------------------------------


def test_a_0_19_late_click_after_the_servers_timeout_sends_nothing() -> None:
    replay = Replay(PEER_A, "timeout").run()
    late = [f for f in frames(replay.lines, "out") if f.get("method") == "approval.respond"]
    assert late  # the harness did click, after the tool had completed "timed out"
    (decision,) = replay.decisions
    assert decision.result is not None
    assert decision.result.sent is False
    assert replay.sent_decisions() == []


def test_invalid_choice_strings_that_0_19_would_approve_are_never_sent() -> None:
    replay = Replay(PEER_A, "badchoice").run()
    sent_choices = [
        f.get("params", {}).get("choice")
        for f in frames(replay.lines, "out")
        if f.get("method") == "approval.respond"
    ]
    assert set(sent_choices) - {"once", "session", "always", "deny"}  # the harness tried
    assert all(d.result is not None and not d.result.sent for d in replay.decisions)
    assert replay.sent_decisions() == []


def test_answers_after_request_cancel_send_nothing() -> None:
    replay = Replay(PEER_B, "cancel").run()
    cancelled = {p["payload"]["id"] for p in events_of(replay.lines, "request.cancel")}
    late = [
        d
        for d in replay.decisions
        if d.approval is not None and wire_of(replay.core, d.approval.key).srq_id in cancelled
    ]
    assert late
    assert all(d.result is not None and not d.result.sent for d in late)
    assert not [b for b in replay.sent_decisions() if b["id"] in cancelled]


def test_a_re_ask_after_a_failure_is_never_answered_by_the_earlier_decision() -> None:
    replay = Replay(PEER_B, "regate").run()
    reasks = [row for row in replay.rows() if row.reask_of]
    assert reasks
    for row in reasks:
        earlier = replay.approval(row.reask_of)
        answers = [
            d for d in replay.decisions if d.approval is not None and d.approval.key == row.key
        ]
        assert len(answers) == 1  # answered only by its own click
        assert earlier is None or earlier.key != row.key
        assert wire_of(replay.core, row.key).srq_id != (
            wire_of(replay.core, earlier.key).srq_id if earlier else ""
        )


def test_reconnect_maps_redelivered_requests_onto_the_rows_already_shown() -> None:
    replay = Replay(PEER_B, "reconnect").run()
    srq_ids = [wire_of(replay.core, row.key).srq_id for row in replay.rows()]
    assert len(srq_ids) == len(set(srq_ids))
    redelivered = notes(replay.lines, "reconnect: resume snapshot")[0]["open_requests"]
    for item in redelivered:
        assert item["id"] in srq_ids


def test_each_resubscribe_names_the_stored_session_with_source_desktop() -> None:
    replay = Replay(PEER_A, "reconnect").run()
    stored = notes(replay.lines, "approval pending")[0]["session_key"]
    resumes = [json.loads(f.text) for f in replay.sent if '"session.resume"' in f.text]
    assert resumes
    assert {json.dumps(r["params"], sort_keys=True) for r in resumes} == {
        json.dumps(
            {
                "close_on_disconnect": False,
                "omit_messages": True,
                "session_id": stored,
                "source": "desktop",
            },
            sort_keys=True,
        )
    }
