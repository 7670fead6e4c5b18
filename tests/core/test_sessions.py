"""Sessions: info, title, status, usage, plan, YOLO; following them across reconnects."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core import decisions, outcomes
from desktop.core.events import (
    NoticeReceived,
    ProtocolErrorReceived,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import (
    ApprovalPhase,
    Choice,
    Dialect,
    SessionState,
    SessionStatus,
    YoloSource,
    YoloState,
)
from desktop.core.session_state import SessionBook
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
    tool_complete,
)
from tests.core.replay import PEER_A, Replay


def session(drv: Driver, session_id: str = SID) -> SessionState:
    found = drv.core.session(session_id)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("info", "yolo"),
    [
        ({"yolo": False, "approval_mode": "manual"}, YoloState(False, YoloSource.OFF)),
        ({"yolo": True, "approval_mode": "manual"}, YoloState(True, YoloSource.SESSION)),
        ({"yolo": True, "approval_mode": "smart"}, YoloState(True, YoloSource.SESSION)),
        ({"yolo": True, "approval_mode": "off"}, YoloState(True, YoloSource.MODE_OFF)),
        ({"yolo": False, "approval_mode": "off"}, YoloState(True, YoloSource.MODE_OFF)),
        ({"approval_mode": "bogus"}, YoloState(False, YoloSource.OFF)),
    ],
)
def test_effective_yolo_and_its_source_come_from_session_info(
    info: dict[str, Any], yolo: YoloState
) -> None:
    drv = Driver().connect(Dialect.A).feed(event("session.info", SID, info))
    assert session(drv).yolo == yolo
    assert session(drv).approval_mode == (
        info["approval_mode"] if info["approval_mode"] != "bogus" else ""
    )


def test_session_info_fills_what_the_menu_shows() -> None:
    info = {
        "model": "fake-model",
        "cwd": "/work",
        "title": "Cleanup",
        "version": "0.19.0",
        "stored_session_id": STORED,
        "running": True,
        "usage": {"input": 10, "output": 2, "total": 12, "calls": 1, "context_percent": 3},
    }
    drv = Driver().connect(Dialect.A).feed(event("session.info", SID, info))
    state = session(drv)
    assert (state.model, state.cwd, state.title, state.version) == (
        "fake-model",
        "/work",
        "Cleanup",
        "0.19.0",
    )
    assert (state.stored_session_id, state.running, state.status) == (
        STORED,
        True,
        SessionStatus.WORKING,
    )
    assert (state.usage.total, state.usage.calls, state.usage.context_percent) == (12, 1, 3.0)


def test_status_is_working_then_waiting_on_you_then_idle() -> None:
    drv = Driver().connect(Dialect.B)
    drv.feed(event("message.start", SID))
    assert session(drv).status is SessionStatus.WORKING
    drv.feed(b_approval("srq-1"))
    assert session(drv).status is SessionStatus.WAITING
    assert SessionStatus.WAITING.value == "waiting on you"
    drv.decide(drv.row().key, Choice.ONCE)
    assert session(drv).status is SessionStatus.WORKING
    drv.feed(message_complete())
    assert session(drv).status is SessionStatus.IDLE


def test_one_session_changed_per_input_carrying_the_full_value() -> None:
    drv = Driver().connect(Dialect.A)
    drv.emitted.clear()
    info = {"title": "t", "model": "m", "running": True, "usage": {"total": 5}}
    drv.feed(event("session.info", SID, info))
    changes = drv.of_type(SessionChanged)
    assert len(changes) == 1
    assert changes[0].session == session(drv)


def test_titles_come_from_session_title_with_the_stored_id() -> None:
    drv = (
        Driver()
        .connect(Dialect.A)
        .feed(event("session.title", SID, {"session_id": STORED, "title": "Peer"}))
    )
    assert (session(drv).title, session(drv).stored_session_id) == ("Peer", STORED)


@pytest.mark.parametrize(
    "frame",
    [
        message_complete(input=7, output=3, total=10, calls=2),
        event("session.usage", SID, {"usage": {"input": 7, "output": 3, "total": 10, "calls": 2}}),
        event("session.usage", SID, {"api_calls": 2, "input_tokens": 7, "output_tokens": 3}),
        event("session.info", SID, {"usage": {"input": 7, "output": 3, "total": 10, "calls": 2}}),
    ],
)
def test_usage_arrives_in_every_shape(frame: dict[str, Any]) -> None:
    drv = Driver().connect(Dialect.B).feed(frame)
    usage = session(drv).usage
    assert (usage.input, usage.output, usage.total, usage.calls) == (7, 3, 10, 2)


def test_the_usage_rpc_is_folded_in_by_the_core() -> None:
    drv = Driver().connect(Dialect.A).feed(event("message.start", SID))
    rpc = drv.core.call("session.usage", {"session_id": SID})
    drv.flush()
    drv.feed(result(rpc, {"input": 3307, "output": 21, "total": 3328, "calls": 2}))
    assert (session(drv).usage.total, session(drv).usage.calls) == (3328, 2)


def test_plans_keep_the_highest_revision() -> None:
    drv = Driver().connect(Dialect.B)
    newer = {"todos": [{"id": "1", "content": "new", "status": "completed"}], "revision": 2}
    older = {"todos": [{"id": "1", "content": "old", "status": "pending"}], "revision": 1}
    drv.feed(event("todo.updated", SID, newer), event("todo.updated", SID, older))
    assert [item.content for item in session(drv).todos.items] == ["new"]
    drv.feed(tool_complete("c9", name="todo_list", todos=older["todos"], revision=1))
    assert session(drv).todos.revision == 2


def test_a_0_19_todo_tool_without_revision_replaces_the_plan() -> None:
    drv = Driver().connect(Dialect.A)
    for content in ("first", "second"):
        todos = [{"id": "1", "content": content, "status": "in_progress"}]
        drv.feed(tool_complete("c1", name="todo", todos=todos))
    assert [item.content for item in session(drv).todos.items] == ["second"]
    assert session(drv).todos.revision is None


@pytest.mark.parametrize(
    ("key", "answer", "mode", "yolo"),
    [
        (
            "yolo",
            {"key": "yolo", "value": "1", "scope": "session"},
            "",
            YoloState(True, YoloSource.SESSION),
        ),
        (
            "yolo",
            {"key": "yolo", "value": "1", "scope": "global"},
            "off",
            YoloState(True, YoloSource.MODE_OFF),
        ),
        ("yolo", {"key": "yolo", "value": "0", "scope": "global"}, "manual", YoloState()),
        ("yolo", {"key": "yolo", "value": "maybe"}, "", YoloState()),
        ("approvals.mode", {"key": "approvals.mode", "value": "smart"}, "smart", YoloState()),
    ],
)
def test_config_set_results_update_yolo_and_mode(
    key: str, answer: dict[str, Any], mode: str, yolo: YoloState
) -> None:
    drv = (
        Driver()
        .connect(Dialect.A)
        .feed(event("message.start", SID), event("message.start", "other"))
    )
    rpc = drv.core.call("config.set", {"session_id": SID, "key": key, "value": "x"})
    drv.flush()
    drv.feed(result(rpc, answer))
    assert (session(drv).approval_mode, session(drv).yolo) == (mode, yolo)
    if answer.get("scope") == "global":
        assert session(drv, "other").approval_mode == mode


def _yolo_set(drv: Driver, value: str) -> int:
    rpc = drv.core.call("config.set", {"session_id": SID, "key": "yolo", "value": value})
    drv.flush()
    return rpc


def _info(yolo: bool) -> dict[str, Any]:
    return event("session.info", SID, {"yolo": yolo, "approval_mode": "manual"})


ON, OFF = YoloState(True, YoloSource.SESSION), YoloState()


def test_yolo_turned_on_as_a_turn_ends_stays_on_despite_a_stale_session_info() -> None:
    """0.19.0, measured: the set's own session.info, then a stale one from the turn-ending
    thread, then the config.set result. The result came last and is what Hermes has."""
    drv = Driver().connect(Dialect.A).feed(event("message.start", SID), _info(False))
    rpc = _yolo_set(drv, "1")
    drv.feed(_info(True), _info(False))
    assert session(drv).yolo == OFF  # so far the stale report is the latest one
    drv.feed(result(rpc, {"key": "yolo", "value": "1", "scope": "session"}))
    assert session(drv).yolo == ON


def test_a_session_info_after_the_result_is_the_latest_report_and_wins() -> None:
    drv = Driver().connect(Dialect.A).feed(_info(False))
    rpc = _yolo_set(drv, "1")
    drv.feed(result(rpc, {"key": "yolo", "value": "1", "scope": "session"}))
    assert session(drv).yolo == ON
    drv.feed(_info(False))  # e.g. turned off from another viewer afterwards
    assert session(drv).yolo == OFF


def test_a_session_flag_turned_off_cannot_hide_a_bypass_hermes_still_reports() -> None:
    """HERMES_YOLO_MODE frozen on at the gateway's start: the set's own session.info says the
    bypass is still in effect, then the result says the *session* flag is off."""
    drv = Driver().connect(Dialect.A).feed(_info(True))
    rpc = _yolo_set(drv, "0")
    drv.feed(_info(True), result(rpc, {"key": "yolo", "value": "0", "scope": "session"}))
    assert session(drv).yolo == ON


def test_turning_yolo_off_shows_off_whatever_stale_report_came_before_the_set_s_own() -> None:
    drv = Driver().connect(Dialect.A).feed(_info(True))
    rpc = _yolo_set(drv, "0")
    drv.feed(_info(True), _info(False))  # a stale report, then the set's own
    drv.feed(result(rpc, {"key": "yolo", "value": "0", "scope": "session"}))
    assert session(drv).yolo == OFF


def test_a_report_from_before_the_call_does_not_keep_yolo_on() -> None:
    drv = Driver().connect(Dialect.A).feed(_info(True))
    rpc = _yolo_set(drv, "0")
    drv.feed(result(rpc, {"key": "yolo", "value": "0", "scope": "session"}))  # info follows
    assert session(drv).yolo == OFF


def test_the_recorded_yolo_transcript_shows_every_config_result_it_answered() -> None:
    """tests/fixtures/transcripts/hermes-0.19.0/yolo.jsonl (shared/transcripts): each set's
    answer is what the menu shows right after it, across its stale-report pairs."""
    replay = Replay(PEER_A, "yolo")
    asked: dict[object, str] = {}
    checked = 0
    for line in replay.lines:
        replay.step(line)
        frame = line.get("frame", {})
        if line.get("dir") == "out" and frame.get("method") == "config.set":
            asked[frame["id"]] = frame["params"]["session_id"]
        elif line.get("dir") == "in" and frame.get("id") in asked and "result" in frame:
            shown = replay.core.session(asked[frame["id"]])
            assert shown is not None
            assert shown.yolo.effective is (frame["result"]["value"] == "1"), line["t"]
            checked += 1
    assert checked >= 4


def test_the_global_mode_from_config_get_applies_to_every_session() -> None:
    drv = (
        Driver().connect(Dialect.A).feed(event("message.start", "s1"), event("message.start", "s2"))
    )
    rpc = drv.core.call("config.get", {"key": "approvals.mode"})
    drv.flush()
    drv.feed(result(rpc, {"value": "off"}))
    assert {s.yolo for s in drv.core.sessions()} == {YoloState(True, YoloSource.MODE_OFF)}


def test_a_created_session_is_followed_and_resumed_after_a_reconnect() -> None:
    drv = Driver().connect(Dialect.A)
    rpc = drv.core.call("session.create", {"cols": 100, "source": "desktop"})
    drv.flush()
    drv.feed(
        result(
            rpc,
            {"session_id": SID, "stored_session_id": STORED, "info": {"model": "m", "lazy": True}},
        )
    )
    assert (session(drv).stored_session_id, session(drv).model) == (STORED, "m")
    drv.lose()
    drv.connect(Dialect.A)
    assert drv.request("session.resume")["params"]["session_id"] == STORED


def test_only_a_create_reply_makes_a_session_started_here_even_after_it_was_watched() -> None:
    """B: a list answered before the create reply lets another client's follow it first."""
    drv = Driver(follows=()).connect(Dialect.B)
    rpc = drv.core.call("session.create", {"cols": 100, "source": "desktop"})
    drv.flush()
    drv.core.watch_session(SID, stored_session_id=STORED)  # adopted from a list
    drv.core.resume_session(SID)
    drv.flush()
    drv.core.watch_session("0ther5e5", stored_session_id="20261206_0")
    assert not drv.core.started_here(SID)
    drv.feed(result(rpc, {"session_id": SID, "stored_session_id": STORED, "info": {}}))
    resume = drv.request("session.resume")
    drv.feed(result(resume["id"], {"session_id": SID, "session_key": STORED, "running": False}))
    assert (drv.core.started_here(SID), drv.core.started_here("0ther5e5")) == (True, False)
    assert not drv.core.started_here("never-seen")


