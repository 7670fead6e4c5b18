"""Qt-free grouping and ordering of the approval dialog: gateway → session → batch → row.

Every level keeps first-seen order and only grows at its end, so a late arrival never moves what
is shown; a re-ask sits right after the row it replaces. The tree holds keys, not rows: a
:class:`RowEntry` reads its ``Approval`` from the app's store on every access, so the dialog
never shows or answers a stale copy.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from desktop.core.model import OPEN_ACTIONS, Action, Approval, ApprovalPhase
from desktop.model.app_state import AppState

RowId = tuple[str, str]  # (gateway_id, Approval.key)


@dataclass(eq=False)
class RowEntry:
    uid: int  # also its first-seen number: uids only grow, board-wide
    batch: BatchGroup = field(repr=False)
    key: str
    store: AppState = field(repr=False)
    gateway_id: str  # its batch's, kept here: every read of ``approval`` needs it
    awaiting_core: bool = False  # a decision was emitted; buttons stay off until the next state
    reconfirming: bool = False  # the person pressed "Re-confirm" on this STALE row
    notice: str = ""  # why the core refused the last decision (plain text)
    notice_action: Action | None = None  # the row's action when the notice was given
    stands_in: int | None = None  # a re-ask's: the shown place of the row it replaces

    @property
    def approval(self) -> Approval:
        """The store's value now (resolved and empty once the store let it go)."""
        found = self.store.row(self.gateway_id, self.key)
        if found is not None:
            return found
        return Approval(  # gone from the store: resolved, with nothing to answer
            self.key,
            self.batch.session.session_id,
            self.batch.batch_id,
            0,
            "",
            choices=(),
            phase=ApprovalPhase.RESOLVED,
            answerable=False,
        )

    @property
    def position(self) -> int:
        """Its 0-based place as shown: a re-ask in an earlier batch takes its row's number."""
        a = self.approval
        if self.stands_in is not None and a.batch_id != self.batch.batch_id:
            return self.stands_in
        return a.position

    @property
    def row_id(self) -> RowId:
        return (self.gateway_id, self.key)

    @property
    def is_open(self) -> bool:
        """Still needs the person (waiting, or stale and waiting for a re-confirmation)."""
        return self.approval.action in OPEN_ACTIONS


@dataclass(eq=False)
class BatchGroup:
    """The commands open at the same time on one session (``Approval.batch_id``)."""

    uid: int
    session: SessionGroup = field(repr=False)
    batch_id: str
    rows: list[RowEntry] = field(default_factory=list)
    resolved_at: float | None = None  # clock time the last row resolved; None while any is open
    moved_on: bool = False  # the person chose a row elsewhere after this batch was answered

    @property
    def gateway_id(self) -> str:
        return self.session.gateway.gateway_id

    @property
    def fully_resolved(self) -> bool:
        """Every row has its one final outcome (an empty batch counts as not resolved)."""
        return bool(self.rows) and all(r.approval.action is Action.DONE for r in self.rows)


@dataclass(eq=False)
class SessionGroup:
    uid: int
    gateway: GatewayGroup = field(repr=False)
    session_id: str
    title: str
    batches: list[BatchGroup] = field(default_factory=list)


@dataclass(eq=False)
class GatewayGroup:
    uid: int
    gateway_id: str
    name: str
    sessions: list[SessionGroup] = field(default_factory=list)


Node = GatewayGroup | SessionGroup | BatchGroup | RowEntry
_N = TypeVar("_N", GatewayGroup, SessionGroup, BatchGroup, RowEntry)


def in_arrival_order(rows: list[RowEntry]) -> list[RowEntry]:
    """Rows in the server's queue order: by ``position``; re-asks from a later batch last."""

    def arrival(r: RowEntry) -> tuple[int, int, int]:
        if r.approval.batch_id != r.batch.batch_id:
            return (1, 0, r.uid)
        return (0, r.approval.position, r.uid)

    return sorted(rows, key=arrival)


