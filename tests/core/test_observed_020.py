"""0.20 sessions another client runs: observed through ``approval.pending``, never resumed.

The list and pending shapes are the ones measured on axisrow 0.20.1.2
(``tests/realhermes/test_axisrow_facts.py``): ``session.active_list`` rows carry ``id``,
``session_key``, ``status`` and ``title``; pending entries carry no ``choices``.
"""

from __future__ import annotations

from typing import Any

from desktop.core import decisions, outcomes
from desktop.core.connection import MAX_OBSERVED, listed_sessions
from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.core.frames import Driver, a_approval, error, result

MINE = "mine0001"
THEIRS = "deff3b59"
RID = "805c63813b5e4e569ed85ada53dff513"
RID2 = "01c784b8231547c0a437fd62576f53e2"


def row(session_id: str = THEIRS, status: str = "working", **extra: Any) -> dict[str, Any]:
    return {
        "id": session_id,
        "session_key": f"20261202_041810_{session_id[:6]}",
        "status": status,
        "title": "Peer harness session",
        "preview": "one",
        "current": False,
        **extra,
    }


def entry(request_id: str = RID, command: str = "rm -rf /tmp/w1") -> dict[str, Any]:
    """A pending entry: the event's payload with its id, without ``choices`` (measured)."""
    payload = dict(a_approval(command, request_id=request_id)["params"]["payload"])
    del payload["choices"]
    return {**payload, "allow_session": True}


def connected() -> Driver:
    return Driver(follows=(MINE,)).connect(Dialect.HERMES020)


def listed(drv: Driver, *rows: dict[str, Any]) -> Driver:
    drv.core.observe_sessions({"sessions": list(rows)})
    drv.flush()
    return drv


def answer_pending(drv: Driver, *entries: dict[str, Any], session_id: str = THEIRS) -> None:
    polls = [p for p in drv.requests("approval.pending") if p["params"]["session_id"] == session_id]
    drv.feed(result(polls[-1]["id"], {"approvals": list(entries)}))


def polls(drv: Driver) -> int:
    return len(drv.requests("approval.pending"))


def test_another_clients_session_is_observed_asked_at_once_and_answered_by_id() -> None:
    drv = listed(connected(), row(), row(MINE))
    assert drv.core.observed_sessions == {THEIRS}
    assert drv.requests("session.resume") == [], "resuming would take the window's stream"
    [poll] = drv.requests("approval.pending")
    assert poll["params"] == {"session_id": THEIRS}
    assert drv.core.session(THEIRS).title == "Peer harness session"
    assert drv.core.session(THEIRS).running
    answer_pending(drv, entry())
    [asked] = drv.rows()
    assert (asked.session_id, asked.command, asked.answerable) == (THEIRS, "rm -rf /tmp/w1", True)
    assert asked.choices == (Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY)
    assert asked.context.cwd == ""
    assert asked.context.agent_message == ""
    assert drv.decide(asked.key, Choice.DENY)[0]
    [decision] = drv.decisions()
    assert decision["params"] == {"session_id": THEIRS, "choice": "deny", "request_id": RID}
    drv.feed(result(decision["id"], {"resolved": 1}))
    assert drv.row().outcome == outcomes.decided(Choice.DENY)


def test_an_entry_without_a_valid_id_is_shown_but_never_answered() -> None:
    drv = listed(connected(), row())
    answer_pending(drv, entry(request_id=""))
    [asked] = drv.rows()
    assert not asked.answerable
    assert asked.blocked_reason == decisions.WRONG_SHAPE
    assert not drv.decide(asked.key, Choice.ONCE)[0]
    assert drv.decisions() == []