def test_sessions_seen_only_in_events_are_followed_once_their_stored_id_is_known() -> None:
    drv = Driver().connect(Dialect.B).feed(event("message.start", "s-no-stored"))
    drv.feed(event("session.info", SID, {"stored_session_id": STORED, "running": True}))
    drv.lose()
    drv.connect(Dialect.B)
    assert [r["params"]["session_id"] for r in drv.requests("session.resume")] == [STORED]


def test_an_unwatched_session_is_not_resumed() -> None:
    drv = Driver().connect(Dialect.A)
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.core.unwatch_session(SID)
    drv.core.unwatch_session("never-seen")
    drv.lose()
    drv.connect(Dialect.A)
    assert drv.requests("session.resume") == []
    assert drv.core.resume_session(SID) is not None  # an explicit resume still works


def test_a_resume_under_a_new_runtime_id_moves_the_session_and_drops_its_old_requests() -> None:
    drv = Driver().connect(Dialect.A)
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(event("session.title", SID, {"title": "kept"}), a_approval())
    drv.lose()
    drv.connect(Dialect.A)
    drv.feed(
        result(drv.request("session.resume")["id"], {"session_id": "n3w1d000", "running": True})
    )
    assert drv.core.session(SID) is None
    moved = session(drv, "n3w1d000")
    assert (moved.title, moved.stored_session_id) == ("kept", STORED)
    assert drv.of_type(SessionRemoved)[-1] == SessionRemoved(SID, "resumed as n3w1d000")
    assert drv.row().outcome == outcomes.withdrawn(outcomes.SESSION_GONE)


