"""Per-dialect params of the tray's commands (protocol.md §2-§5), table-driven."""

from __future__ import annotations

import pytest

from desktop.core.gateway_core import CoreSettings, GatewayCore
from desktop.core.model import Dialect
from desktop.gateway import commands
from desktop.gateway.errors import NotSentError, UnsupportedError
from desktop.gateway.session_commands import SessionCommands

A, B, C = Dialect.A, Dialect.B, Dialect.C


@pytest.mark.parametrize("dialect", [A, B])
def test_tui_gateway_sessions_are_desktop_sessions_that_outlive_the_socket(
    dialect: Dialect,
) -> None:
    assert commands.session_create(dialect, "/w") == {
        "source": "desktop",
        "cwd": "/w",
        "close_on_disconnect": False,
    }
    assert commands.session_resume(dialect, "stored-1") == {
        "session_id": "stored-1",
        "source": "desktop",
        "close_on_disconnect": False,
    }


def test_canonical_sessions_use_the_gui_source_and_its_closed_key_set() -> None:
    assert commands.session_create(C, "/w") == {"source": "gui", "cwd": "/w"}
    assert commands.session_resume(C, "s1") == {"session_id": "s1"}
    assert commands.session_resume(C, "s1", canonical_source="gui") == {
        "session_id": "s1",
        "source": "gui",
    }


def test_yolo_scope_only_on_tui_gateway() -> None:
    assert commands.set_yolo(A, "s", True) == {
        "session_id": "s",
        "key": "yolo",
        "value": "on",
        "scope": "session",
    }
    assert commands.set_yolo(C, "s", False) == {"session_id": "s", "key": "yolo", "value": "off"}


def test_approval_mode_exists_only_on_tui_gateway() -> None:
    assert commands.set_approval_mode(B, "smart") == {"key": "approvals.mode", "value": "smart"}
    with pytest.raises(UnsupportedError, match=r"config\.yaml"):
        commands.set_approval_mode(C, "manual")
    with pytest.raises(ValueError, match="approval mode"):
        commands.set_approval_mode(A, "yolo")


def test_interrupt_needs_the_generation_on_canonical() -> None:
    assert commands.interrupt(A, "s", None) == {"session_id": "s"}
    assert commands.interrupt(C, "s", 4) == {"session_id": "s", "execution_generation": 4}
    with pytest.raises(UnsupportedError, match="execution generation"):
        commands.interrupt(C, "s", None)


def test_live_session_listing_per_dialect() -> None:
    assert commands.live_sessions_method(A) == ("session.active_list", {})
    assert commands.live_sessions_method(C) == ("session.list", {"limit": 200})


def test_session_commands_go_through_the_injected_call(arun) -> None:
    sent: list[tuple[str, dict]] = []
    flushed: list[None] = []

    async def call(method, params):
        sent.append((method, dict(params)))
        return {"session_id": "rt-1", "stored_session_id": "st-1"}

    core = GatewayCore("g1", clock=lambda: 0.0)
    session_commands = SessionCommands(
        core, CoreSettings(), call=call, dialect=lambda: C, flush=lambda: flushed.append(None)
    )
    arun(session_commands.set_yolo("s1", False))
    arun(session_commands.read_yolo("s1"))
    assert sent == [
        ("config.set", {"session_id": "s1", "key": "yolo", "value": "off"}),
        ("config.get", {"session_id": "s1", "key": "yolo"}),
    ]
    arun(session_commands.attach_session("st-1"))
    assert sent[-1][0] == "session.resume"
    assert flushed == [None]  # the core learned a session: what it queued is delivered


def test_session_commands_send_nothing_when_not_connected(arun) -> None:
    sent: list[str] = []

    async def call(method, params):
        sent.append(method)
        return {}

    def not_connected() -> Dialect:
        raise NotSentError("Not connected to Local; nothing was sent.")

    core = GatewayCore("g1", clock=lambda: 0.0)
    session_commands = SessionCommands(
        core, CoreSettings(), call=call, dialect=not_connected, flush=lambda: None
    )
    with pytest.raises(NotSentError):
        arun(session_commands.set_yolo("s1", True))
    assert sent == []


def test_an_approval_mode_the_core_does_not_know_is_never_sent() -> None:
    assert commands.set_approval_mode(B, "smart")["value"] == "smart"
    with pytest.raises(ValueError, match="approval mode must be one of"):
        commands.set_approval_mode(B, "auto")
