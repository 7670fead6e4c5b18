"""notify_policy: bubbles and the dialog share the screen, and nothing held back is lost.

Time is a plain number; the dialog is a flag and a set of batches (``dialog_changed``).
"""

from __future__ import annotations

import dataclasses

import pytest

from desktop.core.model import ApprovalPhase, Outcome, OutcomeKind
from desktop.model.notify_policy import SUMMARY_REF, NotifyPolicy, NotifySettings, fit_buttons
from tests.model.builders import StoreFedPolicy, approval

SETTINGS = NotifySettings(
    quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.5, after_dialog=3.0
)
T = 100.0
EXPIRES = T + 100.0
EXPIRED = Outcome(OutcomeKind.EXPIRED, None, "nobody answered in time")


def policy(**changes) -> NotifyPolicy:
    return StoreFedPolicy(dataclasses.replace(SETTINGS, **changes), started_at=0.0)


def row(key="k1", batch="b1", sid="s1", **kw):
    return dataclasses.replace(approval(key, sid=sid, batch=batch, **kw), expires_at=EXPIRES)


def expired(key="k1", batch="b1", **kw):
    done = row(key, batch, phase=ApprovalPhase.RESOLVED, **kw)
    return dataclasses.replace(done, outcome=EXPIRED)


def shows(*batches):
    return lambda gateway_id, batch_id: (gateway_id, batch_id) in batches


def test_the_dialog_taking_focus_withdraws_the_bubbles_of_its_batches():
    p = policy()
    p.approval_requested("g", row(), "Build", T)
    [_plan] = p.due(T + 1)
    assert p.dialog_changed(True, shows(("g", "b1")), T + 2) == [("g", "b1")]
    assert p.due(T + 10) == []
    assert p.next_deadline() is None


def test_a_batch_held_while_the_dialog_has_focus_is_announced_when_it_loses_it():
    p = policy()
    p.dialog_changed(True, shows(("g", "b1")), T)
    p.approval_requested("g", row(), "Build", T)
    assert p.due(T + 1) == []
    assert p.next_deadline() is None  # nothing to wake for while the person reads the dialog
    p.dialog_changed(False, shows(("g", "b1")), T + 20)
    assert p.next_deadline() == pytest.approx(T + 23)
    assert p.due(T + 22.9) == []
    [plan] = p.due(T + 23)
    assert (plan.batch_id, plan.update) == ("b1", False)
    assert plan.title == "Approval needed — Build"


def test_a_batch_the_dialog_does_not_show_is_announced_as_usual():
    p = policy()
    p.dialog_changed(True, shows(("g", "other")), T)
    p.approval_requested("g", row(), "Build", T)
    [plan] = p.due(T + 1)
    assert plan.batch_id == "b1"


def test_an_update_never_pops_a_bubble_for_a_batch_never_shown():
    p = policy()
    p.dialog_changed(True, shows(("g", "b1")), T)
    p.approval_requested("g", row("k1"), "Build", T)
    p.approval_requested("g", row("k2", position=1), "Build", T)
    assert p.due(T + 1) == []
    p.approval_changed("g", row("k1", phase=ApprovalPhase.RESOLVED), T + 2)
    assert p.due(T + 3) == []
    p.dialog_changed(False, shows(("g", "b1")), T + 4)  # closed with k2 still waiting
    [plan] = p.due(T + 7)
    assert (plan.keys, plan.update) == (("k2",), False)


def test_held_into_its_last_seconds_it_comes_back_urgent():
    p = policy()
    p.dialog_changed(True, shows(("g", "b1")), T)
    p.approval_requested("g", row(), "Build", T)
    assert p.due(EXPIRES - 29) == []  # the dialog counts down; no critical bubble over it
    p.dialog_changed(False, shows(("g", "b1")), EXPIRES - 20)
    [plan] = p.due(EXPIRES - 17)
    assert plan.urgent
    assert plan.critical
    assert plan.title == "Answer soon — Build"


def test_a_second_batch_folds_the_first_into_one_summary_that_counts_every_row():
    p = policy()
    p.approval_requested("g", row("k1"), "Build", T)
    [_first] = p.due(T + 1)
    p.approval_requested("g", row("k2", "b2", sid="s2"), "Docs", T + 2)
    p.approval_requested("g", row("k3", "b2", sid="s2", position=1), "Docs", T + 2)
    [summary] = p.due(T + 3)
    assert p.take_withdrawn() == [("g", "b1")]
    assert (summary.ref, summary.update, summary.title) == (
        SUMMARY_REF,
        False,
        "3 approvals waiting",
    )
    assert summary.keys == ("k1", "k2", "k3")
    p.approval_requested("g", row("k4", "b1", position=1), "Build", T + 4)
    [update] = p.due(T + 5)
    assert (update.ref, update.update, update.title) == (SUMMARY_REF, True, "4 approvals waiting")
    assert p.take_withdrawn() == []


