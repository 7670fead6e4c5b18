"""Which sessions the tray menu lists: the most urgent few, without the finished ones. Qt-free.

Bounded because 2,000 live sessions made a 32,014-item menu: the rest go in a submenu.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from desktop.core.model import SessionState, SessionStatus
from desktop.model.snapshot import AppSnapshot, Link

MENU_SESSIONS = 12  # at most; the menu's entry budget may list fewer (tray_menu)
FINISHED_AFTER = 15 * 60.0

SessionRef = tuple[str, str]  # (gateway_id, session_id)


@dataclass(frozen=True, slots=True)
class MenuPick:
    shown: dict[str, tuple[SessionState, ...]]
    finished: int  # sessions left out as finished or closed
    rest: tuple[tuple[str, SessionState], ...] = ()  # (gateway_id, session) past the bound

    def sessions(self, gateway_id: str) -> tuple[SessionState, ...]:
        return self.shown.get(gateway_id, ())


def _urgency(session: SessionState, waiting: int) -> tuple[int, int]:
    if waiting:
        return (0, -waiting)
    if session.status is SessionStatus.WORKING or session.running:
        return (1, 0)
    if session.yolo.effective:
        return (2, 0)
    return (3, 0)


class SessionShelf:
    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        limit: int = MENU_SESSIONS,
        finished_after: float = FINISHED_AFTER,
    ) -> None:
        self._clock = clock
        self.limit = limit
        self.finished_after = finished_after
        self._idle_since: dict[SessionRef, float] = {}
        self._busy_at: dict[SessionRef, float] = {}  # last time each was seen busy
        self._closed: set[SessionRef] = set()

    def close(self, gateway_id: str, session_id: str) -> None:
        """The person chose Close in the session's submenu: leave it out until it is busy."""
        self._closed.add((gateway_id, session_id))

    def now(self) -> float:
        return self._clock()

    def next_change(self) -> float | None:
        """When an idle session will count as finished (the menu should be rebuilt then)."""
        times = [
            t + self.finished_after for r, t in self._idle_since.items() if r not in self._closed
        ]
        return min(times) if times else None

    def note_busy(self, snapshot: AppSnapshot) -> None:
        """Note busy sessions at every snapshot: a short turn between menu picks still counts."""
        now = self._clock()
        for gateway in snapshot.gateways:
            asking = {row.session_id for row in gateway.waiting}
            asking.update(p.session_id for p in gateway.prompts)
            for session in gateway.sessions:
                if _urgency(session, int(session.session_id in asking))[0] < 2:
                    self._busy_at[(gateway.gateway_id, session.session_id)] = now

    def peek(self, snapshot: AppSnapshot) -> MenuPick:
        saved = dict(self._idle_since), dict(self._busy_at), set(self._closed)
        try:
            return self.pick(snapshot)
        finally:
            self._idle_since, self._busy_at, self._closed = saved

    def pick(self, snapshot: AppSnapshot) -> MenuPick:
        self.note_busy(snapshot)
        now = self._clock()
        # (urgency, recency, arrival, gateway, session): the one last seen busy first in a class
        candidates: list[tuple[tuple[int, int], float, int, str, SessionState]] = []
        finished = 0
        seen: set[SessionRef] = set()
        order = 0
        for gateway in snapshot.gateways:
            if gateway.link is not Link.UP:
                continue
            waiting: dict[str, int] = {}
            waiting_ids = [row.session_id for row in gateway.waiting]
            for session_id in (*waiting_ids, *(p.session_id for p in gateway.prompts)):
                waiting[session_id] = waiting.get(session_id, 0) + 1  # a question counts too
            for session in gateway.sessions:
                ref = (gateway.gateway_id, session.session_id)
                seen.add(ref)
                n = waiting.get(session.session_id, 0)
                urgency = _urgency(session, n)
                recency = -self._busy_at.get(ref, float("-inf"))
                if urgency[0] < 3:  # not idle: back in the list, its idle time restarts
                    self._idle_since.pop(ref, None)
                    self._closed.discard(ref)
                else:
                    since = self._idle_since.setdefault(ref, now)
                    if ref in self._closed or now - since >= self.finished_after:
                        finished += 1
                        continue
                candidates.append((urgency, recency, order, gateway.gateway_id, session))
                order += 1
        for ref in [r for r in self._idle_since if r not in seen]:
            del self._idle_since[ref]
        for ref in [r for r in self._busy_at if r not in seen]:
            del self._busy_at[ref]
        self._closed &= seen
        candidates.sort(key=lambda c: (c[0], c[1], c[2]))
        chosen = candidates[: self.limit]
        shown: dict[str, list[SessionState]] = {}
        for _, _, _, gateway_id, session in chosen:
            shown.setdefault(gateway_id, []).append(session)
        rest = tuple((c[3], c[4]) for c in candidates[self.limit :])
        return MenuPick({g: tuple(s) for g, s in shown.items()}, finished, rest)
