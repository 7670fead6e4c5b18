"""The handshake, the sessions the tray follows, and the lists the core asks on its own.

The handshake fixes the dialect, never a guess (protocol.md §1.2-1.3, §6.2): subprotocol
``hermes-gateway-v1`` means C; after ``gateway.ready``, a ``client.capabilities`` answer means B,
an error 0.19.0 (the strictest guess) unless the ready frame said ``change_events`` (0.20). A
new socket is a new viewer: every followed session is resumed after each handshake (§5).

A followed session is resumed after every reconnect and its rows may be answered. On 0.20 a
resume takes a session's events away from the window that shows it, so sessions another client
runs are *observed* (measured on axisrow 0.20.1.2): rows from ``approval.pending`` only,
answered by id, never resumed, gone when the session leaves ``session.active_list``. No event
says something waits, so ``poll_observed`` asks each list on a plan (``CoreSettings``), for a
while after the session's last work too: sub-agents ask after their parent's turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from desktop.core import outcomes, payloads
from desktop.core.approvals import ApprovalMachine
from desktop.core.dialects import ADAPTERS, DialectAdapter
from desktop.core.events import CoreEvent, NoticeReceived, SessionRemoved
from desktop.core.jsonrpc import EventFrame
from desktop.core.model import Dialect
from desktop.core.outbox import Outbox, PendingCall, Purpose
from desktop.core.prompt_book import PromptBook
from desktop.core.session_state import SessionBook
from desktop.core.settings import CoreSettings

CANONICAL_SUBPROTOCOL = "hermes-gateway-v1"
CAPABILITIES_METHOD = "client.capabilities"
CAPABILITIES_PARAMS: Mapping[str, Any] = {"server_requests": True}
POLLS_PENDING = (Dialect.B, Dialect.HERMES020)
LIST_ROW_BYTES = 512  # what a pending list spends on one request besides its command, generously
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


class Link:
    """The current (or last) connection, the follow set, and the plans its lists are asked on."""

    def __init__(
        self,
        settings: CoreSettings,
        clock: Callable[[], float],
        outbox: Outbox,
        sessions: SessionBook,
        lifecycle: ApprovalMachine,
        prompts: PromptBook,
        events: list[CoreEvent],
    ) -> None:
        self._settings, self._clock, self._outbox = settings, clock, outbox
        self._sessions, self._lifecycle = sessions, lifecycle
        self._prompts, self._events = prompts, events
        self.epoch = 0  # the current (or last) connection's number
        self.connected = False
        self.dialect: Dialect | None = None  # once the handshake fixed it
        self.adapter: DialectAdapter = ADAPTERS[None]
        self.awaiting_ready = False
        self.replay_epoch = ""
        self.server_requests: tuple[str, ...] = ()
        self.change_events = False
        self.declines_not_shown = False  # B counts a 4404 decline (window requests)
        self.poll_at: float | None = None  # when open rows' pending lists are next asked
        self._asked_at: dict[str, float] = {}  # when each session's list was last asked so
        self._worked_at: dict[str, float] = {}  # observed sessions' last work
        self._messages: dict[str, int] = {}  # message_count at the last list
        self._due: dict[str, float] = {}
        self._fresh: set[str] = set()  # asked once at once, whatever the plan
        self._listed = False  # this connection has had its first list
        self.at: float | None = None  # the earliest observed list due (a deadline of the core)
        self.suspects: set[str] = set()  # resume out at a too-big close: resumed one at a time
        self.too_big: set[str] = set()  # their snapshot alone passed the limit: never resumed
        self._held: list[tuple[str, Purpose, int]] = []  # suspects' resumes waiting their turn

    @property
    def ready(self) -> bool:
        """Connected and past the handshake: answers and resumes may go."""
        return self.connected and self.dialect is not None

    def opened(self, epoch: int, subprotocol: str | None) -> bool:
        """A new transport; True when the subprotocol alone fixed the dialect (C)."""
        self.epoch, self.connected = epoch, True
        self.replay_epoch, self.server_requests = "", ()
        self.change_events = self.declines_not_shown = False
        self.awaiting_ready = subprotocol != CANONICAL_SUBPROTOCOL
        return not self.awaiting_ready

    def lost(self, *, too_big: bool = False) -> None:
        """The transport is gone; ``too_big``: a frame past the limit closed it.

        Sessions whose resume was out then become suspects, resumed one at a time; a suspect out
        alone is the culprit.
        """
        out = self._outbox.resuming() if too_big else set()
        self.connected = self.awaiting_ready = False
        self.use(None)
        self._held.clear()
        if len(out) == 1 and out <= self.suspects:
            self._give_up(out.pop())
        self.suspects |= out

    def _give_up(self, session_id: str) -> None:
        """A history only grows: resuming it again would close the connection every time."""
        self.suspects.discard(session_id)
        self.too_big.add(session_id)
        self.follow(session_id, on=False)  # no snapshot will tell what became of its rows
        mib = self._settings.max_frame_bytes / 2**20
        text = f"Its history is larger than this tray accepts ({mib:g} MiB); its approvals show in "
        text += "Hermes, not here."
        self._events.append(NoticeReceived(session_id, text, "warning"))

    def use(self, dialect: Dialect | None) -> None:
        self.dialect, self.adapter = dialect, ADAPTERS[dialect]

    def gateway_ready(self, frame: EventFrame) -> None:
        """``gateway.ready``: ask ``client.capabilities`` when the handshake needs it."""
        payload = frame.payload
        if not self.connected:
            return
        self.replay_epoch = payloads.text(payload, "replay_epoch") or self.replay_epoch
        if self.awaiting_ready:
            self.awaiting_ready = False
            self.change_events = "change_events" in payload
            self._outbox.request(
                CAPABILITIES_METHOD, CAPABILITIES_PARAMS, Purpose.CAPABILITIES, self.epoch
            )

    def capabilities(self, result: Mapping[str, Any] | None) -> Dialect:
        """The ``client.capabilities`` answer (None for an error response) fixes the dialect."""
        if result is None:
            return Dialect.HERMES020 if self.change_events else Dialect.A
        self.server_requests = payloads.strings(result, "server_requests")
        self.declines_not_shown = payloads.flag(result, "declines_not_shown") is True
        return Dialect.B

    def request(
        self,
        method: str,
        params: Mapping[str, Any],
        purpose: Purpose,
        session_id: str = "",
        rpc_id: int | None = None,
    ) -> int:
        """A request whose answer judges only the rows that arrived before it (its watermark)."""
        watermark = self._lifecycle.last_seq
        frame = self._outbox.request(
            method,
            params,
            purpose,
            self.epoch,
            watermark=watermark,
            session_id=session_id,
            rpc_id=rpc_id,
        )
        return frame.rpc_id or 0  # requests always carry an id

    def resume(
        self, session_id: str, purpose: Purpose = Purpose.RESUME, rpc_id: int | None = None
    ) -> int | None:
        """Queue ``session.resume`` (its snapshot is folded in on answer); None if it cannot go.

        A suspect waits (under the id returned now) while another suspect's resume is out.
        """
        session = self._sessions.get(session_id)
        if session is None or not self.ready or session_id in self.too_big:
            return None
        params = self.adapter.resume_params(session, self._settings)
        if params is None:  # tui_gateway needs the stored id
            return None
        busy = self.suspects & self._outbox.resuming()
        if rpc_id is None and session_id in self.suspects and busy:
            rpc_id = self._outbox.next_rpc_id()
            self._held.append((session_id, purpose, rpc_id))
            return rpc_id
        return self.request("session.resume", params, purpose, session_id, rpc_id)

    def answered(self, call: PendingCall) -> None:
        """A suspect's resume was answered (the connection held): the next suspect goes."""
        if call.method == "session.resume" and call.session_id in self.suspects:
            self.suspects.discard(call.session_id)
            while self._held and self.resume(*self._held.pop(0)) is None:
                pass  # that session is gone or let go

    def poll_while_open(self) -> None:
        """Ask the lists of followed sessions whose open rows only a list can close (bounded)."""
        book = self._sessions
        polled = self._lifecycle.polled if self.dialect in POLLS_PENDING and self.connected else ()
        sessions = sorted(s for s in polled if book.is_followed(s) and not book.is_observed(s))
        if not sessions:
            self.poll_at = None
            return
        now = self._clock()
        if self.poll_at is not None and now >= self.poll_at:
            asked = self._asked_at
            for gone in asked.keys() - set(sessions):
                del asked[gone]
            turn = sorted(sessions, key=lambda s: asked.get(s, -math.inf))
            for session_id in turn[: self._settings.open_polls_per_interval]:
                if self.poll_pending(session_id) is not None:
                    asked[session_id] = now
        if self.poll_at is None or now >= self.poll_at:
            self.poll_at = next_on_grid(now, self._settings.open_poll_interval)

    def poll_pending(self, session_id: str) -> int | None:
        """B and 0.20: ask ``approval.pending`` what still waits; None if it is not asked now."""
        if self.dialect not in POLLS_PENDING or self._sessions.get(session_id) is None:
            return None
        if self._outbox.awaits(Purpose.PENDING, session_id):
            return None
        if self._list_too_big(session_id):
            return None
        params = {"session_id": session_id}
        return self.request("approval.pending", params, Purpose.PENDING, session_id)

    def _list_too_big(self, session_id: str) -> bool:
        """Whether the answer (every open command again) may pass half the frame limit.

        Past it the connection closes, again after each reconnect; rows end by their own frames.
        """
        rows = self._lifecycle.open_rows(session_id)
        size = sum(len(row.asked.command) + LIST_ROW_BYTES for row in rows)
        return size > self._settings.max_frame_bytes // 2

    def follow(self, session_id: str, *, on: bool = True) -> None:
        """Follow or let go of a session: its rows and prompts are judged again."""
        self._sessions.follow(session_id, on=on)
        self._lifecycle.follow_changed()
        self._prompts.rejudge(self.dialect)

    def remove(self, session_id: str, reason: str) -> None:
        """Drop a session: its open rows and prompts end (session gone)."""
        self.forget(session_id)
        self._lifecycle.session_gone(session_id, outcomes.withdrawn(outcomes.SESSION_GONE))
        self._prompts.session_gone(session_id)
        if self._sessions.remove(session_id):
            self._events.append(SessionRemoved(session_id, reason))

    def observe_listed(self, result: Mapping[str, Any]) -> None:
        """0.20: observe other clients' listed sessions (not the tray's own); unlisted ones end."""
        if self.dialect is not Dialect.HERMES020:
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

    def poll_observed(self) -> None:
        settings, polled = self._settings, self._lifecycle.polled
        if self.dialect is not Dialect.HERMES020 or not self.connected:
            self.at = None
            return
        now = self._clock()
        earliest: float | None = None
        for session_id in self._sessions.observed():
            if session_id in self._fresh and self.poll_pending(session_id) is not None:
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
                self.poll_pending(session_id)
                due = next_on_grid(now, interval)
            due = min(due, next_on_grid(now, interval))  # a shorter plan now
            self._due[session_id] = due
            earliest = due if earliest is None else min(earliest, due)
        self.at = earliest


def next_on_grid(now: float, interval: float) -> float:
    """The first multiple of ``interval`` after ``now``: sessions on one plan are asked together."""
    return (math.floor(now / interval) + 1) * interval
