"""Per-dialect method and params of the session requests (protocol.md §2-§5), by plain calls."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.model import Dialect
from desktop.core.settings import CoreSettings
from desktop.gateway import session_commands as requests
from desktop.gateway.client import GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.gateway.errors import NotSentError, UnsupportedError
from desktop.settings.model import GatewayKind

A, B, C = Dialect.A, Dialect.B, Dialect.C
SETTINGS = CoreSettings()


@pytest.mark.parametrize("dialect", [A, B])
def test_tui_gateway_sessions_are_desktop_sessions_that_outlive_the_socket(
    dialect: Dialect,
) -> None:
    assert requests.create_session(dialect, SETTINGS, "/w") == (
        "session.create",
        {"source": "desktop", "cwd": "/w", "close_on_disconnect": False},
    )


def test_canonical_sessions_use_the_gui_source_and_its_closed_key_set() -> None:
    assert requests.create_session(C, SETTINGS, "/w") == (
        "session.create",
        {"source": "gui", "cwd": "/w"},
    )


def test_yolo_scope_only_on_tui_gateway() -> None:
    assert requests.set_yolo(A, "s", True) == (
        "config.set",
        {"session_id": "s", "key": "yolo", "value": "on", "scope": "session"},
    )
    assert requests.set_yolo(C, "s", False) == (
        "config.set",
        {"session_id": "s", "key": "yolo", "value": "off"},
    )
    assert requests.read_yolo("s") == ("config.get", {"session_id": "s", "key": "yolo"})


def test_approval_mode_exists_only_on_tui_gateway() -> None:
    assert requests.set_approval_mode(B, "smart") == (
        "config.set",
        {"key": "approvals.mode", "value": "smart"},
    )
    with pytest.raises(UnsupportedError, match=r"config\.yaml"):
        requests.set_approval_mode(C, "manual")


def test_an_approval_mode_the_core_does_not_know_is_never_built() -> None:
    for mode in ("yolo", "auto"):
        with pytest.raises(ValueError, match="approval mode must be one of"):
            requests.set_approval_mode(B, mode)


def test_interrupt_needs_the_generation_on_canonical() -> None:
    assert requests.interrupt(A, "s", []) == ("session.interrupt", {"session_id": "s"})
    with pytest.raises(UnsupportedError, match="execution generation"):
        requests.interrupt(C, "s", [("other", 3), ("s", None)])
    assert requests.interrupt(C, "s", [("other", 3), ("s", 7)]) == (
        "session.interrupt",
        {"session_id": "s", "execution_generation": 7},
    )


def test_live_session_listing_per_dialect() -> None:
    assert requests.live_sessions(A) == ("session.active_list", {})
    assert requests.live_sessions(C) == ("session.list", {"limit": 200})


def test_session_requests_send_nothing_when_not_connected(arun: Any) -> None:
    endpoint = GatewayEndpoint("g1", "Local", GatewayKind.URL, url="ws://127.0.0.1:9/api/ws")
    client = GatewayClient(endpoint, listener=None)  # type: ignore[arg-type]  # never called
    for request in (
        client.set_yolo("s1", True),
        client.interrupt("s1"),
        client.create_session("/w", "go"),
        client.list_live_sessions(),
    ):
        with pytest.raises(NotSentError):
            arun(request)
    assert client.core.data_to_send() == []
