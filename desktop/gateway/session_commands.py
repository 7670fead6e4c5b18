"""The tray's session commands, with params built per dialect (see ``commands``).

These are thin, dialect-aware requests over the client's ``call`` that also tell the core which
sessions to follow; the client owns the connection and hands this object only what it needs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from desktop.core.gateway_core import GatewayCore
from desktop.core.model import Dialect
from desktop.core.settings import CoreSettings
from desktop.gateway import commands
from desktop.gateway.errors import RpcCallError

Call = Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any]]]


class SessionCommands:
    """Session requests of one client.

    ``call`` is the client's RPC, ``dialect`` the connected dialect (raises ``NotSentError``
    when not connected), ``flush`` delivers what the core produced after it learned a session.
    """

    def __init__(
        self,
        core: GatewayCore,
        settings: CoreSettings,
        *,
        call: Call,
        dialect: Callable[[], Dialect],
        flush: Callable[[], None],
    ) -> None:
        self._core = core
        self._settings = settings
        self._call = call
        self._dialect = dialect
        self._flush = flush

    async def set_yolo(self, session_id: str, on: bool) -> None:
        await self._call("config.set", commands.set_yolo(self._dialect(), session_id, on))

    async def read_yolo(self, session_id: str) -> None:
        """``config.get yolo`` (canonical's ``session.info`` has no ``yolo``); the core folds it."""
        await self._call("config.get", commands.get_yolo(session_id))

    async def set_approval_mode(self, mode: str) -> None:
        """manual|smart|off on tui_gateway; UnsupportedError on canonical (no such setter)."""
        await self._call("config.set", commands.set_approval_mode(self._dialect(), mode))

    async def interrupt(self, session_id: str) -> None:
        dialect = self._dialect()
        generation = next(
            (s.execution_generation for s in self._core.sessions() if s.session_id == session_id),
            None,
        )
        await self._call("session.interrupt", commands.interrupt(dialect, session_id, generation))

    async def create_session(self, cwd: str, prompt: str) -> str:
        """Create a desktop session, follow it, submit ``prompt``; return its session id."""
        dialect = self._dialect()
        result = await self._call(
            "session.create",
            commands.session_create(dialect, cwd, source=self._settings.session_source),
        )
        session_id = str(result.get("session_id", ""))
        if not session_id:
            raise RpcCallError(-32603, "session.create returned no session_id")
        self._core.watch_session(
            session_id, stored_session_id=str(result.get("stored_session_id") or "")
        )
        self._flush()
        if prompt:
            await self._call("prompt.submit", commands.prompt_submit(session_id, prompt))
        return session_id

    async def list_live_sessions(self) -> list[Mapping[str, Any]]:
        method, params = commands.live_sessions_method(self._dialect())
        result = await self._call(method, params)
        sessions = result.get("sessions")
        return [s for s in sessions if isinstance(s, Mapping)] if isinstance(sessions, list) else []

    async def attach_session(self, session_id: str) -> None:
        """Resume ``session_id`` (stored id) and follow it.

        On 0.19.0 this takes the session's event stream away from whichever viewer had it (one
        transport per session); the UI says so before calling.
        """
        dialect = self._dialect()
        result = await self._call(
            "session.resume",
            commands.session_resume(
                dialect,
                session_id,
                source=self._settings.session_source,
                canonical_source=self._settings.canonical_resume_source,
            ),
        )
        runtime_id = str(result.get("session_id") or session_id)
        stored = str(result.get("stored_session_id") or result.get("session_key") or session_id)
        self._core.watch_session(runtime_id, stored_session_id=stored)
        self._flush()

    async def refresh_usage(self, session_id: str) -> None:
        """Ask for ``session.usage``; the core folds the answer into the session's usage."""
        await self._call("session.usage", commands.session_usage(session_id))
