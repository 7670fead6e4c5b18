"""The campaign can fail: plant one bug at a time in the real core and time how fast it is caught.

Each plant is a one-line monkeypatch of a rule the core relies on (never an edit of desktop/*).
A campaign that cannot catch these would prove nothing by passing. The time and number of steps
to the first violation are printed in the campaign summary and asserted to stay within budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from desktop.core import approvals, decisions
from desktop.core.approvals import STAY, Input
from desktop.core.gateway_core import GatewayCore
from desktop.core.jsonrpc import encode_error
from desktop.core.model import ApprovalPhase, Dialect
from desktop.core.wire import RowKind
from tests.safety.sim.engine import RunConfig, hunt
from tests.safety.sim.refserver import ServerConfig
from tests.safety.tally import TALLY

BUDGET_SECONDS = 20.0
PARALLEL_A = RunConfig(
    Dialect.A,
    steps=100,
    server=ServerConfig(max_open_a=2, ask_only_when_viewed=True, other_viewers=False),
    network_faults=False,
)

SLOW_LISTS = dataclasses.replace(RunConfig(Dialect.B).settings(), open_poll_interval=3600.0)


def every_fifo_row_is_the_head(mp: pytest.MonkeyPatch) -> None:
    """Bug: answer any 0.19.0 row, not only the session's FIFO head (no key check)."""
    real = decisions.assess

    def planted(
        phase: Any,
        expires_at: Any,
        kind: Any,
        *,
        too_long: bool,
        is_head: bool,
        stale_reason: str,
        ctx: Any,
        **rest: Any,
    ) -> Any:
        return real(
            phase,
            expires_at,
            kind,
            too_long=too_long,
            is_head=True,
            stale_reason=stale_reason,
            ctx=ctx,
            **rest,
        )

    mp.setattr(approvals, "assess", planted)


def stale_rows_need_no_confirmation(mp: pytest.MonkeyPatch) -> None:
    """Bug: skip the staleness check (every decide() behaves as if confirm_stale=True)."""
    real = GatewayCore._decide
    mp.setattr(
        GatewayCore, "_decide", lambda self, key, choice, _confirm: real(self, key, choice, True)
    )


def tool_complete_settles_nothing(mp: pytest.MonkeyPatch) -> None:
    """Bug: a 0.19.0 ``tool.complete`` no longer closes the card it implies is gone."""
    mp.setattr(approvals.ApprovalMachine, "tool_completed", lambda self, event: None)


def maybe_sent_counts_as_unsent(mp: pytest.MonkeyPatch) -> None:
    """Bug: a decision whose write failed mid-way is offered again (it may have left)."""
    real = GatewayCore.frame_failed
    mp.setattr(
        GatewayCore,
        "frame_failed",
        lambda self, frame_id, *, maybe_sent: real(self, frame_id, maybe_sent=False),
    )


def reused_ids_keep_their_row(mp: pytest.MonkeyPatch) -> None:
    """Bug: a request under a known id maps onto that id's row whatever it now asks."""

    def planted(book: approvals.ApprovalMachine, asked: Any) -> Any:
        ident = approvals.wire_ident(asked)
        return None if ident is None else book.find(asked.kind, ident)

    mp.setattr(approvals.ApprovalMachine, "redelivery_of", planted)


def lost_connection_keeps_rows_waiting(mp: pytest.MonkeyPatch) -> None:
    """Bug: a lost connection leaves waiting rows answerable as shown (no STALE)."""
    mp.setitem(approvals.TABLE, (Input.CONNECTION_LOST, RowKind.FIFO, ApprovalPhase.WAITING), STAY)


def turn_end_keeps_fifo_rows(mp: pytest.MonkeyPatch) -> None:
    """Bug: the end of a 0.19.0 turn leaves its waiting rows open (Hermes gave up on them)."""
    for ended in (Input.TURN_ENDED, Input.ITS_TOOL_DONE, Input.A_TOOL_DONE):
        mp.setitem(approvals.TABLE, (ended, RowKind.FIFO, ApprovalPhase.WAITING), STAY)


