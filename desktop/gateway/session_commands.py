"""The tray's session commands, with params built per dialect (see ``commands``).

Why a mixin: ``GatewayClient`` owns the connection; these are thin, dialect-aware wrappers
over its ``call`` that also tell the core which sessions to follow. Kept apart so the client
module stays about transport and state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.core.gateway_core import CoreSettings, GatewayCore
from desktop.core.model import Dialect
from desktop.gateway import commands
from desktop.gateway.errors import RpcCallError


class SessionCommands:
    """Mixed into GatewayClient, which provides ``core``, ``call`` and the helpers below."""

    core: GatewayCore
    _core_settings: CoreSettings

    async def call(
        self, method: str, params: Mapping[str, Any], *, timeout: float = 30.0
    ) -> Mapping[str, Any]:
        raise NotImplementedError

    def _dialect(self) -> Dialect:
        raise NotImplementedError

    def _after_input(self) -> None:
        raise NotImplementedError

    async def set_yolo(self, session_id: str, on: bool) -> None:
        await self.call("config.set", commands.set_yolo(self._dialect(), session_id, on))

    async def set_approval_mode(self, mode: str) -> None:
        """manual|smart|off on tui_gateway; UnsupportedError on canonical (no such setter)."""
        await self.call("config.set", commands.set_approval_mode(self._dialect(), mode))

    async def interrupt(self, session_id: str) -> None:
        dialect = self._dialect()
        generation = next(
            (s.execution_generation for s in self.core.sessions() if s.session_id == session_id),
            None,
        )
        await self.call("session.interrupt", commands.interrupt(dialect, session_id, generation))

    async def create_session(self, cwd: str, prompt: str) -> str:
        """Create a desktop session, follow it, submit ``prompt``; return its session id."""
        dialect = self._dialect()
        result = await self.call(
            "session.create",
            commands.session_create(dialect, cwd, source=self._core_settings.session_source),
        )
        session_id = str(result.get("session_id", ""))
        if not session_id:
            raise RpcCallError(-32603, "session.create returned no session_id")
        self.core.watch_session(
            session_id, stored_session_id=str(result.get("stored_session_id") or "")
        )
        self._after_input()
        if prompt:
            await self.call("prompt.submit", commands.prompt_submit(session_id, prompt))
        return session_id

    async def list_live_sessions(self) -> list[Mapping[str, Any]]:
        method, params = commands.live_sessions_method(self._dialect())
        result = await self.call(method, params)
        sessions = result.get("sessions")
        return [s for s in sessions if isinstance(s, Mapping)] if isinstance(sessions, list) else []

    async def attach_session(self, session_id: str) -> None:
        """Resume ``session_id`` (stored id) and follow it.

        On 0.19.0 this takes the session's event stream away from whichever viewer had it (one
        transport per session); the UI says so before calling.
        """
        dialect = self._dialect()
        result = await self.call(
            "session.resume",
            commands.session_resume(
                dialect,
                session_id,
                source=self._core_settings.session_source,
                canonical_source=str(getattr(self._core_settings, "canonical_resume_source", "")),
            ),
        )
        runtime_id = str(result.get("session_id") or session_id)
        stored = str(result.get("stored_session_id") or result.get("session_key") or session_id)
        self.core.watch_session(runtime_id, stored_session_id=stored)
        self._after_input()

    async def refresh_usage(self, session_id: str) -> None:
        """Ask for ``session.usage``; the core folds the answer into the session's usage."""
        await self.call("session.usage", commands.session_usage(session_id))
