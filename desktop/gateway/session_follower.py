"""Follow other clients' live sessions too, where that is harmless, so their approvals reach us.

* B: ``session.active_list`` at each handshake and on ``sessions.changed``; a resume *joins*.
* C: ``session.list`` at each handshake and, spaced out, after session events (no broadcast).
* HERMES020: a resume would take the stream from its window, so sessions are only *observed*.
* A (0.19.0): never (one transport per session there).

A session the tray started is let go once the core knows it (the B broadcast can beat the
``session.create`` reply). After a drop adopted sessions are not resumed blindly (a tui_gateway
resume of an ended session rebuilds it): the next handshake's list decides.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from desktop.core.events import (
    CoreEvent,
    HandshakeCompleted,
    RpcResponded,
    SessionChanged,
    SessionRemoved,
)
from desktop.core.gateway_core import GatewayCore
from desktop.core.model import Dialect
from desktop.gateway.errors import GatewayError

log = logging.getLogger(__name__)

LIST_CHANGED_EVENT = "sessions.changed"
_LIST_CHANGED_NEEDLE = LIST_CHANGED_EVENT.encode()
MAX_LIST_CHANGED_FRAME = 4096  # the real frame is ~100 bytes; anything bigger is not it
RELIST_SPACING_S = 5.0  # C re-lists on session events at most this often
MAX_FOLLOWED = 200  # the list verbs' own limit; a longer list is cut, not followed whole

Call = Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
Spawn = Callable[[Coroutine[Any, Any, Any]], None]


FANS_OUT = (Dialect.B, Dialect.C)  # the dialects whose sessions take any number of viewers
LISTS = (*FANS_OUT, Dialect.HERMES020)  # the dialects whose live sessions are listed here
BROADCASTS_CHANGES = (Dialect.B, Dialect.HERMES020)  # they say sessions.changed


def follows_others(dialect: Dialect | None, follow_all: bool) -> bool:
    """Whether other clients' sessions are followed on ``dialect`` (None: not yet known)."""
    return follow_all and (dialect is None or dialect in LISTS)


def is_list_changed(message: str | bytes) -> bool:
    """True if ``message`` is the tui_gateway broadcast ``sessions.changed`` (cheap first)."""
    if len(message) > MAX_LIST_CHANGED_FRAME:
        return False
    raw = message.encode() if isinstance(message, str) else message
    if _LIST_CHANGED_NEEDLE not in raw:
        return False
    try:
        frame = json.loads(raw)
    except (ValueError, RecursionError):  # hostile nesting is not the broadcast
        return False
    if not isinstance(frame, dict) or frame.get("method") != "event":
        return False
    params = frame.get("params")
    return isinstance(params, dict) and params.get("type") == LIST_CHANGED_EVENT


