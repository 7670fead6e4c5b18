"""Qt-free grouping and ordering of the approval dialog: gateway → session → batch → row.

The dialog's promises about order, tested with plain calls:

* **Grouped** by gateway, then session, then ``Approval.batch_id``.
* **Oldest first and stable**: every level is kept in *first-seen* order and new things are only
  ever appended to the end of their parent. A late arrival therefore never changes the position
  of anything already shown relative to its siblings; the view keeps the row under the pointer
  still on screen (see ``list_view``). Re-asked commands get a new key and so a new row.
* **Arrival order for answers**: within a batch, ``Approval.position`` (the core's arrival index)
  decides the order in which "Approve all" answers rows; see :func:`in_arrival_order`.

The tree holds keys, not rows: each :class:`RowEntry` reads its
:class:`~desktop.core.model.Approval` from the app's store (:class:`RowStore`) whenever asked,
so the dialog can never show or answer a copy older than what the store holds. It keeps only
what the dialog itself knows about the row (a decision is on its way, the person chose
"Re-confirm", why the core refused), which the rules in :mod:`desktop.model.approvals.rules`
read. Nodes compare by identity (``eq=False``) and carry a board-unique ``uid`` so the Qt item
model can address them by integer id.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from desktop.core.model import OPEN_ACTIONS, Action, Approval, ApprovalPhase

RowId = tuple[str, str]  # (gateway_id, Approval.key)


class RowStore(Protocol):
    """Where rows live (the app's ``AppState``): read by key, released once no longer shown."""

    def row(self, gateway_id: str, key: str) -> Approval | None: ...

    def release_rows(self, gateway_id: str, keys: Iterable[str]) -> None: ...


def gone_approval(key: str, session_id: str, batch_id: str) -> Approval:
    """What a row the store no longer holds reads as: resolved, with nothing to answer."""
    return Approval(
        key,
        session_id,
        batch_id,
        0,
        "",
        choices=(),
        phase=ApprovalPhase.RESOLVED,
        answerable=False,
    )


@dataclass(eq=False)
class RowEntry:
    """One command: its key, and what the dialog itself remembers about it."""

    uid: int
    batch: BatchGroup = field(repr=False)
    key: str
    seq: int  # first-seen number, board-wide
    store: RowStore = field(repr=False)
    gateway_id: str  # its batch's, kept here: every read of ``approval`` needs it
    awaiting_core: bool = False  # a decision was emitted; buttons stay off until the next state
    reconfirming: bool = False  # the person pressed "Re-confirm" on this STALE row
    notice: str = ""  # why the core refused the last decision (plain text from the bridge)
    notice_action: Action | None = None  # what the row's person could do when it was given

    @property
    def approval(self) -> Approval:
        """The store's value for this row now (resolved and empty once the store let it go)."""
        found = self.store.row(self.gateway_id, self.key)
        if found is None:
            return gone_approval(self.key, self.batch.session.session_id, self.batch.batch_id)
        return found

    @property
    def row_id(self) -> RowId:
        """The address the app uses for this row: (gateway_id, approval key)."""
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

    @property
    def gateway_id(self) -> str:
        """The gateway of this batch's session."""
        return self.session.gateway.gateway_id

    @property
    def fully_resolved(self) -> bool:
        """Every row has its one final outcome (an empty batch counts as not resolved)."""
        return bool(self.rows) and all(r.approval.action is Action.DONE for r in self.rows)


@dataclass(eq=False)
class SessionGroup:
    """One agent session of one gateway."""

    uid: int
    gateway: GatewayGroup = field(repr=False)
    session_id: str
    title: str
    batches: list[BatchGroup] = field(default_factory=list)


@dataclass(eq=False)
class GatewayGroup:
    """One configured gateway."""

    uid: int
    gateway_id: str
    name: str
    sessions: list[SessionGroup] = field(default_factory=list)


Node = GatewayGroup | SessionGroup | BatchGroup | RowEntry
_N = TypeVar("_N", GatewayGroup, SessionGroup, BatchGroup, RowEntry)


def in_arrival_order(rows: list[RowEntry]) -> list[RowEntry]:
    """Rows sorted the way the server queued them: by ``position``, then first-seen."""
    return sorted(rows, key=lambda r: (r.approval.position, r.seq))


class ApprovalBoard:
    """The grouped tree with append-only growth; the Qt model wraps it (``tree_model``)."""

    def __init__(self, store: RowStore) -> None:
        self.store = store
        self.gateways: list[GatewayGroup] = []
        self._ids = itertools.count(1)
        self._rows: dict[RowId, RowEntry] = {}
        self._nodes: dict[int, Node] = {}

    # -- lookups ------------------------------------------------------------------------------
    def node(self, uid: int) -> Node | None:
        """The live node with this uid, or None once it was removed."""
        return self._nodes.get(uid)

    def row(self, row_id: RowId) -> RowEntry | None:
        """The row for (gateway_id, key), if shown."""
        return self._rows.get(row_id)

    def gateway(self, gateway_id: str) -> GatewayGroup | None:
        """The gateway group, if any of its rows is shown."""
        return next((g for g in self.gateways if g.gateway_id == gateway_id), None)

    def session(self, gateway_id: str, session_id: str) -> SessionGroup | None:
        """The session group of that gateway, if shown."""
        g = self.gateway(gateway_id)
        return next((s for s in g.sessions if s.session_id == session_id), None) if g else None

    def batch(self, gateway_id: str, session_id: str, batch_id: str) -> BatchGroup | None:
        """The batch group, if shown."""
        s = self.session(gateway_id, session_id)
        return next((b for b in s.batches if b.batch_id == batch_id), None) if s else None

    def find_batch(self, gateway_id: str, batch_id: str) -> BatchGroup | None:
        """The first shown batch with that id on that gateway, whatever its session."""
        g = self.gateway(gateway_id)
        batches = (b for s in (g.sessions if g else []) for b in s.batches)
        return next((b for b in batches if b.batch_id == batch_id), None)

    def rows(self) -> Iterator[RowEntry]:
        """Every row in on-screen order (top to bottom)."""
        for g in self.gateways:
            for s in g.sessions:
                for b in s.batches:
                    yield from b.rows

    def batches(self) -> Iterator[BatchGroup]:
        """Every batch in on-screen order."""
        for g in self.gateways:
            for s in g.sessions:
                yield from s.batches

    def children(self, node: Node | None) -> tuple[Node, ...]:
        """The ordered children of ``node`` (``None`` is the invisible root)."""
        return tuple(self._child_list(node))

    @staticmethod
    def parent(node: Node) -> Node | None:
        """The node's parent (``None`` for gateways, whose parent is the root)."""
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

    # -- navigation ---------------------------------------------------------------------------
    def neighbour(self, row_id: RowId | None, step: int) -> RowEntry | None:
        """The row ``step`` places below (or above, if negative) ``row_id``, clamped.

        Without a current row, Down starts at the top and Up at the bottom.
        """
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
        """The first ``eligible`` row below ``after`` still waiting for the person, else above.

        Rows whose decision is already on its way (``awaiting_core``) are skipped.
        """
        rows = list(self.rows())
        current = self._rows.get(after) if after else None
        start = rows.index(current) + 1 if current is not None else 0
        for r in rows[start:] + rows[:start]:
            if r.is_open and not r.awaiting_core and r is not current and eligible(r):
                return r
        return None

    # -- growth: always appended --------------------------------------------------------------
    def add_gateway(self, gateway_id: str, name: str) -> GatewayGroup:
        """Append a gateway group."""
        g = GatewayGroup(next(self._ids), gateway_id, name)
        self.gateways.append(g)
        return self._register(g)

    def add_session(self, gateway: GatewayGroup, session_id: str, title: str) -> SessionGroup:
        """Append a session group to ``gateway``."""
        s = SessionGroup(next(self._ids), gateway, session_id, title)
        gateway.sessions.append(s)
        return self._register(s)

    def add_batch(self, session: SessionGroup, batch_id: str) -> BatchGroup:
        """Append a batch group to ``session``."""
        b = BatchGroup(next(self._ids), session, batch_id)
        session.batches.append(b)
        return self._register(b)

    def add_row(self, batch: BatchGroup, key: str) -> RowEntry:
        """Append row ``key`` to ``batch``; its first-seen number is its uid (rising)."""
        uid = next(self._ids)
        r = RowEntry(uid, batch, key, uid, self.store, batch.gateway_id)
        batch.rows.append(r)
        self._rows[r.row_id] = r
        return self._register(r)

    def _register(self, node: _N) -> _N:
        self._nodes[node.uid] = node
        return node

    # -- removal --------------------------------------------------------------------------------
    def remove(self, node: Node) -> None:
        """Detach ``node`` and everything below it from the tree."""
        self._child_list(self.parent(node)).remove(node)
        self._forget(node)

    def _forget(self, node: Node) -> None:
        self._nodes.pop(node.uid, None)
        if isinstance(node, RowEntry):
            self._rows.pop(node.row_id, None)
        for child in self._child_list(node):
            self._forget(child)

    # -- time -----------------------------------------------------------------------------------
    def note_resolution(self, batch: BatchGroup, now: float) -> None:
        """Start the batch's grace when its last row resolved; cancel it if one reopened."""
        if not batch.fully_resolved:
            batch.resolved_at = None
        elif batch.resolved_at is None:
            batch.resolved_at = now

    def past_grace(self, now: float, grace: float) -> list[BatchGroup]:
        """Fully resolved batches whose grace period is over, in on-screen order."""
        return [
            b for b in self.batches() if b.resolved_at is not None and now >= b.resolved_at + grace
        ]
