"""Instruments for the end-to-end campaign: who made each decision frame, and what it hit.

Why taps and not log scraping: the invariant needs (a) which person click produced each decision
frame — ``DecisionTap`` wraps the client core's ``data_to_send`` so frames drained inside a
``GatewayClient.decide()`` call are attributed to that click and any other decision frame is
caught; (b) which request each 0.19.0 ``approval.respond`` resolved at the moment it arrived —
``HeadSpy`` wraps the fake's A handler to record the FIFO head it found; (c) which request each
simulated execution rests on — ``ExecutionSpy`` records the request that decided it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from desktop.core.gateway_core import GatewayCore, OutboundFrame
from tests.gatewaymodel import rpc_approvals
from tests.gatewaymodel.model import Execution, PendingRequest
from tests.gatewaymodel.world import World


@dataclass
class Click:
    key: str
    choice: str
    sent: bool
    command: str
    srq_id: str
    prompt_id: str
    generation: int | None
    frames: list[str] = field(default_factory=list)


class DecisionTap:
    """Attributes every decision frame the client core emits to the click that caused it."""

    def __init__(self, core: GatewayCore) -> None:
        self.current: Click | None = None
        self.clicks: list[Click] = []
        self.unattributed: list[str] = []
        real: Callable[[], list[OutboundFrame]] = core.data_to_send

        def tapped() -> list[OutboundFrame]:
            frames = real()
            for frame in frames:
                if not frame.is_decision:
                    continue
                if self.current is None:
                    self.unattributed.append(frame.text)
                else:
                    self.current.frames.append(frame.text)
            return frames

        core.data_to_send = tapped  # type: ignore[method-assign]

    @contextmanager
    def clicking(self, click: Click) -> Iterator[Click]:
        self.current = click
        try:
            yield click
        finally:
            self.current = None
            self.clicks.append(click)

    def by_wire_id(self) -> dict[Any, Click]:
        """Decision frames by their JSON-RPC id (A/C: our rpc id; B: the srq id)."""
        found: dict[Any, Click] = {}
        for click in self.clicks:
            for text in click.frames:
                found[json.loads(text)["id"]] = click
        return found


@dataclass
class HeadSeen:
    frame: dict[str, Any]
    head: PendingRequest | None


class HeadSpy:
    """Records, for each 0.19.0 ``approval.respond``, the FIFO head it found on arrival."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[HeadSeen] = []
        real = rpc_approvals.respond_a

        def spy(ctx: Any) -> Any:
            session = ctx.world.find_session(ctx.params.get("session_id"))
            pending = ctx.world.open_approvals(session) if session is not None else []
            raw = ctx.conn.record.received[-1]
            self.seen.append(HeadSeen(raw, pending[0] if pending else None))
            return real(ctx)

        monkeypatch.setattr(rpc_approvals, "respond_a", spy)


@dataclass
class Ran:
    execution: Execution
    request: PendingRequest | None  # the latest closed request for that command
    allowed_keys: frozenset[str]  # session/always keys in force when it ran


class ExecutionSpy(list[Execution]):
    """Replaces ``world.executed``: notes what each simulated execution rests on."""

    def __init__(self, world: World) -> None:
        super().__init__(world.executed)
        self.world = world
        self.ran: list[Ran] = []

    def append(self, execution: Execution) -> None:
        world = self.world
        session = world.sessions.get(execution.session_id)
        asked = [
            r
            for r in world.requests
            if r.command is not None
            and r.command.command == execution.command
            and r.session.sid == execution.session_id
            and not r.is_open
        ]
        allowed = set(world.permanent_allow) | (session.session_allow if session else set())
        self.ran.append(Ran(execution, asked[-1] if asked else None, frozenset(allowed)))
        super().append(execution)