@pytest.mark.parametrize(("code", "gone"), [(4007, True), (4001, True), (5000, False)])
def test_a_refused_app_resume_drops_the_session_only_when_it_is_gone(code: int, gone: bool) -> None:
    drv = Driver().connect(Dialect.A)
    drv.core.watch_session(SID, stored_session_id=STORED)
    rpc = drv.core.call("session.resume", {"session_id": STORED})
    drv.flush()
    drv.feed({"jsonrpc": "2.0", "id": rpc, "error": {"code": code, "message": "no"}})
    assert (drv.core.session(SID) is None) is gone
    assert drv.responded()[-1].error is not None


def test_a_reclaimed_session_is_removed_and_its_requests_withdrawn() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"))
    reclaim = {"session_id": SID, "stored_session_id": STORED, "reason": "ws_orphan_reap"}
    drv.feed(
        event("session.reclaimed", "", reclaim),
        event("session.reclaimed", "", {**reclaim, "session_id": "unknown"}),
    )
    assert drv.core.sessions() == ()
    assert drv.of_type(SessionRemoved) == [SessionRemoved(SID, "reclaimed (ws_orphan_reap)")]
    assert drv.row().outcome == outcomes.withdrawn(outcomes.SESSION_GONE)


def test_closing_a_session_through_call_removes_it() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-1"))
    rpc = drv.core.call("session.close", {"session_id": SID})
    drv.flush()
    drv.feed(result(rpc, {"closed": True}))
    assert drv.of_type(SessionRemoved) == [SessionRemoved(SID, "closed")]
    assert drv.row().outcome == outcomes.withdrawn(outcomes.SESSION_GONE)


