"""Which sessions the tray follows or observes, and what following, observing or losing one does.

A followed session is resumed after every reconnect and its rows may be answered. On 0.20 a
resume takes a session's events away from the window that shows it, so sessions another client
runs are *observed* (measured on axisrow 0.20.1.2): rows from ``approval.pending`` only,
answered by id, never resumed, gone when the session leaves ``session.active_list``. No event
says something waits, so ``tick`` asks each list on a plan (``CoreSettings``), for a while after
the session's last work too: sub-agents ask after their parent's turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import outcomes, payloads
from desktop.core.approvals import ApprovalMachine
from desktop.core.connection import Link, next_on_grid
from desktop.core.events import CoreEvent, SessionRemoved
from desktop.core.model import Dialect
from desktop.core.prompt_book import PromptBook
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings

MAX_OBSERVED = 200  # the list verb's own limit; a longer list is cut
ID_CHARS = 128
TITLE_CHARS = 200
WORKING = "working"


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


class Following:
    """The follow set's changes, and the plan on which observed sessions' lists are asked."""

    def __init__(
        self,
        settings: CoreSettings,
        clock: Callable[[], float],
        sessions: SessionBook,
        lifecycle: ApprovalMachine,
        prompts: PromptBook,
        link: Link,
        events: list[CoreEvent],
    ) -> None:
        self._settings, self._clock, self._sessions = settings, clock, sessions
        self._lifecycle, self._prompts, self._link, self._events = lifecycle, prompts, link, events
        self._worked_at: dict[str, float] = {}
        self._messages: dict[str, int] = {}  # message_count at the last list
        self._due: dict[str, float] = {}
        self._fresh: set[str] = set()  # asked once at once, whatever the plan
        self._listed = False  # this connection has had its first list
        self.at: float | None = None  # the earliest due time (a deadline of the core)

    def follow(self, session_id: str, *, on: bool = True) -> None:
        self._sessions.follow(session_id, on=on)
        self.changed()

    def changed(self) -> None:
        """A session was followed or let go: its rows and prompts are judged again."""
        self._lifecycle.follow_changed()
        self._prompts.rejudge(self._link.dialect)

    def remove(self, session_id: str, reason: str) -> None:
        """Drop a session: its open rows and prompts end (session gone)."""
        self.forget(session_id)
        self._lifecycle.session_gone(session_id, outcomes.withdrawn(outcomes.SESSION_GONE))
        self._prompts.session_gone(session_id)
        if self._sessions.remove(session_id):
            self._events.append(SessionRemoved(session_id, reason))

    def observe_listed(self, result: Mapping[str, Any]) -> None:
        """0.20: observe other clients' listed sessions (not the tray's own); unlisted ones end."""
        if self._link.dialect is not Dialect.HERMES020:
            return
        live = listed_sessions(result)
        sessions = self._sessions
        for session_id in sessions.observed():
            if session_id not in live:
                self.remove(session_id, "ended")
        now = self._clock()
        for session_id, (key, status, title, count) in live.items():
            known = sessions.get(session_id) is not None
            if known and not sessions.is_observed(session_id):
                continue  # the tray's own (or attached) session
            if not known:
                sessions.ensure(session_id)
                sessions.observe(session_id)
                self._lifecycle.follow_changed()
                self._fresh.add(session_id)
                if self._listed:
                    self._worked_at[session_id] = now
            changes = {"stored_session_id": key} if key else {}
            if title:
                changes["title"] = title
            sessions.update(session_id, **changes)
            moved = count is not None and self._messages.get(session_id, count) != count
            if count is not None:
                self._messages[session_id] = count
            if status == WORKING or moved:
                self._worked_at[session_id] = now
            sessions.set_running(session_id, status == WORKING)
        self._listed = True

    def stop_observing(self) -> None:
        """The sessions stay known; their rows become read-only."""
        watched = self._sessions.observed()
        for session_id in watched:
            self.forget(session_id)
            self._sessions.observe(session_id, on=False)
        if watched:
            self._lifecycle.follow_changed()

    def forget(self, session_id: str) -> None:
        self._worked_at.pop(session_id, None)
        self._messages.pop(session_id, None)
        self._due.pop(session_id, None)
        self._fresh.discard(session_id)

    def connection_lost(self) -> None:
        """Every observed session is asked again as soon as the next handshake is done."""
        self._due.clear()
        self._listed = False
        self._fresh.update(self._sessions.observed())
        self.at = None

    def tick(self) -> None:
        link, settings, polled = self._link, self._settings, self._lifecycle.polled
        if link.dialect is not Dialect.HERMES020 or not link.connected:
            self.at = None
            return
        now = self._clock()
        earliest: float | None = None
        for session_id in self._sessions.observed():
            if session_id in self._fresh and link.poll_pending(session_id) is not None:
                self._fresh.discard(session_id)  # else a list is on its way: asked again after
            session = self._sessions.get(session_id)
            worked = self._worked_at.get(session_id, -math.inf)
            if session_id in polled:
                interval = settings.open_poll_interval
            elif session is not None and session.running:
                interval = settings.observe_poll_interval
            elif now < worked + settings.observe_linger:
                interval = settings.observe_linger_poll_interval
            else:
                self._due.pop(session_id, None)
                continue
            due = self._due.get(session_id, now)
            if now >= due:
                link.poll_pending(session_id)
                due = next_on_grid(now, interval)
            due = min(due, next_on_grid(now, interval))  # a shorter plan now
            self._due[session_id] = due
            earliest = due if earliest is None else min(earliest, due)
        self.at = earliest