def window_requests_refused(mp: pytest.MonkeyPatch) -> None:
    """The old -32601: it settles a window request ahead of the window that shows it."""

    def refuse(core: GatewayCore, frame: Any) -> None:
        core.outbox.reply(encode_error(frame.request_id, -32601, "refused"), core.link.epoch)

    mp.setattr(GatewayCore, "_window_requested", refuse)


def rows_answered_elsewhere_stay_answerable(mp: pytest.MonkeyPatch) -> None:
    """Bug: a pending list that no longer holds a request leaves its row waiting."""
    for phase in (ApprovalPhase.WAITING, ApprovalPhase.STALE):
        mp.setitem(approvals.TABLE, (Input.NOT_PENDING, RowKind.SERVER_REQUEST, phase), STAY)


@dataclass(frozen=True)
class Plant:
    name: str
    apply: Callable[[pytest.MonkeyPatch], None]
    config: RunConfig


PLANTS = [
    Plant(
        "A: any FIFO row answerable (parallel approvals)",
        every_fifo_row_is_the_head,
        # Two approvals pending per session; the tray sees every one and no other surface
        # answers (those two hazards are inherent to 0.19.0, see test_known_hazards.py): the
        # clean campaign finds nothing here, so whatever is caught is the plant's doing.
        PARALLEL_A,
    ),
    Plant(
        "A: stale rows answered unconfirmed",
        stale_rows_need_no_confirmation,
        RunConfig(Dialect.A, steps=100),
    ),
    Plant(
        "A: tool.complete ignored", tool_complete_settles_nothing, RunConfig(Dialect.A, steps=100)
    ),
    Plant(
        "B: maybe-sent decision offered again",
        maybe_sent_counts_as_unsent,
        RunConfig(Dialect.B, steps=100),
    ),
    Plant(
        "C: maybe-sent decision offered again",
        maybe_sent_counts_as_unsent,
        RunConfig(Dialect.C, steps=100),
    ),
    Plant(
        "B: a re-used srq id keeps its old row",
        reused_ids_keep_their_row,
        # Pending lists close the old row once its request is gone, usually before the person
        # answers it: with lists asked rarely and no other surface answering, the id's mapping
        # alone must keep answers exact.
        RunConfig(
            Dialect.B,
            steps=100,
            server=ServerConfig(other_viewers=False),
            core_settings=SLOW_LISTS,
        ),
    ),
    Plant(
        "C: a re-used prompt id keeps its old row",
        reused_ids_keep_their_row,
        RunConfig(Dialect.C, steps=100),
    ),
    Plant(
        "A: rows stay waiting over a lost connection",
        lost_connection_keeps_rows_waiting,
        RunConfig(Dialect.A, steps=100),
    ),
    Plant(
        "B: window requests refused with -32601",
        window_requests_refused,
        RunConfig(Dialect.B, steps=100),
    ),
    Plant(
        "B: a row answered elsewhere stays answerable",
        rows_answered_elsewhere_stay_answerable,
        RunConfig(Dialect.B, steps=100),
    ),
    Plant(
        "A: a turn's end leaves its rows open",
        turn_end_keeps_fifo_rows,
        RunConfig(Dialect.A, steps=100),
    ),
]


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.name)
def test_the_campaign_catches_a_planted_bug(plant: Plant, monkeypatch: pytest.MonkeyPatch) -> None:
    plant.apply(monkeypatch)
    found = hunt(plant.config, range(7_000_000, 7_100_000), budget_seconds=BUDGET_SECONDS)
    TALLY.planted.append(
        f"{plant.name}: "
        + (
            f"caught after {found.runs} runs / {found.steps:,} steps / {found.seconds:.2f}s "
            f"(seed {found.seed})"
            if found.found
            else f"NOT caught in {found.runs} runs / {found.steps:,} steps / {found.seconds:.1f}s"
        )
    )
    assert found.found, (
        f"the campaign missed the planted bug {plant.name!r} within {BUDGET_SECONDS}s"
    )
    assert "violation" in found.report