class ApprovalBoard:
    """The grouped tree with append-only growth; the card list (``list_view``) changes it."""

    def __init__(self, store: AppState) -> None:
        self.store = store
        self.away_since: float | None = 0.0  # when the person left the dialog; None: reading
        self.gateways: list[GatewayGroup] = []
        self._ids = itertools.count(1)
        self._rows: dict[RowId, RowEntry] = {}
        self._nodes: dict[int, Node] = {}

    # -- lookups: None when not shown ---------------------------------------------------------
    def node(self, uid: int) -> Node | None:
        return self._nodes.get(uid)

    def row(self, row_id: RowId) -> RowEntry | None:
        return self._rows.get(row_id)

    def gateway(self, gateway_id: str) -> GatewayGroup | None:
        return next((g for g in self.gateways if g.gateway_id == gateway_id), None)

    def session(self, gateway_id: str, session_id: str) -> SessionGroup | None:
        g = self.gateway(gateway_id)
        return next((s for s in g.sessions if s.session_id == session_id), None) if g else None

    def batch(self, gateway_id: str, session_id: str, batch_id: str) -> BatchGroup | None:
        s = self.session(gateway_id, session_id)
        return next((b for b in s.batches if b.batch_id == batch_id), None) if s else None

    def find_batch(self, gateway_id: str, batch_id: str) -> BatchGroup | None:
        """The shown batch with that id, or the one showing its rows (re-asks)."""
        g = self.gateway(gateway_id)
        batches = [b for s in (g.sessions if g else []) for b in s.batches]
        found = next((b for b in batches if b.batch_id == batch_id), None)
        if found is None:
            rows = (r for b in batches for r in b.rows)
            found = next((r.batch for r in rows if r.approval.batch_id == batch_id), None)
        return found

    def rows(self) -> Iterator[RowEntry]:
        for g in self.gateways:
            for s in g.sessions:
                for b in s.batches:
                    yield from b.rows

    def children(self, node: Node | None) -> tuple[Node, ...]:
        """The ordered children of ``node`` (``None`` is the invisible root)."""
        return tuple(self._child_list(node))

    @staticmethod
    def parent(node: Node) -> Node | None:
        """``None`` for gateways, whose parent is the root."""
        if isinstance(node, RowEntry):
            return node.batch
        if isinstance(node, BatchGroup):
            return node.session
        if isinstance(node, SessionGroup):
            return node.gateway
        return None

    def _child_list(self, node: Node | None) -> list[Any]:
        if node is None:
            return self.gateways
        if isinstance(node, GatewayGroup):
            return node.sessions
        if isinstance(node, SessionGroup):
            return node.batches
        if isinstance(node, BatchGroup):
            return node.rows
        return []

    def neighbour(self, row_id: RowId | None, step: int) -> RowEntry | None:
        """The row ``step`` places below ``row_id``, clamped; without one, from an end."""
        rows = list(self.rows())
        if not rows:
            return None
        current = self._rows.get(row_id) if row_id else None
        if current is None:
            return rows[0] if step > 0 else rows[-1]
        index = rows.index(current) + step
        return rows[max(0, min(index, len(rows) - 1))]

    def next_open(
        self, after: RowId | None, eligible: Callable[[RowEntry], bool] = lambda _: True
    ) -> RowEntry | None:
        """The first ``eligible`` row below ``after`` (else above) waiting, not on its way."""
        rows = list(self.rows())
        current = self._rows.get(after) if after else None
        start = rows.index(current) + 1 if current is not None else 0
        for r in rows[start:] + rows[:start]:
            if r.is_open and not r.awaiting_core and r is not current and eligible(r):
                return r
        return None

    # -- growth: always appended --------------------------------------------------------------
    def add_gateway(self, gateway_id: str, name: str) -> GatewayGroup:
        return self._add(self.gateways, GatewayGroup(next(self._ids), gateway_id, name))

    def add_session(self, gateway: GatewayGroup, session_id: str, title: str) -> SessionGroup:
        node = SessionGroup(next(self._ids), gateway, session_id, title)
        return self._add(gateway.sessions, node)

    def add_batch(self, session: SessionGroup, batch_id: str) -> BatchGroup:
        return self._add(session.batches, BatchGroup(next(self._ids), session, batch_id))

    def home(self, gateway_id: str, approval: Approval) -> RowEntry | None:
        """The shown row a new ``approval`` re-asks (it goes right after); None: at the end."""
        earlier = self._rows.get((gateway_id, approval.reask_of)) if approval.reask_of else None
        if earlier is None or earlier.batch.session.session_id != approval.session_id:
            return None
        return earlier

    def add_row(self, batch: BatchGroup, key: str, after: RowEntry | None = None) -> RowEntry:
        """Append row ``key`` to ``batch``, or insert it right ``after`` the row it re-asks."""
        uid = next(self._ids)
        place = after.position if after is not None else None
        r = RowEntry(uid, batch, key, self.store, batch.gateway_id, stands_in=place)
        self._rows[r.row_id] = r
        at = len(batch.rows) if after is None else batch.rows.index(after) + 1
        return self._add(batch.rows, r, at)

    def _add(self, siblings: list[_N], node: _N, at: int | None = None) -> _N:
        siblings.insert(len(siblings) if at is None else at, node)
        self._nodes[node.uid] = node
        return node

    def remove(self, node: Node) -> None:
        self._child_list(self.parent(node)).remove(node)
        self._forget(node)

    def _forget(self, node: Node) -> None:
        self._nodes.pop(node.uid, None)
        if isinstance(node, RowEntry):
            self._rows.pop(node.row_id, None)
        for child in self._child_list(node):
            self._forget(child)

    # -- time: when an answered batch leaves -------------------------------------------------
    def note_resolution(self, batch: BatchGroup, now: float) -> None:
        """Note when the batch's last row resolved; forget it if one reopened (a re-ask joined)."""
        if not batch.fully_resolved:
            batch.resolved_at, batch.moved_on = None, False
        elif batch.resolved_at is None:
            batch.resolved_at = now

    def note_presence(self, now: float, *, pointer_inside: bool, focused: bool) -> None:
        """The person may be reading while the pointer is over the dialog or it has focus."""
        if pointer_inside or focused:
            self.away_since = None
        elif self.away_since is None:
            self.away_since = now

    def note_moved_on(self, chosen: BatchGroup, answered: Iterable[BatchGroup]) -> None:
        """The person chose a row of ``chosen``: the ``answered`` batches elsewhere were read."""
        for batch in answered:
            if batch is not chosen and batch.resolved_at is not None:
                batch.moved_on = True

    def leaves_at(self, batch: BatchGroup, linger: float) -> float | None:
        """At once when the person moved on from it, else ``linger`` s after they left."""
        resolved = batch.resolved_at
        if resolved is None:
            return None
        if batch.moved_on:
            return resolved
        if self.away_since is None:
            return None
        return max(resolved, self.away_since) + linger
