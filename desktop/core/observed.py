"""0.20 sessions another client runs, seen through ``approval.pending`` without attaching.

On 0.20 a resume takes a session's events away from the window that shows it. Without
attaching, a connection can still (measured on axisrow 0.20.1.2,
``tests/realhermes/test_axisrow_facts.py``) read ``session.active_list`` and ``approval.pending``
and answer an entry by its ``request_id``. So such sessions are *observed*: rows from pending
lists only, answered by id, never resumed, gone when the session leaves the list.

No event says something waits, so the pending list is asked at once when a session is first
listed or after a reconnect, then on a plan: every ``open_poll_interval`` while rows
are open; every ``observe_poll_interval`` while the list says ``working``; every
``observe_linger_poll_interval`` within ``observe_linger`` of its last work (``delegate_task``
sub-agents ask after their parent's turn ended, while the list says idle); otherwise never.
Work is ``working``, a ``message_count`` that moved between two lists (a turn can fit between
them), or a session new since this connection's first list. Due times sit on a grid of their
interval, so sessions on the same plan are asked together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.core import outcomes, payloads
from desktop.core.connection import next_on_grid, poll_pending
from desktop.core.model import Dialect
from desktop.core.outbox import Purpose

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore

MAX_OBSERVED = 200  # the list verb's own limit; a longer list is cut
ID_CHARS = 128
TITLE_CHARS = 200
WORKING = "working"


@dataclass(slots=True)
class ObservedSessions:
    """When each observed session last worked, and when it is next due."""

    worked_at: dict[str, float] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)  # message_count at the last list
    due: dict[str, float] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)  # asked once at once, whatever the plan
    listed: bool = False  # this connection has had its first list
    at: float | None = None  # the earliest due time (a deadline of the core)
    replan: bool = True  # something the plan reads changed since it was last made
    polled: frozenset[str] = frozenset()  # the sessions with rows a list closes, then

    @property
    def active(self) -> bool:
        return bool(self.worked_at or self.fresh or self.at is not None)

    def plan_due(self, now: float, polled: frozenset[str], sessions_moved: bool) -> bool:
        """Whether the plan must be looked at: a due time came, or what it reads changed.

        Between those the plan cannot change, so most inputs (a flood of deltas from the
        tray's own session) skip it: it visits every observed session, up to 200.
        """
        return (
            self.replan
            or sessions_moved
            or bool(self.fresh)
            or polled is not self.polled
            or (self.at is not None and now >= self.at)
        )


def listed_sessions(result: Mapping[str, Any]) -> dict[str, tuple[str, str, str, int | None]]:
    """``{id: (session_key, status, title, message_count)}`` of a ``session.active_list`` result."""
    rows = payloads.objects(result, "sessions") or []
    live: dict[str, tuple[str, str, str, int | None]] = {}
    for row in rows[:MAX_OBSERVED]:
        session_id = payloads.text(row, "id")
        if 0 < len(session_id) <= ID_CHARS:
            key = payloads.text(row, "session_key")[:ID_CHARS]
            title = payloads.text(row, "title")[:TITLE_CHARS]
            count = row.get("message_count")
            count = count if type(count) is int else None
            live[session_id] = (key, payloads.text(row, "status")[:20], title, count)
    return live


def observe_listed(core: GatewayCore, result: Mapping[str, Any]) -> None:
    """Observe other clients' listed sessions (not the tray's own); unlisted ones are gone."""
    if core.dialect is not Dialect.HERMES020:
        return
    live = listed_sessions(result)
    sessions, watch = core.session_book, core.observed
    for session_id in sessions.observed():
        if session_id not in live:
            forget(core, session_id)
            core.remove_session(session_id, "ended", outcomes.withdrawn(outcomes.SESSION_GONE))
    now = core.clock()
    for session_id, (key, status, title, count) in live.items():
        known = sessions.get(session_id) is not None
        if known and not sessions.is_observed(session_id):
            continue  # the tray's own (or attached) session
        if not known:
            sessions.ensure(session_id)
            sessions.observe(session_id)
            core.lifecycle.follow_changed()
            watch.fresh.add(session_id)
            if watch.listed:
                watch.worked_at[session_id] = now
        changes = {"stored_session_id": key} if key else {}
        if title:
            changes["title"] = title
        sessions.update(session_id, **changes)
        moved = count is not None and watch.messages.get(session_id, count) != count
        if count is not None:
            watch.messages[session_id] = count
        if status == WORKING or moved:
            watch.worked_at[session_id] = now
        sessions.set_running(session_id, status == WORKING)
    watch.listed = True
    watch.replan = True


def stop_observing(core: GatewayCore) -> None:
    """The sessions stay known; their rows become read-only."""
    watched = core.session_book.observed()
    for session_id in watched:
        forget(core, session_id)
        core.session_book.observe(session_id, on=False)
    if watched:
        core.lifecycle.follow_changed()


def forget(core: GatewayCore, session_id: str) -> None:
    core.observed.replan = True
    core.observed.worked_at.pop(session_id, None)
    core.observed.messages.pop(session_id, None)
    core.observed.due.pop(session_id, None)
    core.observed.fresh.discard(session_id)


def connection_lost(core: GatewayCore) -> None:
    """Every observed session is asked again as soon as the next handshake is done."""
    watch = core.observed
    watch.due.clear()
    watch.listed = False
    watch.fresh.update(core.session_book.observed())
    watch.at = None
    watch.replan = True


def poll_due(core: GatewayCore) -> None:
    """Ask ``approval.pending`` for every observed session its plan says is due."""
    watch = core.observed
    watch.replan, watch.polled = False, core.lifecycle.polled
    if core.dialect is not Dialect.HERMES020 or not core.connected:
        watch.at = None
        return
    now, settings = core.clock(), core.settings
    earliest: float | None = None
    for session_id in core.session_book.observed():
        if session_id in watch.fresh and not core.outbox.awaits(Purpose.PENDING, session_id):
            watch.fresh.discard(session_id)
            poll_pending(core, session_id)
        session = core.session_book.get(session_id)
        worked = watch.worked_at.get(session_id, -math.inf)
        if session_id in core.lifecycle.polled:
            interval = settings.open_poll_interval
        elif session is not None and session.running:
            interval = settings.observe_poll_interval
        elif now < worked + settings.observe_linger:
            interval = settings.observe_linger_poll_interval
        else:
            watch.due.pop(session_id, None)
            continue
        due = watch.due.get(session_id, now)
        if now >= due:
            poll_pending(core, session_id)
            due = next_on_grid(now, interval)
        due = min(due, next_on_grid(now, interval))  # a shorter plan now
        watch.due[session_id] = due
        earliest = due if earliest is None else min(earliest, due)
    watch.at = earliest
