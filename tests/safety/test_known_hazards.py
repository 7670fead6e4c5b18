"""Hazards of the 0.19.0 protocol the campaign found outside the measured behaviour.

0.19.0 answers the session's *oldest* pending approval and never re-sends a pending one after a
resume. As measured, it has at most one pending approval per session, and the campaign finds no
violation under that rule. If a session ever has two pending (parallel tools, or the fake's
``raise_approval``), the seeded campaign (``ServerConfig(max_open_a=2)``) finds three ways a
correct click resolves the wrong command:

1. *missed while away*: an approval published while the tray was not subscribed is invisible,
   so the next one looks like the head. The core now hardens against it (tested below): after
   a resume that finds the session running, its approvals start STALE with
   ``decisions.HEAD_UNSURE`` until the turn ends, so a plain click sends nothing and only the
   explicit confirmation ("answer only if Hermes shows this one as the oldest waiting") does;
2. *two people, one round trip*: another surface answers the head while our answer is in
   flight, and ours lands on the next command; no client can prevent this without ids on the
   wire, so it is documented and measured (``scripts/safety_campaign.sh``), not tested here;
3. *an answer of unknown fate*: the write of our answer to the head failed half-way (it may or
   may not have left), the row ends UNKNOWN and the next row was offered as the head, though
   Hermes may still hold the first. Hardened like 1 (tested below): the session's later rows
   start STALE with ``decisions.HEAD_AFTER_UNKNOWN`` until its turn ends.

The same race exists with the measured one-pending rule, in a narrower window: another surface
approves X, X runs, and the person clicks X (still shown: 0.19.0 says nothing until X's
``tool.complete``) within one round trip of X finishing, when the message's next terminal call
asks at once; the click then answers that next command. On loopback the window is about a
millisecond per such event; the 30,000-run campaign found it once before its model stated the
assumption (``ServerConfig.think_time``) that excludes it.
"""

from __future__ import annotations

import json

from desktop.core import decisions
from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.safety.driver import CoreDriver, approval_frame, event


def resumed(running: bool) -> CoreDriver:
    """A 0.19.0 core that lost its connection and resumed session s1 (``running`` per the
    snapshot)."""
    drv = CoreDriver(Dialect.A).connect()
    drv.core.watch_session("s1", stored_session_id="stored-1")
    drv.flush()
    drv.core.connection_lost()
    drv.flush()
    drv.connect_again()
    resume = [json.loads(f.text) for f in drv.written if '"session.resume"' in f.text][-1]
    snapshot = {"session_id": "s1", "running": running}
    drv.feed(json.dumps({"jsonrpc": "2.0", "id": resume["id"], "result": snapshot}))
    return drv


def test_after_a_resume_mid_turn_the_first_visible_0_19_approval_is_not_assumed_the_head() -> None:
    drv = resumed(running=True)
    # Meanwhile the gateway queued W (unseen); now X arrives and is shown:
    drv.feed(approval_frame(Dialect.A, "s1", "", "chmod 777 run.sh"))
    [row] = drv.rows_of("s1")
    sent, _ = drv.decide(row.key, Choice.ONCE)
    assert not sent or row.phase is ApprovalPhase.STALE
    assert (row.phase, row.blocked_reason) == (ApprovalPhase.STALE, decisions.HEAD_UNSURE)
    result = drv.core.decide(row.key, Choice.ONCE)
    assert not result.sent
    assert result.reason.startswith(decisions.HEAD_UNSURE)
    assert drv.core.decide(row.key, Choice.ONCE, confirm_stale=True).sent


def test_once_the_resumed_turn_ends_the_next_approval_is_the_head_again() -> None:
    drv = resumed(running=True)
    drv.feed(approval_frame(Dialect.A, "s1", "", "chmod 777 run.sh"))
    drv.feed(event("message.complete", "s1", {"text": "", "status": "complete"}))
    drv.feed(event("message.start", "s1"))
    drv.feed(approval_frame(Dialect.A, "s1", "", "make deploy"))
    row = drv.rows_of("s1")[-1]
    assert (row.command, row.phase, row.answerable) == ("make deploy", ApprovalPhase.WAITING, True)
    assert drv.decide(row.key, Choice.ONCE)[0]


def test_a_session_resumed_idle_is_not_in_doubt() -> None:
    drv = resumed(running=False)
    drv.feed(event("message.start", "s1"))
    drv.feed(approval_frame(Dialect.A, "s1", "", "chmod 777 run.sh"))
    [row] = drv.rows_of("s1")
    assert (row.phase, row.answerable) == (ApprovalPhase.WAITING, True)
    assert drv.decide(row.key, Choice.ONCE)[0]


def test_after_an_answer_of_unknown_fate_the_next_0_19_approval_is_not_assumed_the_head() -> None:
    drv = CoreDriver(Dialect.A).connect()
    drv.feed(approval_frame(Dialect.A, "s1", "", "ls -la"))
    drv.feed(approval_frame(Dialect.A, "s1", "", "rm -rf ~"))
    first, second = drv.rows_of("s1")
    assert drv.core.decide(first.key, Choice.ONCE).sent
    [frame] = drv.core.data_to_send()
    drv.core.frame_failed(frame.frame_id, maybe_sent=True)  # it may have reached Hermes, or not
    drv.flush()
    sent, _ = drv.decide(second.key, Choice.ONCE)
    assert not sent, "answered 'rm -rf ~' while Hermes may still hold 'ls -la' as its head"
    shown = {a.key: a for a in drv.core.approvals()}.get(second.key)
    assert shown is not None
    assert (shown.phase, shown.blocked_reason) == (
        ApprovalPhase.STALE,
        decisions.HEAD_AFTER_UNKNOWN,
    )
    assert drv.core.decide(second.key, Choice.ONCE, confirm_stale=True).sent  # the person checked
