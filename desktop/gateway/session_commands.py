"""The tray's session commands, their params per dialect (protocol.md §2-§5).

The rules differ in small, easy-to-miss ways: sessions are ``source:"desktop"`` and
``close_on_disconnect:false`` on tui_gateway but ``source:"gui"`` on canonical, whose parameter
set is closed; ``scope`` only on tui_gateway; no approval-mode setter on canonical; canonical's
interrupt needs the session's ``execution_generation``. The requests also tell the core which
sessions to follow.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from desktop.core.gateway_core import GatewayCore
from desktop.core.model import Dialect
from desktop.core.session_state import APPROVAL_MODES
from desktop.core.settings import CoreSettings
from desktop.gateway.errors import RpcCallError, UnsupportedError

Call = Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any]]]


def live_sessions_method(dialect: Dialect) -> tuple[str, dict[str, Any]]:
    """tui_gateway lists live sessions with ``session.active_list``; canonical's list is live."""
    if dialect is Dialect.C:
        return "session.list", {"limit": 200}
    return "session.active_list", {}


class SessionCommands:
    """Session requests, mixed into ``GatewayClient``.

    ``_dialect`` returns the connected dialect or raises ``NotSentError``; ``_after_input``
    delivers what the core produced after it learned a session.
    """

    core: GatewayCore
    _core_settings: CoreSettings
    call: Call
    _dialect: Callable[[], Dialect]
    _after_input: Callable[[], None]

    async def set_yolo(self, session_id: str, on: bool) -> None:
        params = {"session_id": session_id, "key": "yolo", "value": "on" if on else "off"}
        if self._dialect() is not Dialect.C:
            params["scope"] = "session"
        await self.call("config.set", params)

    async def read_yolo(self, session_id: str) -> None:
        """``config.get yolo`` (canonical's ``session.info`` has no ``yolo``); the core folds it."""
        await self.call("config.get", {"session_id": session_id, "key": "yolo"})

    async def set_approval_mode(self, mode: str) -> None:
        if mode not in APPROVAL_MODES:
            raise ValueError(f"approval mode must be one of {sorted(APPROVAL_MODES)}, not {mode!r}")
        if self._dialect() is Dialect.C:
            raise UnsupportedError(
                "The canonical gateway has no approval-mode setting over the connection; change "
                "approvals.mode in Hermes' config.yaml instead."
            )
        await self.call("config.set", {"key": "approvals.mode", "value": mode})

    async def interrupt(self, session_id: str) -> None:
        params: dict[str, Any] = {"session_id": session_id}
        if self._dialect() is Dialect.C:
            generation = next(
                (
                    s.execution_generation
                    for s in self.core.sessions()
                    if s.session_id == session_id
                ),
                None,
            )
            if generation is None:
                raise UnsupportedError(
                    f"Session {session_id} has no known execution generation yet; wait for its "
                    "snapshot and try again."
                )
            params["execution_generation"] = generation
        await self.call("session.interrupt", params)

    async def create_session(self, cwd: str, prompt: str) -> str:
        """Create a desktop session, follow it, submit ``prompt``; return its session id."""
        if self._dialect() is Dialect.C:
            params: dict[str, Any] = {"source": "gui", "cwd": cwd}
        else:
            params = {"source": self._core_settings.session_source, "cwd": cwd}
            params["close_on_disconnect"] = False
        result = await self.call("session.create", params)
        session_id = str(result.get("session_id", ""))
        if not session_id:
            raise RpcCallError(-32603, "session.create returned no session_id")
        self.core.watch_session(
            session_id, stored_session_id=str(result.get("stored_session_id") or "")
        )
        self._after_input()
        if prompt:
            await self.call("prompt.submit", {"session_id": session_id, "text": prompt})
        return session_id

    async def list_live_sessions(self) -> list[Mapping[str, Any]]:
        method, params = live_sessions_method(self._dialect())
        result = await self.call(method, params)
        sessions = result.get("sessions")
        return [s for s in sessions if isinstance(s, Mapping)] if isinstance(sessions, list) else []

    async def attach_session(self, session_id: str) -> None:
        """Resume ``session_id`` (stored id) and follow it; never with an ``api_key``.

        On 0.19.0 this takes the session's events from whichever viewer had them; the UI says so.
        """
        params: dict[str, Any] = {"session_id": session_id}
        if self._dialect() is not Dialect.C:
            params.update(source=self._core_settings.session_source, close_on_disconnect=False)
        elif self._core_settings.canonical_resume_source:
            params["source"] = self._core_settings.canonical_resume_source
        result = await self.call("session.resume", params)
        runtime_id = str(result.get("session_id") or session_id)
        stored = str(result.get("stored_session_id") or result.get("session_key") or session_id)
        self.core.watch_session(runtime_id, stored_session_id=stored)
        self._after_input()
