"""Events out: stamping, logging and routing to the right viewers, per dialect.

* A: events go only to the session's single owner (the last connection to create, resume,
  activate or prompt it); no ``seq``.
* B: every attached viewer gets every event (fan-out); session events carry a per-session,
  monotonic ``params.seq`` and are kept for ``session.events.since``.
* C: only connections holding a live subscription (created or resumed the session, not retired by
  a replay gap) get events; they carry ``seq``, ``authority_epoch``, ``execution_generation`` and
  ``replay_epoch``.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel import wire
from tests.gatewaymodel.dialect import (
    DESKTOP_CONTRACT,
    PUBLIC_SUBPROTOCOL,
    RELEASE_DATE,
    VERSION,
    Dialect,
)
from tests.gatewaymodel.model import Session
from tests.gatewaymodel.world import World


class Publisher:
    """Builds event frames and hands them to the connections that should see them."""

    def __init__(self, world: World) -> None:
        self.world = world

    def emit(self, session: Session, event_type: str, payload: Any = None) -> dict[str, Any]:
        """Send one session event to its viewers; returns the ``params`` that went out."""
        world = self.world
        params: dict[str, Any] = {"type": event_type, "session_id": session.sid}
        if payload is not None:
            params["payload"] = payload
        if world.dialect is not Dialect.A:
            session.seq += 1
            params["seq"] = session.seq
            if world.dialect is Dialect.C:
                params.update(
                    authority_epoch=world.authority_epoch,
                    execution_generation=session.generation,
                    replay_epoch=world.replay_epoch,
                )
            session.log.append(params)
        frame = wire.event(params)
        for viewer in list(session.viewers.values()):
            if not viewer.retired:
                viewer.conn.send(frame)
        world.changed()
        return params

    def broadcast(self, event_type: str, payload: dict[str, Any] | None = None) -> None:
        """A global B event (``session_id: ""``, no seq) to every open connection."""
        if self.world.dialect is not Dialect.B:
            return
        frame = wire.event({"type": event_type, "session_id": "", "payload": payload or {}})
        for conn in list(self.world.connections.values()):
            conn.send(frame)

    def send_info(self, session: Session) -> None:
        """A ``session.info`` event with the current state."""
        self.emit(session, "session.info", self.info(session))

    def info(self, session: Session) -> dict[str, Any]:
        """The ``session.info`` payload / snapshot ``info`` for this dialect.

        C's info is minimal and has no ``yolo``/``approval_mode`` (ask with ``config.get``).
        """
        world = self.world
        usage = dict(session.usage)
        if world.dialect is Dialect.C:
            return {
                "desktop_protocol": PUBLIC_SUBPROTOCOL,
                "source": session.source,
                "model": session.model,
                "cwd": session.cwd,
                "title": session.title,
                "running": session.running,
                "usage": usage,
                "lazy": False,
                "profile_id": "default",
                "version": VERSION[world.dialect],
            }
        info: dict[str, Any] = {
            "model": session.model,
            "provider": "custom",
            "reasoning_effort": "",
            "service_tier": "",
            "fast": False,
            "yolo": world.effective_yolo(session),
            "approval_mode": world.policy.approvals_mode,
            "tools": {"terminal": ["terminal"], "todo": ["todo"]},
            "skills": {},
            "cwd": session.cwd,
            "branch": "",
            "project": None,
            "personality": "",
            "running": session.running,
            "title": session.title,
            "stored_session_id": session.stored_id,
            "desktop_contract": DESKTOP_CONTRACT[world.dialect],
            "version": VERSION[world.dialect],
            "release_date": RELEASE_DATE[world.dialect],
            "update_behind": 0,
            "update_command": "pip install --upgrade hermes-agent",
            "usage": usage,
            "profile_name": "default",
            "mcp_servers": [],
            "system_prompt": "",
        }
        if world.dialect is Dialect.B:
            info.update(
                reasoning_effort_wire="",
                terminal_backend="local",
                turn_started_at=session.turn_started_at,
            )
        return info

    def lazy_info(self, session: Session) -> dict[str, Any]:
        """The lazy ``info`` a tui_gateway ``session.create`` returns before the agent builds."""
        return {
            "model": session.model,
            "tools": {},
            "skills": {},
            "cwd": session.cwd,
            "branch": "",
            "project": None,
            "lazy": True,
            "desktop_contract": DESKTOP_CONTRACT.get(self.world.dialect, 0),
            "profile_name": "default",
        }
