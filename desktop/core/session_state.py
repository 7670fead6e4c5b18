"""Every session the core knows, as frozen values, and which changed since the last input.

YOLO: ``approvals.mode`` ``off`` bypasses everything, else the latest report decides, but for
one exception that errs towards "on" (a menu wrongly saying "off" lets commands run unasked): a
``config.set`` result ``"0"`` says only that the *session* flag is off, so a ``yolo:true``
``session.info`` (the effective bypass) that came while that call was out keeps YOLO on.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

from desktop.core import payloads
from desktop.core.model import (
    SessionState,
    SessionStatus,
    TodoList,
    YoloSource,
    YoloState,
)
from desktop.core.reports import fold_usage, fold_usage_payload, supersedes

APPROVAL_MODES = frozenset({"manual", "smart", "off"})


@dataclass(slots=True)
class _Record:
    state: SessionState
    followed: bool = True  # resumed after every reconnect unless the app unwatched it
    observed: bool = False  # 0.20: followed through approval.pending only, never resumed
    started: bool = False  # a session.create of this tray answered with it
    yolo: bool | None = None  # the latest YOLO report (session.info or a config result)
    info_yolo: bool | None = None  # the latest session.info `yolo` (the effective bypass)
    info_mark: int = 0  # the newest request id issued when that session.info arrived


class SessionBook:
    def __init__(self) -> None:
        self._records: dict[str, _Record] = {}
        self.changed: dict[str, None] = {}
        self._waiting: frozenset[str] = frozenset()  # as last set (sessions may come later)

    def get(self, session_id: str) -> SessionState | None:
        record = self._records.get(session_id)
        return record.state if record else None

    def all(self) -> tuple[SessionState, ...]:
        return tuple(record.state for record in self._records.values())

    def followed(self) -> list[SessionState]:
        """The sessions to resume after a reconnect (observed ones never are)."""
        records = self._records.values()
        return [record.state for record in records if record.followed and not record.observed]

    def is_followed(self, session_id: str) -> bool:
        """Whether the tray vouches for this session's rows (followed or observed)."""
        record = self._records.get(session_id)
        return record is not None and record.followed

    def observed(self) -> list[str]:
        return [sid for sid, record in self._records.items() if record.observed]

    def is_observed(self, session_id: str) -> bool:
        record = self._records.get(session_id)
        return record is not None and record.observed

    def is_started(self, session_id: str) -> bool:
        record = self._records.get(session_id)
        return record is not None and record.started

    def by_stored_id(self, stored_session_id: str) -> SessionState | None:
        for record in self._records.values():
            if record.state.stored_session_id == stored_session_id:
                return record.state
        return None

    def drain_changed(self) -> list[SessionState]:
        changed = [self._records[sid].state for sid in self.changed if sid in self._records]
        self.changed.clear()
        return changed

    def ensure(self, session_id: str) -> SessionState:
        """The session, created (and followed) if it is new."""
        record = self._records.get(session_id)
        if record is None:
            record = self._records[session_id] = _Record(SessionState(session_id))
            self.changed[session_id] = None
            self._sync_waiting(session_id)
        return record.state

    def follow(self, session_id: str, *, on: bool = True) -> None:
        record = self._record(session_id)
        record.followed, record.observed = on, False

    def mark_started(self, session_id: str) -> None:
        """The tray created this session: it is its own, whoever listed it first."""
        self._record(session_id).started = True

    def observe(self, session_id: str, *, on: bool = True) -> None:
        """Follow (or stop following) this session through its pending list only."""
        record = self._record(session_id)
        record.observed = record.followed = on

    def update(self, session_id: str, **changes: Any) -> None:
        self._change(self._record(session_id), session_id, changes)

    def _change(self, record: _Record, session_id: str, changes: dict[str, Any]) -> None:
        state = record.state
        moved = {name: value for name, value in changes.items() if getattr(state, name) != value}
        if moved:  # most reports repeat what is shown
            record.state = replace(state, **moved)
            self.changed[session_id] = None

    def remove(self, session_id: str) -> bool:
        self.changed.pop(session_id, None)
        return self._records.pop(session_id, None) is not None

    def rename(self, old: str, new: str) -> None:
        """A resume answered with another runtime id: the session lives on under ``new``."""
        record = self._records.pop(old, None)
        self.changed.pop(old, None)
        if record is None or new in self._records:
            return
        record.state = replace(record.state, session_id=new)
        self._records[new] = record
        self.changed[new] = None
        self._sync_waiting(new)

    def set_running(self, session_id: str, running: bool) -> None:
        record = self._record(session_id)
        status = _status(session_id in self._waiting, running)
        self._change(record, session_id, {"running": running, "status": status})

    def set_waiting(self, waiting_ids: AbstractSet[str]) -> None:
        waiting = frozenset(waiting_ids)
        moved, self._waiting = waiting ^ self._waiting, waiting
        if moved:  # in the order sessions were seen, as their changes are announced
            for session_id in [sid for sid in self._records if sid in moved]:
                self._sync_waiting(session_id)

    def apply_info(self, session_id: str, info: Mapping[str, Any], *, mark: int = 0) -> None:
        """Merge a ``session.info``-like object; ``mark``: the newest request id issued by then."""
        record = self._record(session_id)
        changes: dict[str, Any] = {}
        for field in ("title", "model", "cwd", "version", "stored_session_id"):
            value = payloads.text(info, field)
            if value:
                changes[field] = value
        mode = payloads.text(info, "approval_mode")
        if mode in APPROVAL_MODES:
            changes["approval_mode"] = mode
        usage = payloads.mapping(info, "usage")
        if usage is not None:
            changes["usage"] = fold_usage(record.state.usage, usage)
        yolo = payloads.flag(info, "yolo")
        if yolo is not None:
            record.yolo = record.info_yolo = yolo
            record.info_mark = mark
        running = payloads.flag(info, "running")
        if running is not None:
            changes["running"] = running
            changes["status"] = _status(session_id in self._waiting, running)
        mode = changes.get("approval_mode", record.state.approval_mode)
        changes["yolo"] = _yolo(mode, record.yolo)
        self._change(record, session_id, changes)  # one new value, not one per field group

    def apply_usage(self, session_id: str, payload: Mapping[str, Any]) -> None:
        record = self._record(session_id)
        self._change(record, session_id, {"usage": fold_usage_payload(record.state.usage, payload)})

    def apply_todos(self, session_id: str, todos: TodoList, *, authoritative: bool = False) -> None:
        """Take a new plan unless it is older than the one shown (snapshots always win)."""
        record = self._record(session_id)
        if authoritative or supersedes(record.state.todos, todos):
            self.update(session_id, todos=todos)

    def set_config_yolo(self, session_id: str, on: bool, *, sent: int | None = None) -> None:
        """Apply a YOLO config result; ``sent``: the id of the call it answers, if known."""
        record = self._record(session_id)
        reported_meanwhile = sent is not None and record.info_mark >= sent
        if not on and reported_meanwhile and record.info_yolo:
            on = True  # the session flag is off, yet the bypass is in effect (module docstring)
        record.yolo = on
        self._reyolo(session_id)

    def set_mode(self, session_id: str, mode: str) -> None:
        if mode in APPROVAL_MODES:
            self.update(session_id, approval_mode=mode)
            self._reyolo(session_id)

    def set_mode_everywhere(self, mode: str) -> None:
        for session_id in list(self._records):
            self.set_mode(session_id, mode)

    def _record(self, session_id: str) -> _Record:
        if session_id not in self._records:
            self.ensure(session_id)
        return self._records[session_id]

    def _sync_waiting(self, session_id: str) -> None:
        record = self._records[session_id]
        status = _status(session_id in self._waiting, record.state.running)
        self._change(record, session_id, {"status": status})

    def _reyolo(self, session_id: str) -> None:
        record = self._records[session_id]
        self._change(record, session_id, {"yolo": _yolo(record.state.approval_mode, record.yolo)})


def _status(waiting: bool, running: bool) -> SessionStatus:
    if waiting:
        return SessionStatus.WAITING
    return SessionStatus.WORKING if running else SessionStatus.IDLE


def _yolo(approval_mode: str, reported: bool | None) -> YoloState:
    if approval_mode == "off":
        return YoloState(True, YoloSource.MODE_OFF)
    return YoloState(True, YoloSource.SESSION) if reported else YoloState()
