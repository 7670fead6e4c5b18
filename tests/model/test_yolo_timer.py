"""Time-boxed YOLO as plain calls: phases, deadlines, turn ends, reconnects, labels, wake-ups."""

from __future__ import annotations

import pytest

from desktop.model.yolo_timer import (
    BoxKind,
    Phase,
    YoloCheck,
    YoloTimeboxes,
)

KEY = ("g1", "s1")
MIN = 60.0


def started(kind=BoxKind.MINUTES, *, yolo_on=False, running=False, now=1000.0):
    boxes = YoloTimeboxes()
    boxes.start(KEY, kind, now, yolo_on=yolo_on, running=running)
    return boxes


def test_a_minutes_box_arms_then_runs_and_comes_due_at_its_deadline():
    boxes = started()
    assert boxes.box(KEY).phase is Phase.ARMING
    assert boxes.label(KEY, 1000.0) == "YOLO turning on · 15 min left"
    assert boxes.session_changed(KEY, yolo_on=True, running=False) == []
    assert boxes.box(KEY).phase is Phase.ACTIVE
    assert boxes.label(KEY, 1000.0 + 3 * MIN + 1) == "YOLO on · 12 min left"
    assert boxes.due(1000.0 + 15 * MIN - 0.001) == []
    assert boxes.due(1000.0 + 15 * MIN) == [KEY]
    assert boxes.box(KEY).phase is Phase.ENDING
    assert boxes.due(1000.0 + 16 * MIN) == []  # due once
    assert boxes.label(KEY, 0) == "YOLO on · time is up, turning it off…"


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (900, "15 min left"),
        (899, "15 min left"),
        (61, "2 min left"),
        (60, "1 min left"),
        (59.9, "less than a minute left"),
        (0, "less than a minute left"),
    ],
)
def test_remaining_words_round_up_to_the_minute(seconds, words):
    boxes = started(yolo_on=True)  # ends at 1000 + 15 min
    assert boxes.label(KEY, 1000.0 + 15 * MIN - seconds) == f"YOLO on · {words}"


def test_a_confirmed_off_ends_the_box_and_still_on_is_reported_once():
    boxes = started(yolo_on=True)
    boxes.due(1000.0 + 15 * MIN)
    assert boxes.checked(KEY, YoloCheck.OFF) is YoloCheck.OFF
    assert boxes.box(KEY) is None
    boxes = started(yolo_on=True)
    boxes.due(1000.0 + 15 * MIN)
    assert boxes.checked(KEY, YoloCheck.STILL_ON) is YoloCheck.STILL_ON
    assert boxes.box(KEY) is None
    assert boxes.checked(KEY, YoloCheck.STILL_ON) is None  # no box, no second notice


def test_yolo_turned_off_elsewhere_drops_an_active_box_but_not_an_arming_one():
    boxes = started()
    boxes.session_changed(KEY, yolo_on=False, running=False)  # the "on" has not landed yet
    assert boxes.box(KEY).phase is Phase.ARMING
    boxes.session_changed(KEY, yolo_on=True, running=False)
    boxes.session_changed(KEY, yolo_on=False, running=False)  # off from the menu or Hermes
    assert boxes.box(KEY) is None
    assert boxes.next_wakeup(1000.0) is None


def test_a_failed_turn_on_leaves_nothing_to_end():
    boxes = started()
    boxes.turning_on_failed(KEY)
    assert not boxes.labels(0)


def test_a_turn_box_ends_when_the_running_turn_ends():
    boxes = started(BoxKind.TURN, yolo_on=True, running=True)
    assert boxes.label(KEY, 0) == "YOLO on · until this turn ends"
    assert boxes.session_changed(KEY, yolo_on=True, running=True) == []
    assert boxes.session_changed(KEY, yolo_on=True, running=False) == [KEY]
    assert boxes.box(KEY).phase is Phase.ENDING


def test_a_turn_box_chosen_while_idle_covers_the_next_turn():
    boxes = started(BoxKind.TURN, yolo_on=False, running=False)
    assert boxes.label(KEY, 0) == "YOLO turning on · for the next turn"
    assert boxes.session_changed(KEY, yolo_on=True, running=False) == []  # still idle
    assert boxes.label(KEY, 0) == "YOLO on · for the next turn"
    assert boxes.session_changed(KEY, yolo_on=True, running=True) == []
    assert boxes.label(KEY, 0) == "YOLO on · until this turn ends"
    assert boxes.session_changed(KEY, yolo_on=True, running=False) == [KEY]


def test_turn_boxes_never_need_a_timer_and_minutes_boxes_wake_per_minute():
    turn = started(BoxKind.TURN, yolo_on=True, running=True)
    assert turn.next_wakeup(1000.0) is None
    boxes = started(yolo_on=True)
    assert boxes.next_wakeup(1000.0) == pytest.approx(1000.0 + MIN)  # 15 -> 14 min left
    assert boxes.next_wakeup(1000.0 + 14.5 * MIN) == pytest.approx(1000.0 + 15 * MIN)
    boxes.due(1000.0 + 15 * MIN)
    assert boxes.next_wakeup(1000.0 + 15 * MIN) is None  # ENDING: the check drives it now


def test_unreachable_at_the_deadline_waits_for_the_gateway_then_ends():
    boxes = started(yolo_on=True)
    boxes.due(1000.0 + 20 * MIN)
    assert boxes.checked(KEY, YoloCheck.UNREACHABLE) is YoloCheck.UNREACHABLE
    assert boxes.box(KEY).phase is Phase.OFF_PENDING
    assert boxes.label(KEY, 0).startswith("YOLO time is up")
    assert boxes.yolo_sessions() == []  # nothing to send at quit while unreachable
    assert boxes.reconnected("other", {"s1"}) == []
    assert boxes.reconnected("g1", set()) == []  # session not back (yet)
    assert boxes.reconnected("g1", {"s1"}) == [KEY]
    assert boxes.box(KEY).phase is Phase.ENDING


def test_an_off_pending_box_ends_when_its_session_reports_again():
    boxes = started(yolo_on=True)
    boxes.due(1000.0 + 20 * MIN)
    boxes.checked(KEY, YoloCheck.UNREACHABLE)
    assert boxes.session_changed(KEY, yolo_on=True, running=False) == [KEY]


def test_gone_sessions_and_gateways_take_their_boxes_with_them():
    boxes = started()
    boxes.start(("g2", "s9"), BoxKind.TURN, 0, yolo_on=True, running=True)
    boxes.session_gone(KEY)
    assert list(boxes.labels(0)) == [("g2", "s9")]
    boxes.gateway_gone("g2")
    assert not boxes.labels(0)


def test_labels_and_quit_list_cover_every_box():
    boxes = started(yolo_on=True)
    boxes.start(("g2", "s9"), BoxKind.TURN, 1000.0, yolo_on=True, running=True)
    assert boxes.labels(1000.0) == {
        KEY: "YOLO on · 15 min left",
        ("g2", "s9"): "YOLO on · until this turn ends",
    }
    assert sorted(boxes.yolo_sessions()) == [KEY, ("g2", "s9")]