@pytest.mark.parametrize(
    ("frame", "notice"),
    [
        (
            event("error", SID, {"message": "model failed"}),
            NoticeReceived(SID, "model failed", "error"),
        ),
        (
            event(
                "notification.show", SID, {"text": "Summarizing", "level": "warning", "key": "k"}
            ),
            NoticeReceived(SID, "Summarizing", "warning"),
        ),
        (event("notification.show", SID, {"text": "hi"}), NoticeReceived(SID, "hi", "info")),
    ],
)
def test_notices_reach_the_app(frame: dict[str, Any], notice: NoticeReceived) -> None:
    drv = Driver().connect(Dialect.A).feed(frame)
    assert drv.of_type(NoticeReceived) == [notice]


@pytest.mark.parametrize(
    "frame",
    [
        event("sessions.changed", "", {}),
        event("projects.changed", "", {}),
        event("thinking.delta", SID, {"text": "…"}),
        event("brand.new.thing", SID, {"x": 1}),
        event("session.title", "", {"title": "no session"}),
        event("error", SID, {}),
    ],
)
def test_events_the_tray_does_not_use_change_nothing(frame: dict[str, Any]) -> None:
    drv = Driver().connect(Dialect.B)
    drv.emitted.clear()
    drv.feed(frame)
    assert [e for e in drv.emitted if not isinstance(e, SessionChanged)] == []
    assert drv.of_type(ProtocolErrorReceived) == []


