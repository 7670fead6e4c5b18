"""Build the JSON-RPC params of the tray's commands for each dialect (pure functions).

The rules differ in small, easy-to-miss ways (protocol.md §2-§5); each is a one-line table
entry, tested without a socket:

* sessions: ``source:"desktop"`` + ``close_on_disconnect:false`` on tui_gateway (A/B);
  ``source:"gui"`` on canonical (C), whose parameter set is closed.
* YOLO: ``config.set {session_id, key:"yolo", value}``; ``scope`` only on tui_gateway.
* approvals.mode exists only on tui_gateway; canonical has no setter.
* interrupt: canonical needs the session's ``execution_generation``.
"""

from __future__ import annotations

from typing import Any

from desktop.core.model import Dialect
from desktop.core.session_state import APPROVAL_MODES
from desktop.gateway.errors import UnsupportedError

TUI_SOURCE = "desktop"
CANONICAL_SOURCE = "gui"

Params = dict[str, Any]


def session_create(dialect: Dialect, cwd: str, *, source: str = TUI_SOURCE) -> Params:
    if dialect is Dialect.C:
        return {"source": CANONICAL_SOURCE, "cwd": cwd}
    return {"source": source, "cwd": cwd, "close_on_disconnect": False}


def session_resume(
    dialect: Dialect, session_id: str, *, source: str = TUI_SOURCE, canonical_source: str = ""
) -> Params:
    """Resume by stored id (tui_gateway) or durable id (canonical). Never an ``api_key``.

    Canonical gets ``source`` only when configured (the core's ``canonical_resume_source``),
    matching the core's own resubscription.
    """
    if dialect is Dialect.C:
        params: Params = {"session_id": session_id}
        if canonical_source:
            params["source"] = canonical_source
        return params
    return {"session_id": session_id, "source": source, "close_on_disconnect": False}


def prompt_submit(session_id: str, text: str) -> Params:
    return {"session_id": session_id, "text": text}


def live_sessions_method(dialect: Dialect) -> tuple[str, Params]:
    """tui_gateway lists live sessions with ``session.active_list``; canonical's list is live."""
    if dialect is Dialect.C:
        return "session.list", {"limit": 200}
    return "session.active_list", {}


def set_yolo(dialect: Dialect, session_id: str, on: bool) -> Params:
    params: Params = {"session_id": session_id, "key": "yolo", "value": "on" if on else "off"}
    if dialect is not Dialect.C:
        params["scope"] = "session"
    return params


def get_yolo(session_id: str) -> Params:
    """``config.get`` of the session's effective YOLO (canonical reports it no other way)."""
    return {"session_id": session_id, "key": "yolo"}


def set_approval_mode(dialect: Dialect, mode: str) -> Params:
    if mode not in APPROVAL_MODES:
        raise ValueError(f"approval mode must be one of {sorted(APPROVAL_MODES)}, not {mode!r}")
    if dialect is Dialect.C:
        raise UnsupportedError(
            "The canonical gateway has no approval-mode setting over the connection; change "
            "approvals.mode in Hermes' config.yaml instead."
        )
    return {"key": "approvals.mode", "value": mode}


def interrupt(dialect: Dialect, session_id: str, execution_generation: int | None) -> Params:
    if dialect is Dialect.C:
        if execution_generation is None:
            raise UnsupportedError(
                f"Session {session_id} has no known execution generation yet; wait for its "
                "snapshot and try again."
            )
        return {"session_id": session_id, "execution_generation": execution_generation}
    return {"session_id": session_id}


def session_usage(session_id: str) -> Params:
    return {"session_id": session_id}