def test_the_plan_asks_working_sessions_open_rows_more_often_and_idle_ones_not_at_all() -> None:
    settings = connected().settings
    drv = listed(connected(), row())
    answer_pending(drv)  # nothing waits yet
    assert polls(drv) == 1
    drv.advance(settings.observe_poll_interval)
    assert polls(drv) == 2, "a working session is asked every observe_poll_interval"
    answer_pending(drv, entry())
    drv.advance(settings.open_poll_interval)
    assert polls(drv) == 3, "with a row open it is asked sooner"
    drv.advance(settings.open_poll_interval)
    assert polls(drv) == 3, "never a second list while one is on its way"
    answer_pending(drv)  # answered in the window meanwhile: the row ends, and is not answerable
    [ended] = drv.rows()
    assert ended.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert not ended.answerable
    listed(drv, row(status="idle"))
    assert not drv.core.session(THEIRS).running
    due = drv.core.next_deadline()
    assert due is not None
    assert due - drv.now <= settings.observe_linger_poll_interval
    drv.advance(settings.observe_linger + settings.observe_linger_poll_interval)
    count = polls(drv)
    answer_pending(drv)
    drv.advance(settings.observe_linger_poll_interval)
    assert polls(drv) == count, "idle past the linger: not asked"
    assert drv.core.next_deadline() is None, "an idle gateway is not woken"
    listed(drv, row())  # it works again
    assert polls(drv) == count + 1


def test_an_idle_session_is_asked_once_when_first_listed_and_after_a_reconnect() -> None:
    drv = listed(connected(), row(status="idle"), row("s0000002", status="starting"))
    assert polls(drv) == 2
    for sid in (THEIRS, "s0000002"):
        answer_pending(drv, session_id=sid)
    assert drv.core.next_deadline() is None, "never seen working: not asked again"
    drv.advance(drv.settings.observe_linger)
    listed(drv, row(status="idle"), row("s0000002", status="starting"))
    assert polls(drv) == 2, "listed again, still idle: not asked"
    drv.lose()
    drv.connect(Dialect.HERMES020)
    asked = [p["params"]["session_id"] for p in drv.requests("approval.pending")[2:]]
    assert sorted(asked) == sorted([MINE, THEIRS, "s0000002"])


def test_a_turn_between_two_lists_still_counts_as_work() -> None:
    """The list said idle both times, but the message count moved: a turn ran in between, so
    its sub-agents may ask now; the session is asked on the linger plan."""
    drv = listed(connected(), row(status="idle", message_count=2))
    answer_pending(drv)
    assert drv.core.next_deadline() is None
    listed(drv, row(status="idle", message_count=2))
    assert drv.core.next_deadline() is None, "nothing moved: still not asked"
    before = polls(drv)
    listed(drv, row(status="idle", message_count=4))
    assert polls(drv) == before + 1, "asked at once"
    answer_pending(drv)
    due = drv.core.next_deadline()
    assert due is not None
    drv.advance(due - drv.now)
    assert polls(drv) == before + 2, "and again on the linger plan"


def test_a_session_new_since_the_first_list_counts_as_work() -> None:
    """Created after the tray listed the gateway, it may have run its whole turn before the next
    list (measured on axisrow: the children of a ``delegate_task`` ask after that): it is asked
    at once and then on the linger plan, though every list says idle."""
    drv = listed(connected(), row("s0000001", status="idle", message_count=2))
    answer_pending(drv, session_id="s0000001")
    assert drv.core.next_deadline() is None
    listed(
        drv, row("s0000001", status="idle", message_count=2), row(status="idle", message_count=4)
    )
    asked = [p["params"]["session_id"] for p in drv.requests("approval.pending")]
    assert asked == ["s0000001", THEIRS], "the new one is asked at once"
    answer_pending(drv)
    due = drv.core.next_deadline()
    assert due is not None
    assert due - drv.now <= drv.settings.observe_linger_poll_interval
    drv.advance(due - drv.now)
    asked = [p["params"]["session_id"] for p in drv.requests("approval.pending")]
    assert asked == ["s0000001", THEIRS, THEIRS], "and again on the linger plan, it alone"


def test_sessions_on_one_plan_are_asked_together() -> None:
    ids = [f"s{n:07d}" for n in range(20)]
    drv = listed(connected(), *(row(sid) for sid in ids))
    for sid in ids:
        answer_pending(drv, session_id=sid)
    drv.now += 0.37  # off the grid
    drv.core.tick()
    drv.flush()
    due = drv.core.next_deadline()
    assert due is not None
    before = polls(drv)
    drv.advance(due - drv.now)
    assert polls(drv) == before + len(ids), "one wake-up asks every working session"


def test_a_session_that_leaves_the_list_ends_its_rows() -> None:
    drv = listed(connected(), row())
    answer_pending(drv, entry())
    listed(drv)
    [gone] = drv.rows()
    assert gone.outcome == outcomes.withdrawn(outcomes.SESSION_GONE)
    assert drv.core.session(THEIRS) is None
    assert drv.core.observed_sessions == frozenset()