def test_a_summary_escalates_like_a_batch_once_per_member():
    p = policy()
    p.approval_requested("g", row("k1"), "Build", T)
    late = dataclasses.replace(row("k2", "b2", sid="s2"), expires_at=EXPIRES + 50)
    p.approval_requested("g", late, "Docs", T)
    [summary] = p.due(T + 1)
    assert not summary.urgent
    assert p.next_deadline() == pytest.approx(EXPIRES - 30)
    [urgent] = p.due(EXPIRES - 30)
    assert (urgent.ref, urgent.update, urgent.critical) == (SUMMARY_REF, False, True)
    assert urgent.title == "Answer soon — 2 approvals waiting"
    assert "Hermes stops waiting in about 30 s" in urgent.body
    assert p.due(EXPIRES - 29) == []
    assert p.next_deadline() == pytest.approx(EXPIRES + 20)
    [again] = p.due(EXPIRES + 20)  # the second member's turn
    assert again.urgent
    assert not again.update


def test_a_timed_out_batch_of_three_gives_one_blocked_notice():
    p = policy()
    for i in range(3):
        p.approval_requested("g", row(f"k{i}", position=i, command=f"make {i}"), "Build", T)
    p.due(T + 1)
    for i in range(3):
        p.approval_changed(
            "g", expired(f"k{i}", position=i, command=f"make {i}"), EXPIRES + i / 100
        )
        assert p.take_blocked(EXPIRES + i / 100) == []
    [notice] = p.take_blocked(EXPIRES + 0.52)
    assert notice.commands == ["make 0", "make 1", "make 2"]
    assert p.take_blocked(EXPIRES + 10) == []


def test_hermes_asking_again_carries_the_blocked_notice_in_one_bubble():
    p = policy()
    p.approval_requested("g", row("k1", command="make deploy"), "Build", T)
    p.due(T + 1)
    assert p.approval_changed("g", expired("k1", command="make deploy"), EXPIRES) == [("g", "b1")]
    p.approval_requested("g", row("k2", command="make deploy"), "Build", EXPIRES + 0.1)
    assert p.take_blocked(EXPIRES + 0.5) == []  # the re-ask is still filling
    [plan] = p.due(EXPIRES + 0.6)
    assert plan.body.startswith("Nobody answered in time: 1 command did not run.\n")
    assert p.take_blocked(EXPIRES + 5) == []


def test_no_blocked_notice_over_the_dialog_that_shows_the_batch():
    p = policy()
    p.approval_requested("g", row(), "Build", T)
    p.due(T + 1)
    p.dialog_changed(True, shows(("g", "b1")), T + 2)
    p.approval_changed("g", expired(), EXPIRES)
    assert p.take_blocked(EXPIRES + 1) == []


def test_plasma_keeps_its_buttons_on_one_row_with_review_last():
    """Four wrap on Plasma, leaving Approve alone where a summary's Review sits."""
    p = policy()
    p.approval_requested("g", row(command="make test"), "Build", T)
    [plan] = p.due(T + 1)
    assert len(plan.actions) == 4
    assert [a.label for a in fit_buttons(plan.actions, "Plasma")] == ["Approve", "Deny", "Review"]


def test_gnome_shell_keeps_three_buttons_with_review():
    p = policy()
    p.approval_requested("g", row(command="make test"), "Build", T)
    [plan] = p.due(T + 1)
    assert [a.label for a in plan.actions] == [
        "Approve",
        "Deny",
        "Deny and stop the agent",
        "Review",
    ]
    assert [a.label for a in fit_buttons(plan.actions, "gnome-shell")] == [
        "Approve",
        "Deny",
        "Review",
    ]
    assert fit_buttons(plan.actions, "Xfce Notify Daemon") == plan.actions


def test_the_demos_first_bubble_says_it_is_the_demo():
    p = policy()
    p.introduce("demo", "Hermes Tray's demo: the commands are simulated; nothing runs.")
    p.approval_requested("g", row("k0", command="ls"), "Real work", T)
    [real] = p.due(T + 1)
    assert real.body == "ls"
    p.approval_changed("g", row("k0", command="ls", phase=ApprovalPhase.RESOLVED), T + 2)
    p.approval_requested("demo", row("k1", command="make test"), "Fix the build", T + 3)
    [first] = p.due(T + 4)
    assert first.body == "Hermes Tray's demo: the commands are simulated; nothing runs.\nmake test"
    p.approval_requested("demo", row("k2", "b2", command="make lint"), "Fix the build", T + 5)
    [summary] = p.due(T + 6)  # later bubbles do not repeat it
    assert "demo" not in summary.body


def test_the_summary_counts_sessions_not_their_titles():
    p = policy()
    p.approval_requested("g", row("k1", sid="s1"), "tmp", T)
    p.approval_requested("g", row("k2", "b2", sid="s2"), "tmp", T)
    [summary] = p.due(T + 1)
    assert summary.body == "In 2 sessions: tmp"
