"""Hazards of the 0.19.0 protocol the campaign found outside the measured behaviour.

0.19.0 answers the session's *oldest* pending approval and never re-sends a pending one after a
resume. As measured, it has at most one pending approval per session, and the campaign finds no
violation under that rule. If a session ever has two pending (parallel tools, or the fake's
``raise_approval``), the seeded campaign (``ServerConfig(max_open_a=2)``) finds two ways a
correct click resolves the wrong command:

1. *missed while away*: an approval published while the tray was not subscribed is invisible,
   so the next one looks like the head; pinned below as a strict xfail, because the core could
   harden against it (treat approvals on a session resumed mid-turn as possibly not the head);
2. *two people, one round trip*: another surface answers the head while our answer is in
   flight, and ours lands on the next command; no client can prevent this without ids on the
   wire, so it is documented and measured (``scripts/safety_campaign.sh``), not tested here.

The same race exists with the measured one-pending rule, in a narrower window: another surface
approves X, X runs, and the person clicks X (still shown: 0.19.0 says nothing until X's
``tool.complete``) within one round trip of X finishing, when the message's next terminal call
asks at once; the click then answers that next command. On loopback the window is about a
millisecond per such event; the 30,000-run campaign found it once before its model stated the
assumption (``ServerConfig.think_time``) that excludes it.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.model import ApprovalPhase, Choice, Dialect
from tests.safety.driver import CoreDriver, approval_frame


@pytest.mark.xfail(
    strict=True,
    reason="hazard (0.19.0 with two pending approvals per session; not measured on the real "
    "gateway): after a reconnect the core offers the first approval it sees on a session "
    "resumed mid-turn as the FIFO head, but the gateway may hold an older one published while "
    "the tray was away, which approval.respond then resolves (core: answer_rules.assess)",
)
def test_after_a_resume_mid_turn_the_first_visible_0_19_approval_is_not_assumed_the_head() -> None:
    drv = CoreDriver(Dialect.A).connect()
    drv.core.watch_session("s1", stored_session_id="stored-1")
    drv.flush()
    drv.core.connection_lost()
    drv.flush()
    drv.connect_again()
    resume = [json.loads(f.text) for f in drv.written if '"session.resume"' in f.text][-1]
    drv.feed(
        json.dumps(
            {"jsonrpc": "2.0", "id": resume["id"], "result": {"session_id": "s1", "running": True}}
        )
    )
    # Meanwhile the gateway queued W (unseen); now X arrives and is shown:
    drv.feed(approval_frame(Dialect.A, "s1", "", "chmod 777 run.sh"))
    [row] = drv.rows_of("s1")
    sent, _ = drv.decide(row.key, Choice.ONCE)
    assert not sent or row.phase is ApprovalPhase.STALE
