"""The tray's session requests, their method and params per dialect (protocol.md §2-§5).

The rules differ in small, easy-to-miss ways: sessions are ``source:"desktop"`` and
``close_on_disconnect:false`` on tui_gateway but ``source:"gui"`` on canonical, whose parameter
set is closed; ``scope`` only on tui_gateway; no approval-mode setter on canonical; canonical's
interrupt needs the session's ``execution_generation``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from desktop.core.model import Dialect
from desktop.core.session_state import APPROVAL_MODES
from desktop.core.settings import CoreSettings
from desktop.gateway.errors import UnsupportedError

Request = tuple[str, dict[str, Any]]  # (method, params)


def set_yolo(dialect: Dialect, session_id: str, on: bool) -> Request:
    params = {"session_id": session_id, "key": "yolo", "value": "on" if on else "off"}
    if dialect is not Dialect.C:
        params["scope"] = "session"
    return "config.set", params


def read_yolo(session_id: str) -> Request:
    """``config.get yolo`` (canonical's ``session.info`` has no ``yolo``); the core folds it."""
    return "config.get", {"session_id": session_id, "key": "yolo"}


def set_approval_mode(dialect: Dialect, mode: str) -> Request:
    if mode not in APPROVAL_MODES:
        raise ValueError(f"approval mode must be one of {sorted(APPROVAL_MODES)}, not {mode!r}")
    if dialect is Dialect.C:
        raise UnsupportedError(
            "The canonical gateway has no approval-mode setting over the connection; change "
            "approvals.mode in Hermes' config.yaml instead."
        )
    return "config.set", {"key": "approvals.mode", "value": mode}


def interrupt(dialect: Dialect, session_id: str, generations: Iterable[tuple[str, Any]]) -> Request:
    """``generations``: (session id, execution generation) of the sessions the core knows."""
    params: dict[str, Any] = {"session_id": session_id}
    if dialect is Dialect.C:
        generation = next((g for s, g in generations if s == session_id), None)
        if generation is None:
            raise UnsupportedError(
                f"Session {session_id} has no known execution generation yet; wait for its "
                "snapshot and try again."
            )
        params["execution_generation"] = generation
    return "session.interrupt", params


def create_session(dialect: Dialect, settings: CoreSettings, cwd: str) -> Request:
    if dialect is Dialect.C:
        return "session.create", {"source": "gui", "cwd": cwd}
    params = {"source": settings.session_source, "cwd": cwd, "close_on_disconnect": False}
    return "session.create", params


def live_sessions(dialect: Dialect) -> Request:
    """tui_gateway lists live sessions with ``session.active_list``; canonical's list is live."""
    if dialect is Dialect.C:
        return "session.list", {"limit": 200}
    return "session.active_list", {}
