"""Per-dialect params of the session commands (protocol.md §2-§5), via a recording call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from desktop.core.gateway_core import CoreSettings, GatewayCore
from desktop.core.model import Dialect
from desktop.gateway.errors import NotSentError, UnsupportedError
from desktop.gateway.session_commands import SessionCommands, live_sessions_method

A, B, C = Dialect.A, Dialect.B, Dialect.C
REPLY = {"session_id": "rt-1", "stored_session_id": "st-1"}


class Recording(SessionCommands):
    """The commands with a recording ``call``, on a given dialect."""

    def __init__(self, dialect: Callable[[], Dialect], settings: CoreSettings) -> None:
        self.core = GatewayCore("g1", clock=lambda: 0.0)
        self._core_settings = settings
        self._dialect = dialect
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.flushed: list[None] = []
        self._after_input = lambda: self.flushed.append(None)

    async def call(self, method: str, params: Any, *, timeout: float = 30.0) -> Any:
        self.sent.append((method, dict(params)))
        return REPLY


def commands_for(
    dialect: Dialect, *, settings: CoreSettings | None = None
) -> tuple[Recording, list[tuple[str, dict[str, Any]]], list[None]]:
    commands = Recording(lambda: dialect, settings or CoreSettings())
    return commands, commands.sent, commands.flushed


@pytest.mark.parametrize("dialect", [A, B])
def test_tui_gateway_sessions_are_desktop_sessions_that_outlive_the_socket(
    dialect: Dialect, arun: Any
) -> None:
    commands, sent, _ = commands_for(dialect)
    arun(commands.create_session("/w", ""))
    arun(commands.attach_session("stored-1"))
    assert sent == [
        ("session.create", {"source": "desktop", "cwd": "/w", "close_on_disconnect": False}),
        (
            "session.resume",
            {"session_id": "stored-1", "source": "desktop", "close_on_disconnect": False},
        ),
    ]


def test_canonical_sessions_use_the_gui_source_and_its_closed_key_set(arun: Any) -> None:
    commands, sent, _ = commands_for(C)
    arun(commands.create_session("/w", "go"))
    arun(commands.attach_session("s1"))
    assert sent == [
        ("session.create", {"source": "gui", "cwd": "/w"}),
        ("prompt.submit", {"session_id": "rt-1", "text": "go"}),
        ("session.resume", {"session_id": "s1"}),
    ]
    commands, sent, _ = commands_for(C, settings=CoreSettings(canonical_resume_source="gui"))
    arun(commands.attach_session("s1"))
    assert sent == [("session.resume", {"session_id": "s1", "source": "gui"})]


def test_yolo_scope_only_on_tui_gateway(arun: Any) -> None:
    tui, tui_sent, _ = commands_for(A)
    arun(tui.set_yolo("s", True))
    canonical, canonical_sent, _ = commands_for(C)
    arun(canonical.set_yolo("s", False))
    arun(canonical.read_yolo("s"))
    assert tui_sent == [
        ("config.set", {"session_id": "s", "key": "yolo", "value": "on", "scope": "session"})
    ]
    assert canonical_sent == [
        ("config.set", {"session_id": "s", "key": "yolo", "value": "off"}),
        ("config.get", {"session_id": "s", "key": "yolo"}),
    ]


def test_approval_mode_exists_only_on_tui_gateway(arun: Any) -> None:
    tui, sent, _ = commands_for(B)
    arun(tui.set_approval_mode("smart"))
    assert sent == [("config.set", {"key": "approvals.mode", "value": "smart"})]
    canonical, canonical_sent, _ = commands_for(C)
    with pytest.raises(UnsupportedError, match=r"config\.yaml"):
        arun(canonical.set_approval_mode("manual"))
    assert canonical_sent == []


def test_an_approval_mode_the_core_does_not_know_is_never_sent(arun: Any) -> None:
    commands, sent, _ = commands_for(B)
    for mode in ("yolo", "auto"):
        with pytest.raises(ValueError, match="approval mode must be one of"):
            arun(commands.set_approval_mode(mode))
    assert sent == []


def test_interrupt_needs_the_generation_on_canonical(arun: Any) -> None:
    tui, sent, _ = commands_for(A)
    arun(tui.interrupt("s"))
    assert sent == [("session.interrupt", {"session_id": "s"})]
    canonical, canonical_sent, _ = commands_for(C)
    with pytest.raises(UnsupportedError, match="execution generation"):
        arun(canonical.interrupt("s"))
    assert canonical_sent == []


def test_live_session_listing_per_dialect() -> None:
    assert live_sessions_method(A) == ("session.active_list", {})
    assert live_sessions_method(C) == ("session.list", {"limit": 200})


def test_a_learned_session_is_flushed_to_the_core(arun: Any) -> None:
    commands, sent, flushed = commands_for(C)
    arun(commands.attach_session("st-1"))
    assert sent[-1][0] == "session.resume"
    assert flushed == [None]  # the core learned a session: what it queued is delivered


def test_session_commands_send_nothing_when_not_connected(arun: Any) -> None:
    def not_connected() -> Dialect:
        raise NotSentError("Not connected to Local; nothing was sent.")

    commands = Recording(not_connected, CoreSettings())
    with pytest.raises(NotSentError):
        arun(commands.set_yolo("s1", True))
    assert commands.sent == []
