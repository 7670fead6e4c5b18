"""The approval book: every approval's life, from request to its one outcome.

Theory of operation (design.md §2)::

    WAITING ⇄ STALE          (the core can no longer be sure the server waits on exactly this)
       │  ╲    │
       │   SENDING           (one decision frame queued or in flight; no second one)
       ▼   ▼   ▼
    RESOLVED + exactly one Outcome: approved(choice) | denied | withdrawn(reason) | expired |
                                    unknown(sent, fate unknown)

* A row is created once per wire request (``ApprovalRequested`` once); a re-delivery of the same
  server request or prompt maps onto the existing row (and confirms it). Every change of the
  value, phase or answerability emits ``ApprovalChanged``. :meth:`ApprovalBook.resolve` refuses a
  second outcome.
* A request is the same only if its wire id (``srq`` id; ``prompt_id`` *and* generation) and
  everything read from it are equal: an id the gateway re-uses for other content is a new
  request, shown as a new row, because an answer goes to whatever the gateway now files under
  that id. The rows that id stood for until then are the caller's to close
  (:meth:`ApprovalBook.replaced_by`; ``wire_effects``), never to be answered as shown.
* A FIFO row on a session whose head the core cannot vouch for (resumed mid-turn:
  :meth:`ApprovalBook.doubt_head`) starts STALE with ``answer_rules.HEAD_UNSURE``, until the
  turn ends.
* Rows open at the same time on one session share a batch; a new batch starts when the session
  had no open row. A request for the same command (text and pattern keys) as an earlier row of
  the same turn that was already answered or settled is a *re-ask* (``reask_of``): a new row,
  never answered from the earlier decision (terminal_approval_batch "re-gate").
* Only FIFO (0.19.0) rows expire locally: ``expires_at`` is the arrival time plus the server's
  timeout as far as the core knows it (assumed until learned; see ``desktop.core.timeouts`` for
  why it errs short), and the server, which started counting before the frame reached us, gives
  up first. On B and C ``expires_at`` only drives the countdown: those servers say when.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any

from desktop.core import outcomes
from desktop.core.answer_rules import HEAD_UNSURE, SENDING, AnswerContext, Rules, assess, in_margin
from desktop.core.approval_cache import BookCache, Version, span_around
from desktop.core.approval_rows import OPEN_WAITING, Row, find_by_wire_id, wire_ident
from desktop.core.events import ApprovalChanged, ApprovalRequested, CoreEvent
from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome, WireRef, same_fields
from desktop.core.settings import CoreSettings
from desktop.core.timeouts import ApprovalTimeouts, may_retime
from desktop.core.wire import ApprovalAsked, RowKind


class ApprovalBook:
    """All approvals of one core, oldest first. Events go to ``sink`` as they happen."""

    def __init__(self, settings: CoreSettings, sink: list[CoreEvent]) -> None:
        self._settings = settings
        self._timeouts = ApprovalTimeouts(settings)
        self._sink = sink
        self._rows: dict[str, Row] = {}
        self._seq = itertools.count(1)
        self._batch_numbers = itertools.count(1)
        self._last_seq = 0
        self._batches: dict[str, tuple[str, int]] = {}  # session → (open batch, next position)
        self._turns: dict[str, dict[tuple[str, tuple[str, ...]], str]] = {}
        self._last_tool: dict[str, str] = {}
        self._cache = BookCache()  # results of the walks below, while they hold
        # 0.19.0 sessions whose FIFO head is in doubt (resumed mid-turn, an answer of unknown
        # fate), with the reason their rows show.
        self._unsure_heads: dict[str, str] = {}

    # -- reading ----------------------------------------------------------------------------
    @property
    def last_seq(self) -> int:
        """The arrival number of the newest row (a watermark for reconciliation)."""
        return self._last_seq

    def get(self, key: str) -> Row | None:
        return self._rows.get(key)

    def rows(self) -> list[Row]:
        return list(self._rows.values())

    def open_rows(self, session_id: str | None = None) -> list[Row]:
        rows = self._open()[0]
        if session_id is None:
            return list(rows)
        return [row for row in rows if row.session_id == session_id]

    def find(self, kind: RowKind, ident: str | int, generation: int | None = None) -> Row | None:
        """The row a server request id, or a prompt id (and generation, if given), stands for."""
        return find_by_wire_id(self._rows.values(), kind, ident, generation)

    def replaced_by(self, asked: ApprovalAsked) -> list[Row]:
        """Unresolved rows filed under ``asked``'s wire id that show another request.

        Empty for a re-delivery of the request a row already shows, and for FIFO rows (no id).
        """
        ident = wire_ident(asked)
        if ident is None or self.redelivery_of(asked) is not None:
            return []
        return [
            row
            for row in self.open_rows()
            if row.kind is asked.kind and wire_ident(row.asked) == ident
        ]

    def redelivery_of(self, asked: ApprovalAsked) -> Row | None:
        """The row that already shows exactly ``asked`` (same id, generation and content)."""
        ident = wire_ident(asked)
        if ident is None:
            return None
        row = self.find(asked.kind, ident, asked.execution_generation)
        return row if row is not None and row.asked == asked else None

    def fifo_head(self, session_id: str) -> Row | None:
        return next((r for r in self.open_rows(session_id) if r.kind is RowKind.FIFO), None)

    def waiting_sessions(self) -> frozenset[str]:
        return self._open()[1]

    @property
    def learned_timeout(self) -> float | None:
        return self._timeouts.learned

    # -- writing ----------------------------------------------------------------------------
    def ask(
        self, asked: ApprovalAsked, now: float, epoch: int, ctx: AnswerContext, doubt: str = ""
    ) -> Row:
        """Add a row for ``asked``, or confirm and return the row that already shows it.

        The caller closes :meth:`replaced_by` rows first (their outcome needs the outbox);
        ``doubt``: a new row starts STALE with this reason.
        """
        existing = self.redelivery_of(asked)
        if existing is not None:
            self.confirm(existing)
            return existing
        session = asked.session_id
        seq = self._last_seq = next(self._seq)
        batch_id, position = self._place(session)
        signature = (asked.command, asked.pattern_keys)
        turn = self._turns.setdefault(session, {})
        earlier_key = turn.get(signature, "")
        earlier = self._rows.get(earlier_key)
        reask_of = (
            earlier_key
            if earlier_key and (not earlier or earlier.phase not in OPEN_WAITING)
            else ""
        )
        turn[signature] = key = f"approval-{seq}"
        timeout, basis = self._timeouts.for_new_row(asked.kind)
        unsure = self._unsure_heads.get(session, "") if asked.kind is RowKind.FIFO else ""
        stale_reason = doubt or unsure
        approval = Approval(
            key=key,
            session_id=session,
            batch_id=batch_id,
            position=position,
            command=asked.command,
            description=asked.description,
            pattern_keys=asked.pattern_keys,
            choices=asked.choices,
            smart_denied=asked.smart_denied,
            arrived_at=now,
            expires_at=now + timeout,
            reask_of=reask_of,
            phase=ApprovalPhase.STALE if stale_reason else ApprovalPhase.WAITING,
            wire=WireRef(
                srq_id="" if asked.reply_id is None else str(asked.reply_id),
                request_id=asked.request_id,
                execution_generation=asked.execution_generation,
                fifo_seq=seq if asked.kind is RowKind.FIFO else 0,
            ),
        )
        row = Row(
            approval,
            asked,
            seq,
            epoch,
            stale_reason=stale_reason,
            tool_id=self._last_tool.get(session, ""),
        )
        row.timeout_basis = basis
        self._rows[key] = row
        answerable, blocked = self._assess(row, ctx)
        row.approval = dataclasses.replace(approval, answerable=answerable, blocked_reason=blocked)
        self._sink.append(ApprovalRequested(row.approval))
        return row

    def resolve(self, row: Row, outcome: Outcome) -> bool:
        """Give ``row`` its one outcome. False (and nothing changes) if it already has one."""
        if row.phase is ApprovalPhase.RESOLVED:
            return False
        self._change(
            row,
            phase=ApprovalPhase.RESOLVED,
            outcome=outcome,
            answerable=False,
            blocked_reason="",
        )
        self._prune()
        return True

    def mark_stale(self, row: Row, reason: str) -> None:
        if row.phase in OPEN_WAITING:
            row.stale_reason = reason
            self._change(row, phase=ApprovalPhase.STALE)

    def confirm(self, row: Row) -> None:
        """The server says (snapshot) it still waits on exactly this request."""
        if row.phase is ApprovalPhase.STALE:
            row.stale_reason = ""
            self._change(row, phase=ApprovalPhase.WAITING)

    def mark_sending(self, row: Row, choice: Choice, frame_id: int) -> None:
        row.decision, row.decision_frame = choice, frame_id
        self._change(row, phase=ApprovalPhase.SENDING, answerable=False, blocked_reason=SENDING)

    def unsend(self, row: Row, ctx: AnswerContext) -> None:
        """The decision frame certainly never left: the row waits again (or ends, if it did)."""
        if row.phase is ApprovalPhase.SENDING:
            row.decision = row.decision_frame = None
            if row.ended is not None:
                self.resolve(row, row.ended)
            else:
                phase = ApprovalPhase.STALE if row.stale_reason else ApprovalPhase.WAITING
                self._change(row, phase=phase)
            self.refresh(ctx)

    def end_if_unsent(self, row: Row, outcome: Outcome) -> None:
        """``row`` ended on the server while its answer was on its way.

        That answer's own fate still decides (it may be what ended it); but if it certainly
        never leaves (:meth:`unsend`), the row ends with ``outcome`` instead of waiting again:
        on 0.19.0 a click on it then would answer whatever the session asks next.
        """
        if row.phase is ApprovalPhase.SENDING:
            row.ended = outcome

    def note_tool_started(self, session_id: str, tool_id: str) -> None:
        """Remember the running tool: a FIFO request that follows belongs to it."""
        self._last_tool[session_id] = tool_id

    def note_tool_finished(self, session_id: str, tool_id: str) -> None:
        if self._last_tool.get(session_id) == tool_id:
            del self._last_tool[session_id]

    def turn_boundary(self, session_id: str) -> None:
        """A turn started or ended: later requests are no longer re-asks of earlier ones.

        Nor can an unseen 0.19.0 approval still be pending: the head is known again.
        """
        self._turns.pop(session_id, None)
        self.trust_head(session_id)

    def doubt_head(self, session_id: str, since: int, reason: str = HEAD_UNSURE) -> None:
        """A 0.19.0 session was resumed mid-turn: its FIFO head is in doubt until the turn ends.

        An approval published while the tray did not follow the session is never re-sent, so
        the first one seen may not be the head the server answers. FIFO rows from now on, and
        those that arrived after ``since`` (the resume's watermark) and still wait, are STALE
        (:data:`HEAD_UNSURE`).
        """
        self._unsure_heads[session_id] = reason
        for row in self.open_rows(session_id):
            if row.kind is RowKind.FIFO and row.phase is ApprovalPhase.WAITING and row.seq > since:
                self.mark_stale(row, reason)

    def trust_head(self, session_id: str) -> None:
        """The session's turn is over: what it asks next is the head again."""
        self._unsure_heads.pop(session_id, None)

    def forget_session(self, session_id: str) -> None:
        for table in (self._turns, self._last_tool, self._batches):
            table.pop(session_id, None)
        self.trust_head(session_id)

    def set_timeout(self, seconds: float) -> None:
        """The server's approval timeout was learned: re-time open rows (``timeouts`` rules)."""
        self._timeouts.learn(seconds)
        for row in self.open_rows():
            if may_retime(row.timeout_basis, seconds):
                row.timeout_basis = self._timeouts.learned
                self._change(row, expires_at=row.approval.arrived_at + seconds)

    def forget_timeout(self) -> None:
        """The connection ended: rows that arrive from now on count from the assumed default."""
        self._timeouts.forget()

    def refresh(self, ctx: AnswerContext) -> None:
        """Recompute answerability of every open row (emits ApprovalChanged where it moved).

        Skipped while nothing it reads has moved since the last pass (``approval_cache``).
        """
        if self.refresh_holds(ctx.rules, ctx.now):
            return
        rows = self.open_rows()
        heads: dict[str, Row] = {}
        for row in rows:
            if row.kind is RowKind.FIFO:
                heads.setdefault(row.session_id, row)
        for row in rows:
            answerable, blocked = self._assess(row, ctx, heads.get(row.session_id))
            self._change(row, answerable=answerable, blocked_reason=blocked)
        self._cache.refreshed(self._version(), ctx.rules, ctx.now, ctx.margin, rows)

    def refresh_holds(self, rules: Rules, now: float) -> bool:
        """Whether :meth:`refresh` in a context with these rules at ``now`` would change nothing."""
        cache = self._cache
        span = cache.refresh_span
        return span.low <= now < span.high and cache.refresh_key == (self._version(), rules)

    def expire_due(self, now: float) -> None:
        """FIFO rows whose local timeout has passed end EXPIRED (nothing is ever sent)."""
        cache = self._cache
        if now < cache.earliest_expiry and cache.expiry_version == self._version():
            return  # no FIFO row is due yet, and none moved since that was found
        earliest = math.inf  # of the rows that go on waiting
        for row in self.open_rows():
            if row.kind is not RowKind.FIFO or row.phase not in OPEN_WAITING:
                continue
            if in_margin(row.approval, now, 0.0):
                assumed = row.timeout_basis is None
                reason = outcomes.ASSUMED_TIMEOUT if assumed else outcomes.LOCAL_TIMEOUT
                self.resolve(row, outcomes.expired(reason))
            elif row.approval.expires_at is not None:
                earliest = min(earliest, row.approval.expires_at)
        self._cache.expiry_checked(self._version(), earliest)

    def next_deadline(self, now: float) -> float | None:
        """When answerability or expiry of a FIFO row next changes by time alone."""
        cache = self._cache
        span = cache.deadline_span
        if span.low <= now < span.high and cache.deadline_version == self._version():
            return cache.deadline
        margin = self._settings.staleness_margin
        times: list[float] = []
        edges: list[float] = []  # where a row's answer below would change
        for row in self.open_rows():
            expires = row.approval.expires_at
            if row.kind is not RowKind.FIFO or row.phase not in OPEN_WAITING or expires is None:
                continue
            edges.append(expires - margin)
            times.append(expires - margin if now < expires - margin else expires)
        deadline = min(times, default=None)
        self._cache.deadline_found(self._version(), span_around(now, edges), deadline)
        return deadline

    # -- internals --------------------------------------------------------------------------
    def _assess(self, row: Row, ctx: AnswerContext, head: Row | None = None) -> tuple[bool, str]:
        """Answerability of ``row``; ``head``: its session's FIFO head, when already known."""
        if head is None and row.kind is RowKind.FIFO:
            head = self.fifo_head(row.session_id)
        return assess(
            row.approval,
            row.kind,
            too_long=row.asked.too_long,
            is_head=head is row,
            stale_reason=row.stale_reason,
            ctx=ctx,
        )

    def _change(self, row: Row, **changes: Any) -> None:
        """Every change of a row goes through here: it keeps ``approval_cache`` honest."""
        self._cache.changes += 1  # even when the value stays: a stale reason may have moved
        if same_fields(row.approval, changes):
            return  # refresh mostly finds nothing moved (see model.same_fields)
        new = dataclasses.replace(row.approval, **changes)
        if new != row.approval:
            if new.phase is not row.approval.phase:
                self._cache.moves += 1
            row.approval = new
            self._sink.append(ApprovalChanged(new))

    def _version(self) -> Version:
        return self._cache.changes, self._last_seq, len(self._rows)

    def _open(self) -> tuple[list[Row], frozenset[str]]:
        """The open rows, oldest first, and the sessions with one WAITING or STALE (cached)."""
        cache = self._cache
        version = (cache.moves, self._last_seq, len(self._rows))
        if cache.open_version == version:
            return cache.open_rows, cache.waiting
        rows = [row for row in self._rows.values() if row.phase is not ApprovalPhase.RESOLVED]
        waiting = frozenset(row.session_id for row in rows if row.phase in OPEN_WAITING)
        self._cache.keep_open_rows(version, rows, waiting)
        return rows, waiting

    def _place(self, session_id: str) -> tuple[str, int]:
        current = self._batches.get(session_id)
        if current is None or not self.open_rows(session_id):
            current = (f"batch-{next(self._batch_numbers)}", 0)
        batch_id, position = current
        self._batches[session_id] = (batch_id, position + 1)
        return batch_id, position

    def _prune(self) -> None:
        if len(self._rows) <= self._settings.max_resolved_approvals:
            return  # fewer rows in all than may be kept resolved: nothing to drop, no walk
        resolved = [r for r in self._rows.values() if r.phase is ApprovalPhase.RESOLVED]
        for row in resolved[: max(0, len(resolved) - self._settings.max_resolved_approvals)]:
            del self._rows[row.key]