class SessionFollower:
    def __init__(
        self,
        core: GatewayCore,
        *,
        call: Call,
        flush: Callable[[], object],
        spawn: Spawn,
        later: Callable[[float, Callable[[], None]], asyncio.TimerHandle | None],
        clock: Callable[[], float],
        follow_all: bool = True,
    ) -> None:
        self._core = core
        self._call = call
        self._flush = flush
        self._spawn = spawn
        self._later = later
        self._clock = clock
        self._follow_all = follow_all
        self._adopted: set[str] = set()  # sessions this follower follows (not the tray's own)
        self._attached: set[str] = set()  # adopted and resumed on the current connection
        self._connected = False
        self._listing = False
        self._again = False
        self._last_list_at: float | None = None
        self._spaced: asyncio.TimerHandle | None = None

    @property
    def follows_others(self) -> bool:
        return follows_others(self._core.dialect, self._follow_all)

    def peek(self, message: str | bytes) -> None:
        """Every received frame: B's and 0.20's list-changed starts a list."""
        connected = self._connected and self._core.dialect in BROADCASTS_CHANGES
        if connected and is_list_changed(message):
            self.relist()

    def on_event(self, event: CoreEvent) -> None:
        if isinstance(event, HandshakeCompleted):
            self._connected = True
            self._attached.clear()
            self._last_list_at = None
            self.relist()
        elif isinstance(event, SessionRemoved):
            self._adopted.discard(event.session_id)
            self._attached.discard(event.session_id)
            if self._core.dialect in FANS_OUT:
                self.relist(spaced=True)
        elif isinstance(event, SessionChanged) and self._core.dialect is Dialect.C:
            self.relist(spaced=True)
        elif isinstance(event, RpcResponded) and self._adopted:
            self._disown_started()

    def _disown_started(self) -> None:
        """Let go of adopted sessions a create reply showed to be the tray's own."""
        own = {sid for sid in self._adopted if self._core.started_here(sid)}
        if own:
            self._adopted -= own
            self._attached -= own
            log.info("%d followed session(s) turned out to be started here", len(own))

    def connection_lost(self) -> None:
        """Stop the core from blindly resuming adopted sessions; the next list decides."""
        self._connected = False
        self._cancel_spaced()
        for session_id in self._adopted:
            self._core.unwatch_session(session_id)
        self._attached.clear()

    def close(self) -> None:
        self._connected = False
        self._cancel_spaced()

    def relist(self, *, spaced: bool = False) -> None:
        """One list in flight plus one trailing; ``spaced``: RELIST_SPACING_S after the last."""
        if not self._connected or not self.follows_others or (spaced and self._spaced):
            return
        if self._listing:
            self._again = True
            return
        last = self._last_list_at
        wait = last + RELIST_SPACING_S - self._clock() if spaced and last is not None else 0.0
        if wait > 0:
            self._spaced = self._later(wait, self._spaced_due)
            return
        self._cancel_spaced()
        self._listing = True
        self._spawn(self._list_loop())

    def _spaced_due(self) -> None:
        self._spaced = None
        self.relist()

    def _cancel_spaced(self) -> None:
        if self._spaced is not None:
            self._spaced.cancel()
            self._spaced = None

    async def _list_loop(self) -> None:
        try:
            while True:
                self._again = False
                await self._list_once()
                if not (self._again and self._connected and self.follows_others):
                    return
        finally:
            self._listing = False

    async def _list_once(self) -> None:
        dialect = self._core.dialect
        if dialect not in LISTS:
            return
        method, params = list_request(dialect)
        self._last_list_at = self._clock()
        try:
            result = await self._call(method, params)
        except GatewayError as exc:
            log.info("could not list live sessions to follow: %s", exc)
            return
        if not self._connected or not self.follows_others or self._core.dialect is not dialect:
            return
        if dialect is Dialect.HERMES020:
            before = self._core.observed_sessions
            self._core.observe_sessions(result)
            after = self._core.observed_sessions
            if after != before:
                log.info(
                    "observing %d session(s) other clients run (by their pending list)", len(after)
                )
            self._flush()
            return
        self._apply(live_sessions(dialect, result))

    def _apply(self, live: dict[str, str]) -> None:
        """Adopt listed sessions that nothing follows yet; let adopted ones that left go."""
        self._release(self._adopted - set(live))
        adopted_now = 0
        for session_id, stored in live.items():
            if session_id in self._attached:
                continue
            known = self._core.session(session_id) is not None
            if known and session_id not in self._adopted:
                continue  # the tray's own session: the core resubscribes it itself
            self._core.watch_session(session_id, stored_session_id=stored)
            if self._core.resume_session(session_id) is None:
                log.info("session %s is listed but cannot be resumed; not followed", session_id)
                self._core.unwatch_session(session_id)
                continue
            self._adopted.add(session_id)
            self._attached.add(session_id)
            adopted_now += 1
        if adopted_now:
            log.info(
                "following %d more session(s) other clients run (%d in all)",
                adopted_now,
                len(self._adopted),
            )
            self._flush()

    def _release(self, session_ids: set[str]) -> None:
        for session_id in session_ids:
            self._core.unwatch_session(session_id)
            self._adopted.discard(session_id)
            self._attached.discard(session_id)


def list_request(dialect: Dialect) -> tuple[str, dict[str, Any]]:
    """tui_gateway lists live sessions with ``session.active_list``; canonical's list is live."""
    if dialect is Dialect.C:
        return "session.list", {"limit": 200}
    return "session.active_list", {}


def live_sessions(dialect: Dialect, result: Mapping[str, Any]) -> dict[str, str]:
    """``{session_id: stored_id}`` from a list result; bad entries skipped, ids bounded."""
    rows = result.get("sessions")
    if not isinstance(rows, list):
        return {}
    live: dict[str, str] = {}
    for row in rows[:MAX_FOLLOWED]:
        if not isinstance(row, Mapping):
            continue
        if dialect is Dialect.C:
            session_id = _id(row.get("session_id") or row.get("id"))
            stored = session_id
        else:
            session_id = _id(row.get("id"))
            stored = _id(row.get("session_key"))
        if session_id and (stored or dialect is Dialect.C):
            live[session_id] = stored
    return live


def _id(value: object) -> str:
    return value if isinstance(value, str) and 0 < len(value) <= 128 else ""
