"""notify_policy under the desktop's do-not-disturb: nothing new while it is on, the last-30-s
escalation only as the setting says, and one notification for what waits when it goes off.

Plain calls; time is a number.
"""

from __future__ import annotations

import dataclasses

from desktop.core.model import ApprovalPhase, Outcome, OutcomeKind
from desktop.model.notify_policy import SUMMARY_REF, NotifyPolicy, NotifySettings
from tests.model.builders import StoreFedPolicy, approval

SETTINGS = NotifySettings(quiet_after_start=0.0, quiet_after_reconnect=0.0, coalesce=0.5)
T = 100.0
EXPIRES = T + 300.0  # Hermes waits 300 s
ESCALATION = EXPIRES - SETTINGS.escalate_before


def policy(**changes) -> NotifyPolicy:
    return StoreFedPolicy(dataclasses.replace(SETTINGS, **changes), started_at=0.0)


def row(key="k1", batch="b1", sid="s1", **kw):
    return dataclasses.replace(approval(key, sid, batch, **kw), expires_at=EXPIRES)


def quiet(**changes) -> NotifyPolicy:
    p = policy(**changes)
    p.set_do_not_disturb(True)
    return p


def test_while_on_a_new_batch_is_held_and_nothing_is_due_before_its_escalation():
    p = quiet()
    p.approval_requested("g", row(), "Build", T)
    assert p.due(T + 1) == []
    assert p.next_deadline() == ESCALATION
    assert p.due(ESCALATION - 0.1) == []
    assert p.holding


def test_not_known_counts_as_off():
    p = policy()
    p.set_do_not_disturb(False)
    p.approval_requested("g", row(), "Build", T)
    [plan] = p.due(T + 1)
    assert not plan.urgent
    assert not p.holding


def test_a_held_batch_escalates_critical_when_the_setting_allows():
    p = quiet()
    p.approval_requested("g", row("k1", "b1"), "Build", T)
    [plan] = p.due(ESCALATION)
    assert (plan.batch_id, plan.urgent, plan.critical, plan.update) == ("b1", True, True, False)
    assert "Hermes stops waiting in about 30 s" in plan.body
    assert p.due(ESCALATION + 1) == []  # once


def test_held_batches_escalating_together_are_one_critical_summary():
    p = quiet()
    p.approval_requested("g", row("k1", "b1"), "Build", T)
    p.approval_requested("g", row("k2", "b2", sid="s2"), "Docs", T)
    [plan] = p.due(ESCALATION)
    assert (plan.batch_id, plan.urgent, plan.critical, plan.update) == ("", True, True, False)
    assert plan.title == "Answer soon — 2 approvals waiting"
    assert "Hermes stops waiting in about 30 s" in plan.body
    assert p.due(ESCALATION + 1) == []  # once


def test_no_escalation_at_all_while_on_when_the_setting_says_not_through():
    p = quiet(escalate_when_quiet=False)
    p.approval_requested("g", row(), "Build", T)
    assert p.next_deadline() is None
    assert p.due(ESCALATION + 5) == []


def test_an_announced_batch_does_not_escalate_while_on_unless_the_setting_allows():
    blocked = policy(escalate_when_quiet=False)
    allowed = policy()
    for p in (blocked, allowed):
        p.approval_requested("g", row(), "Build", T)
        [first] = p.due(T + 1)
        assert not first.urgent
        p.set_do_not_disturb(True)
    assert blocked.due(ESCALATION) == []
    [escalation] = allowed.due(ESCALATION)
    assert escalation.urgent
    assert escalation.critical
    blocked.set_do_not_disturb(False)  # off inside the window: the reminder comes now
    [late] = blocked.due(ESCALATION + 5)
    assert late.urgent
    assert not late.critical


def test_off_again_one_notification_covers_what_waits():
    p = quiet()
    p.approval_requested("g", row("k1", "b1"), "Build", T)
    p.approval_requested("g", row("k2", "b2", sid="s2"), "Docs", T + 1)
    p.approval_requested("g", row("k3", "b2", sid="s2", position=1), "Docs", T + 1)
    assert p.due(T + 10) == []
    p.set_do_not_disturb(False)
    assert p.next_deadline() <= T + 10
    [summary] = p.due(T + 10)
    assert summary.ref == SUMMARY_REF
    assert summary.title == "3 approvals waiting"
    assert set(summary.keys) == {"k1", "k2", "k3"}
    assert p.due(T + 11) == []


def test_off_again_a_batch_still_coalescing_joins_the_others():
    p = quiet()
    p.approval_requested("g", row("k1", "b1"), "Build", T)
    p.approval_requested("g", row("k2", "b2", sid="s2"), "Docs", T + 10)
    p.set_do_not_disturb(False)  # 0.1 s after b2 came: b2 is still gathering its rows
    assert p.due(T + 10.1) == []
    assert p.next_deadline() == T + 10 + SETTINGS.coalesce
    [summary] = p.due(T + 10 + SETTINGS.coalesce)
    assert summary.title == "2 approvals waiting"


def test_off_again_with_one_batch_its_own_notification_and_urgent_inside_the_window():
    early, late = quiet(), quiet()
    for p in (early, late):
        p.approval_requested("g", row(), "Build", T)
        p.set_do_not_disturb(False)
    [plan] = early.due(T + 10)
    assert (plan.batch_id, plan.urgent) == ("b1", False)
    [plan] = late.due(ESCALATION + 1)  # one bubble, already worded for the deadline
    assert (plan.batch_id, plan.urgent, plan.critical) == ("b1", True, True)
    assert late.due(ESCALATION + 2) == []


def test_rows_answered_while_held_are_not_announced_and_expired_ones_are_reported():
    p = quiet(escalate_when_quiet=False)
    p.approval_requested("g", row("k1", "b1"), "Build", T)
    p.approval_requested("g", row("k2", "b2"), "Build", T)
    answered = dataclasses.replace(
        row("k1", "b1", phase=ApprovalPhase.RESOLVED), outcome=Outcome(OutcomeKind.APPROVED)
    )
    expired = dataclasses.replace(
        row("k2", "b2", phase=ApprovalPhase.RESOLVED),
        outcome=Outcome(OutcomeKind.EXPIRED, None, "nobody answered in time"),
    )
    assert p.approval_changed("g", answered, T + 5) == []
    assert p.approval_changed("g", expired, EXPIRES) == []
    [notice] = p.take_blocked(EXPIRES + 1)
    assert notice.session_title == "Build"
    assert notice.commands == ["rm -rf build"]
    p.set_do_not_disturb(False)
    assert p.due(EXPIRES + 1) == []


def test_updates_and_withdrawals_of_a_notification_already_shown_still_go():
    p = policy()
    p.approval_requested("g", row("k1"), "Build", T)
    p.approval_requested("g", row("k2", position=1), "Build", T)
    p.due(T + 1)
    p.set_do_not_disturb(True)
    gone = dataclasses.replace(row("k1", phase=ApprovalPhase.RESOLVED))
    p.approval_changed("g", gone, T + 2)
    [update] = p.due(T + 3)
    assert update.update
    assert update.keys == ("k2",)
    assert p.approval_changed("g", row("k2", phase=ApprovalPhase.RESOLVED), T + 4) == [("g", "b1")]
