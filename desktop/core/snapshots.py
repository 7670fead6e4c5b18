"""Fold a resume snapshot (and ``approval.pending``) back into sessions and approvals.

Why reconciliation matters: while the tray was away, requests were answered elsewhere, timed out
or were re-published. A snapshot's ``open_requests`` (B) or ``prompts`` (C) are re-delivered as
if new but map onto the rows already shown (no duplicates); open rows of that session the
snapshot no longer lists were settled elsewhere. Only rows that arrived before the request was
sent are judged (its *watermark*): a request published after the snapshot was taken is not
missing from it. 0.19.0 lists no approvals, so its rows stay STALE unless the session stopped;
and when a resume finds a 0.19.0 session running, approvals it published meanwhile are lost to
the tray, so its FIFO head is in doubt until the turn ends (``ApprovalLifecycle.doubt_head``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from desktop.core import outcomes, payloads
from desktop.core.events import SessionRemoved
from desktop.core.model import TodoList
from desktop.core.todos import parse_todos
from desktop.core.wire import ApprovalAsked, RowKind
from desktop.core.wire_effects import apply_wire, ask, settle_session

if TYPE_CHECKING:
    from desktop.core.gateway_core import GatewayCore


def fold_snapshot(
    core: GatewayCore,
    known_id: str | None,
    snapshot: Mapping[str, Any],
    watermark: int,
    *,
    fresh: bool = False,
) -> str | None:
    """Fold a ``session.resume``/``session.activate`` result; returns the runtime id.

    ``fresh``: the result of ``session.create`` (the tray followed the session from its start).
    """
    runtime = payloads.text(snapshot, "session_id") or known_id
    if not runtime:
        return None
    if known_id and known_id != runtime and core.session_book.get(known_id) is not None:
        _migrate(core, known_id, runtime)
    sessions = core.session_book
    sessions.ensure(runtime)
    if not sessions.is_followed(runtime):  # the tray created or resumed it: it follows it
        sessions.follow(runtime)
        core.lifecycle.follow_changed()
    stored = payloads.text(snapshot, "stored_session_id") or payloads.text(snapshot, "session_key")
    if stored:
        sessions.update(runtime, stored_session_id=stored)
    info = payloads.mapping(snapshot, "info")
    if info is not None:
        sessions.apply_info(runtime, info, mark=core.outbox.issued)
    usage = payloads.mapping(snapshot, "usage")
    if usage is not None:
        sessions.apply_usage(runtime, usage)
    _fold_todo_state(core, runtime, snapshot)
    generation = payloads.integer(snapshot, "execution_generation")
    if generation is not None:
        sessions.update(runtime, execution_generation=generation)
    _reconcile_requests(core, runtime, snapshot, watermark)
    running = payloads.flag(snapshot, "running")
    if running is None and info is not None:
        running = payloads.flag(info, "running")
    if running is not None:
        sessions.set_running(runtime, running)
    if running is False:
        settle_session(core, runtime, outcomes.SESSION_STOPPED)
    elif running and not fresh and RowKind.FIFO in core.adapter.answers:
        core.lifecycle.doubt_head(runtime, watermark)
    return runtime


def reconcile_pending(
    core: GatewayCore, session_id: str, result: Mapping[str, Any], watermark: int
) -> None:
    """``approval.pending {approvals: [{request_id, ...}]}``: close rows no longer pending."""
    items = payloads.objects(result, "approvals")
    if items is not None:
        for event in core.adapter.pending_requests(session_id, items):
            if isinstance(event, ApprovalAsked):
                ask(core, event)  # 0.20: also what was asked while the tray was away
        pending = [payloads.text(item, "request_id") for item in items]
        core.lifecycle.pending_listed(session_id, pending, watermark)


def _reconcile_requests(
    core: GatewayCore, session_id: str, snapshot: Mapping[str, Any], watermark: int
) -> None:
    delivered = core.adapter.snapshot_requests(snapshot)
    if delivered is None:
        return
    listed: set[str] = set()
    for event in delivered:
        if isinstance(event, ApprovalAsked):
            listed.add(ask(core, event).key)
        else:
            apply_wire(core, event)
    core.lifecycle.listed(session_id, listed, watermark)


def _fold_todo_state(core: GatewayCore, session_id: str, snapshot: Mapping[str, Any]) -> None:
    """``todo_state``: null clears the plan, a missing key keeps it (older gateways)."""
    if "todo_state" not in snapshot:
        return
    state = snapshot["todo_state"]
    if state is None:
        core.session_book.apply_todos(session_id, TodoList(), authoritative=True)
    elif isinstance(state, Mapping):
        todos = parse_todos(state.get("todos"), state.get("revision"))
        if todos is not None:
            core.session_book.apply_todos(session_id, todos, authoritative=True)


def _migrate(core: GatewayCore, old: str, new: str) -> None:
    """tui_gateway rebuilt the session under a new runtime id; the old one's requests are gone."""
    core.lifecycle.session_gone(old, outcomes.withdrawn(outcomes.SESSION_GONE))
    core.session_book.rename(old, new)
    core.emit(SessionRemoved(old, f"resumed as {new}"))
