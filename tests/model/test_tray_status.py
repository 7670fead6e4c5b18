"""tray_status: one pure function, every precedence rule in a table."""

from __future__ import annotations

import pytest

from desktop.core.model import ApprovalPhase, SessionStatus
from desktop.model.snapshot import Link
from desktop.model.tray_status import tray_status
from tests.model.builders import ICON_NAMES, YOLO_SESSION, approval, gateway, session, snap

WORKING = session("s1", status=SessionStatus.WORKING)
IDLE = session("s1")
YOLO = session("s2", yolo=YOLO_SESSION)
WAIT = approval("k1")

CASES = [
    # (id, snapshot, icon, count)
    ("nothing configured", snap(), "disconnected", 0),
    ("offline", snap(gateway(link=Link.OFFLINE)), "disconnected", 0),
    ("connecting", snap(gateway(link=Link.CONNECTING)), "connecting", 0),
    (
        "one offline one connecting",
        snap(gateway("a", link=Link.OFFLINE), gateway("b", link=Link.CONNECTING)),
        "connecting",
        0,
    ),
    ("failed", snap(gateway(link=Link.FAILED, error="token refused")), "error", 0),
    ("idle", snap(gateway(sessions=(IDLE,))), "idle", 0),
    ("connected, no sessions", snap(gateway()), "idle", 0),
    ("working", snap(gateway(sessions=(WORKING,))), "working", 0),
    ("yolo beats working", snap(gateway(sessions=(WORKING, YOLO))), "yolo", 0),
    ("waiting beats yolo", snap(gateway(sessions=(YOLO,), approvals=(WAIT,))), "waiting", 1),
    (
        "waiting beats error elsewhere",
        snap(gateway("a", approvals=(WAIT,)), gateway("b", link=Link.FAILED)),
        "waiting",
        1,
    ),
    (
        "error beats yolo",
        snap(gateway("a", sessions=(YOLO,)), gateway("b", link=Link.FAILED)),
        "error",
        0,
    ),
    (
        "error beats working",
        snap(gateway("a", sessions=(WORKING,)), gateway("b", link=Link.FAILED)),
        "error",
        0,
    ),
    (
        "partial outage keeps the working icon",
        snap(gateway("a", sessions=(WORKING,)), gateway("b", link=Link.OFFLINE)),
        "working",
        0,
    ),
    (
        "approvals on an offline gateway cannot be answered",
        snap(gateway(link=Link.OFFLINE, approvals=(WAIT,))),
        "disconnected",
        0,
    ),
    (
        "yolo on an offline gateway is not shown",
        snap(gateway(link=Link.OFFLINE, sessions=(YOLO,))),
        "disconnected",
        0,
    ),
    (
        "sending rows are not waiting",
        snap(gateway(approvals=(approval(phase=ApprovalPhase.SENDING),))),
        "idle",
        0,
    ),
    (
        "stale rows still need a person",
        snap(gateway(approvals=(approval(phase=ApprovalPhase.STALE),))),
        "waiting",
        1,
    ),
    (
        "count sums gateways",
        snap(gateway("a", approvals=(WAIT, approval("k2"))), gateway("b", approvals=(WAIT,))),
        "waiting",
        3,
    ),
]


@pytest.mark.parametrize(
    ("snapshot", "icon", "count"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_icon_and_count(snapshot, icon, count):
    status = tray_status(snapshot)
    assert (status.icon_name, status.count) == (icon, count)
    assert status.icon_name in ICON_NAMES


@pytest.mark.parametrize(
    ("snapshot", "words"),
    [
        (snap(gateway(approvals=(WAIT, approval("k2")))), "2 approvals waiting"),
        (snap(gateway(approvals=(WAIT,))), "1 approval waiting"),
        (snap(gateway(sessions=(YOLO,))), "YOLO on in 1 session"),
        (snap(gateway(sessions=(WORKING,))), "working (1 session)"),
        (snap(gateway(link=Link.CONNECTING)), "connecting"),
        (snap(), "no gateway configured"),
    ],
)
def test_tooltip_names_state_and_count(snapshot, words):
    assert words in tray_status(snapshot).tooltip.splitlines()[0]


def test_tooltip_mentions_yolo_under_a_more_urgent_state():
    tooltip = tray_status(snap(gateway(sessions=(YOLO,), approvals=(WAIT,)))).tooltip
    assert "YOLO on in 1 session" in tooltip.splitlines()[1:]


def test_tooltip_neutralises_markup_in_names_and_errors():
    hostile = gateway(
        "b", name="<b>x</b> & <img src=x>", link=Link.FAILED, error="<i>bad</i>\u202e"
    )
    tooltip = tray_status(snap(gateway("a"), hostile)).tooltip
    for markup in "<>&\u202e":
        assert markup not in tooltip
    assert "\u2039b\u203ax\u2039/b\u203a \uff06 \u2039img src=x\u203a" in tooltip
    assert "\u27e8U+202E\u27e9" in tooltip


def test_partial_outage_is_in_the_tooltip():
    tooltip = tray_status(snap(gateway("a"), gateway("b", link=Link.OFFLINE))).tooltip
    assert "1 of 2 gateways not connected" in tooltip


def test_a_journal_problem_is_an_error_when_nothing_waits():
    status = tray_status(snap(gateway(sessions=(IDLE,))), journal_problem="disk <full>")
    assert status.icon_name == "error"
    assert "Journal not written: disk \u2039full\u203a" in status.tooltip.splitlines()


def test_waiting_rows_stay_first_over_a_journal_problem():
    status = tray_status(snap(gateway(approvals=(WAIT,))), journal_problem="disk full")
    assert (status.icon_name, status.count) == ("waiting", 1)
    assert "Journal not written: disk full" in status.tooltip