@pytest.mark.parametrize("dialect", [Dialect.A, Dialect.B, Dialect.C])
def test_an_approval_for_a_session_the_tray_does_not_follow_is_read_only(
    dialect: Dialect,
) -> None:
    """First seen in the request itself, or unwatched: shown, never answered, and said why."""
    frame = {
        Dialect.A: a_approval("rm -rf /", session_id="stranger"),
        Dialect.B: b_approval("srq-0000000000aa", session_id="stranger"),
        Dialect.C: c_approval("p-9", session_id="stranger"),
    }[dialect]
    drv = Driver().connect(dialect).feed(frame)
    row = drv.row()
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, False)
    assert row.blocked_reason == decisions.NOT_FOLLOWED
    assert drv.decide(row.key, Choice.ONCE)[:2] == (False, decisions.NOT_FOLLOWED)
    assert drv.decisions() == []
    drv.core.watch_session("stranger")  # the person chose to follow it
    assert drv.row().answerable
    drv.core.unwatch_session("stranger")
    assert drv.row().blocked_reason == decisions.NOT_FOLLOWED


def test_who_waits_holds_for_sessions_seen_after_it_was_set_and_for_renamed_ones() -> None:
    """Only the sessions whose waiting changed are visited; the others must still agree."""
    book = SessionBook()
    book.ensure("a")
    book.set_waiting(frozenset({"a", "later"}))
    book.ensure("later")  # its open rows came before the session did
    assert book.get("later").status is SessionStatus.WAITING  # type: ignore[union-attr]
    book.rename("a", "a-resumed")  # the rows that wait are under the old id
    assert book.get("a-resumed").status is SessionStatus.IDLE  # type: ignore[union-attr]
    book.set_waiting(frozenset({"a-resumed"}))
    statuses = {s.session_id: s.status for s in book.all()}
    assert statuses == {"a-resumed": SessionStatus.WAITING, "later": SessionStatus.IDLE}


def test_sessions_that_start_waiting_together_are_announced_in_the_order_they_were_seen() -> None:
    book = SessionBook()
    names = [f"session-{n:02d}" for n in range(20)]
    for name in names:
        book.ensure(name)
    book.drain_changed()
    book.set_waiting(frozenset(reversed(names)))
    assert [s.session_id for s in book.drain_changed()] == names
