"""One rule for "may this be answered?": ``Approval.action`` and ``decisions.refusal``, per case.

The core's ``decide`` and every surface (buttons, keys, bubbles) ask ``refusal``; these tests
pin what it says for each action and choice, and that ``decide`` sends exactly when it says yes.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core import decisions
from desktop.core.approvals import R, S, W, X
from desktop.core.decisions import RefusalKind, refusal
from desktop.core.model import Action, Approval, ApprovalPhase, Choice, Dialect, Outcome
from desktop.core.model import OutcomeKind as Kind
from tests.core.frames import Driver, a_approval, b_approval

OFFERED = (Choice.ONCE, Choice.DENY)
NOT_A_CHOICE = "only once, session, always or deny can be sent"
BASE = Approval("k", "s", "b", 0, "ls", choices=OFFERED)


@pytest.mark.parametrize(
    ("phase", "answerable", "action"),
    [
        (W, True, Action.ANSWER),
        (W, False, Action.WAIT),
        (S, True, Action.RECONFIRM),
        (S, False, Action.WAIT),  # stale and blocked: nothing to re-confirm until it may be sent
        (X, True, Action.SENDING),  # whatever answerable says: one answer is on its way
        (X, False, Action.SENDING),
        (R, True, Action.DONE),
        (R, False, Action.DONE),
    ],
)
def test_the_action_follows_the_phase_and_the_cores_judgement(
    phase: ApprovalPhase, answerable: bool, action: Action
) -> None:
    assert replace(BASE, phase=phase, answerable=answerable).action is action


ROWS = {
    Action.ANSWER: BASE,
    Action.RECONFIRM: replace(BASE, phase=S, blocked_reason="the connection was lost"),
    Action.WAIT: replace(BASE, answerable=False, blocked_reason="answer #1 first"),
    Action.SENDING: replace(BASE, phase=X, answerable=False),
    Action.DONE: replace(BASE, phase=R, outcome=Outcome(Kind.DENIED, Choice.DENY)),
}
# what refusal() says for an offered choice (None: it may be sent)
EXPECTED: dict[Action, tuple[RefusalKind, str] | None] = {
    Action.ANSWER: None,
    Action.RECONFIRM: (
        RefusalKind.RECONFIRM_FIRST,
        "the connection was lost (confirm to answer anyway)",
    ),
    Action.WAIT: (RefusalKind.WAIT, "answer #1 first"),
    Action.SENDING: (RefusalKind.ON_ITS_WAY, "an answer is already on its way"),
    Action.DONE: (RefusalKind.DONE, "already denied"),
}


def why(approval: Approval, choice: object) -> str | None:
    """The refusal's reason, None when the choice may be sent."""
    found = refusal(approval, choice)
    return None if found is None else found.reason


@pytest.mark.parametrize("choice", list(Choice))
@pytest.mark.parametrize("action", list(Action))
def test_refusal_per_action_and_choice(action: Action, choice: Choice) -> None:
    row = ROWS[action]
    assert row.action is action
    found = refusal(row, choice)
    got = None if found is None else (found.kind, found.reason)
    expected = EXPECTED[action]
    if choice not in OFFERED and action not in (Action.SENDING, Action.DONE):
        # a choice Hermes did not offer is refused before anything that might pass later
        expected = (RefusalKind.NOT_OFFERED, f"{choice.value!r} is not offered for this command")
    assert got == expected


@pytest.mark.parametrize("action", list(Action))
def test_a_confirmation_only_lifts_the_re_confirm_refusal(action: Action) -> None:
    confirmed = refusal(ROWS[action], Choice.ONCE, confirmed=True)
    if action in (Action.ANSWER, Action.RECONFIRM):
        assert confirmed is None
    else:
        assert confirmed is not None
        assert confirmed == refusal(ROWS[action], Choice.ONCE)


@pytest.mark.parametrize("choice", ["once", "yes", "", None, 1])
def test_anything_but_a_choice_is_refused_whatever_the_row(choice: object) -> None:
    for row in ROWS.values():
        found = refusal(row, choice)
        assert found == decisions.Refusal(RefusalKind.NOT_A_CHOICE, NOT_A_CHOICE)


def test_a_row_without_a_reason_still_says_why() -> None:
    assert why(replace(BASE, answerable=False), Choice.ONCE) == "cannot be answered now"
    assert why(replace(BASE, phase=S), Choice.ONCE) == (
        "Hermes may no longer ask exactly this command (confirm to answer anyway)"
    )
    assert why(replace(BASE, phase=R), Choice.ONCE) == "already resolved"


def test_decide_sends_exactly_when_refusal_says_yes_and_gives_its_reason() -> None:
    """0.19.0, two rows: the head may be answered, the second waits its turn."""
    offered = ["once", "deny"]
    drv = Driver().connect(Dialect.A)
    drv.feed(a_approval("ls", choices=offered), a_approval("pwd", choices=offered))
    head, second = drv.rows()
    assert (head.action, second.action) == (Action.ANSWER, Action.WAIT)
    assert why(second, Choice.ONCE) == decisions.NOT_HEAD
    assert drv.core.decide(second.key, Choice.ONCE).reason == decisions.NOT_HEAD
    assert refusal(drv.approval(head.key), Choice.SESSION) is not None  # not offered here
    assert not drv.core.decide(head.key, Choice.SESSION).sent
    assert refusal(drv.approval(head.key), Choice.ONCE) is None
    assert drv.core.decide(head.key, Choice.ONCE).sent
    after = drv.approval(head.key)
    assert after.action is Action.SENDING
    assert drv.core.decide(head.key, Choice.ONCE).reason == why(after, Choice.ONCE)


def test_a_lost_connection_makes_every_open_row_wait_with_why() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-000000000001"))
    key = drv.row().key
    drv.core.connection_lost()
    row = drv.approval(key)
    assert row.action is Action.WAIT
    assert refusal(row, Choice.DENY) == decisions.Refusal(RefusalKind.WAIT, decisions.DISCONNECTED)


@pytest.mark.parametrize(("phase", "kind"), [(W, None), (S, RefusalKind.WAIT)])
def test_a_command_too_long_to_show_may_be_denied_only_while_it_surely_waits(
    phase: ApprovalPhase, kind: RefusalKind | None
) -> None:
    cut = replace(BASE, phase=phase, answerable=False, blocked_reason=decisions.TOO_LONG)
    assert refusal(cut, Choice.ONCE) == decisions.Refusal(RefusalKind.WAIT, decisions.TOO_LONG)
    refused = refusal(cut, Choice.DENY)
    assert (refused.kind if refused else None) is kind