def test_a_pending_list_refused_as_session_not_found_ends_its_rows() -> None:
    drv = listed(connected(), row(), row("s0000002"))
    answer_pending(drv, entry())
    drv.advance(drv.settings.open_poll_interval)
    [poll] = [p for p in drv.requests("approval.pending") if p["params"]["session_id"] == THEIRS][
        -1:
    ]
    drv.feed(error(poll["id"], 4001, "session not found"))
    [gone] = drv.rows()
    assert gone.outcome == outcomes.withdrawn(outcomes.SESSION_GONE)
    assert drv.core.observed_sessions == {"s0000002"}
    [other] = [p for p in drv.requests("approval.pending") if p["params"]["session_id"] != THEIRS]
    drv.feed(error(other["id"], -32603, "internal error"))  # not "gone": still observed
    assert drv.core.observed_sessions == {"s0000002"}


def test_stop_observing_makes_rows_read_only_and_stops_asking() -> None:
    drv = listed(connected(), row())
    answer_pending(drv, entry())
    drv.core.stop_observing()
    drv.flush()
    [shown] = drv.rows()
    assert (shown.answerable, shown.blocked_reason) == (False, decisions.NOT_FOLLOWED)
    count = polls(drv)
    drv.advance(drv.settings.observe_poll_interval)
    assert polls(drv) == count, "only the open row's own (slow) reconciliation remains"
    drv.core.stop_observing()  # nothing observed: nothing happens
    assert drv.core.observed_sessions == frozenset()


def test_reconnect_asks_again_without_resuming_and_confirms_what_still_waits() -> None:
    drv = listed(connected(), row())
    answer_pending(drv, entry(), entry(RID2, "rm -rf /tmp/w2"))
    drv.lose()
    assert [r.phase for r in drv.rows()] == [ApprovalPhase.STALE] * 2
    drv.connect(Dialect.HERMES020)
    resumed = [r["params"]["session_id"] for r in drv.requests("session.resume")]
    assert drv.core.session(THEIRS).stored_session_id not in resumed
    answer_pending(drv, entry(RID2, "rm -rf /tmp/w2"))
    first, second = drv.rows()
    assert first.outcome == outcomes.withdrawn(outcomes.NOT_PENDING)
    assert (second.phase, second.answerable) == (ApprovalPhase.WAITING, True)


def test_a_gateway_back_on_another_protocol_observes_nothing() -> None:
    drv = listed(connected(), row())
    drv.lose()
    drv.connect(Dialect.A)
    assert drv.core.observed_sessions == frozenset()
    listed(drv, row())  # a list on another dialect is not read
    assert drv.core.observed_sessions == frozenset()


def test_resuming_an_observed_session_makes_it_followed() -> None:
    drv = listed(connected(), row())
    drv.core.watch_session(THEIRS)
    assert drv.core.observed_sessions == frozenset()
    listed(drv, row())  # now the tray's own: left alone
    assert drv.core.observed_sessions == frozenset()


def test_hostile_lists_are_bounded() -> None:
    rows: list[Any] = [
        "not an object",
        {"id": 7},
        {"id": "x" * 129},
        {"id": "ok", "session_key": "k" * 500, "title": "t" * 900, "status": "w" * 99},
    ]
    live = listed_sessions({"sessions": rows})
    assert list(live) == ["ok"]
    key, status, title, count = live["ok"]
    assert (len(key), len(status), len(title), count) == (128, 20, 200, None)
    assert listed_sessions({"sessions": [{"id": "ok", "message_count": True}]})["ok"][3] is None
    many = listed_sessions({"sessions": [{"id": f"s{n}"} for n in range(MAX_OBSERVED + 5)]})
    assert len(many) == MAX_OBSERVED
    assert listed_sessions({"sessions": "nope"}) == {}


def test_a_resume_the_app_asks_for_makes_an_observed_session_followed() -> None:
    drv = listed(connected(), row())
    rpc_id = drv.core.resume_session(THEIRS)
    drv.flush()
    assert rpc_id is not None
    drv.feed(result(rpc_id, {"session_id": THEIRS, "info": {"running": True}}))
    assert drv.core.observed_sessions == frozenset()
    assert drv.core.session(THEIRS) is not None
