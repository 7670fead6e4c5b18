"""One approval row as the core keeps it, and how a wire id finds its row.

Why a module of its own: :class:`Row` is shared by the approval book, the wire effects and the
answer cache, and the id rules (a request is the same only if its id *and* content are; a
re-used id means its newest open row) are small enough to read in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome
from desktop.core.wire import ApprovalAsked, RowKind

OPEN_WAITING = (ApprovalPhase.WAITING, ApprovalPhase.STALE)


@dataclass(slots=True)
class Row:
    """One approval plus what only the core needs to know about it."""

    approval: Approval
    asked: ApprovalAsked
    seq: int  # arrival order across the whole book
    epoch: int  # the connection it arrived on
    stale_reason: str = ""
    decision: Choice | None = None
    decision_frame: int | None = None
    tool_id: str = ""  # FIFO: the tool.start that preceded the request
    timeout_basis: float | None = None  # the learned timeout expires_at counts from (None: assumed)
    ended: Outcome | None = None  # it ended on the server while SENDING (see ``end_if_unsent``)

    @property
    def key(self) -> str:
        return self.approval.key

    @property
    def kind(self) -> RowKind:
        return self.asked.kind

    @property
    def session_id(self) -> str:
        return self.approval.session_id

    @property
    def phase(self) -> ApprovalPhase:
        return self.approval.phase


def find_by_wire_id(
    rows: Iterable[Row], kind: RowKind, ident: str | int, generation: int | None = None
) -> Row | None:
    """The row a server request id, or a prompt id (and generation, if given), stands for.

    Several rows can carry one id when the gateway re-used it; the newest unresolved one is
    what the id means now, else the newest.
    """
    newest: Row | None = None
    newest_open: Row | None = None
    for row in rows:
        if row.kind is not kind or wire_ident(row.asked) != ident:
            continue
        if generation is not None and row.asked.execution_generation != generation:
            continue
        newest = row
        if row.phase is not ApprovalPhase.RESOLVED:
            newest_open = row
    return newest_open or newest


def wire_ident(asked: ApprovalAsked) -> str | int | None:
    """The id a request is answered by: the frame id (server request), the prompt id, or None."""
    if asked.kind is RowKind.SERVER_REQUEST:
        return asked.reply_id
    if asked.kind is RowKind.PROMPT:
        return asked.request_id
    return None
