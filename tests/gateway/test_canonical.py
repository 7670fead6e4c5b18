from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.gateway import canonical
from desktop.gateway.errors import ConnectError
from tests.gateway.control_server import FakeControlSocket

ORIGIN = "http://127.0.0.1:45678"


@pytest.fixture
def home() -> Iterator[Path]:
    """A short private dir (AF_UNIX paths are limited to ~107 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="hgw", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_direct_socket_identify_and_fresh_tickets(home: Path, arun: Callable[..., Any]) -> None:
    async def scenario() -> None:
        sock = str(home / canonical.SOCKET_NAME)
        async with FakeControlSocket(sock, home=str(home), api_origin=ORIGIN) as control:
            first = await canonical.dial_ticket(home)
            second = await canonical.dial_ticket(home)
            assert first.url == "ws://127.0.0.1:45678/api/ws"
            assert first.subprotocols[0] == "hermes-gateway-v1"
            assert first.subprotocols[1] == "hermes-gateway-ticket." + control.tickets[0]
            assert second.subprotocols[1] == "hermes-gateway-ticket." + control.tickets[1]
            assert control.tickets[0] != control.tickets[1]
            verbs = [r["verb"] for r in control.requests]
            assert verbs == ["identify", "session-ticket"] * 2
            assert control.requests[1]["params"] == {
                "profile_id": "default",
                "instance_id": "inst-1",
                "purpose": "interactive",
            }

    arun(scenario())


def test_pointer_file_is_followed_only_when_private(home: Path, arun: Callable[..., Any]) -> None:
    sock_dir = home / "hermes-gw-abc123"
    sock_dir.mkdir(mode=0o700)
    sock = sock_dir / "control.sock"
    pointer = home / canonical.POINTER_NAME
    pointer.write_text(str(sock) + "\n")
    os.chmod(pointer, 0o600)

    async def scenario() -> None:
        async with FakeControlSocket(str(sock), home=str(home), api_origin=ORIGIN):
            assert canonical.find_control_socket(home) == sock
            ticket = await canonical.dial_ticket(home)
            assert ticket.url.endswith("/api/ws")
            os.chmod(pointer, 0o644)
            with pytest.raises(ConnectError, match="chmod 600") as info:
                canonical.find_control_socket(home)
            assert info.value.fatal

    arun(scenario())


def test_pointer_to_an_unexpected_path_is_ignored(home: Path) -> None:
    pointer = home / canonical.POINTER_NAME
    pointer.write_text("/tmp/evil.sock")
    os.chmod(pointer, 0o600)
    with pytest.raises(ConnectError, match="unexpected path"):
        canonical.find_control_socket(home)


def test_no_socket_means_nothing_found(home: Path, arun: Callable[..., Any]) -> None:
    assert canonical.find_control_socket(home) is None
    with pytest.raises(ConnectError, match="No canonical gateway control socket"):
        arun(canonical.dial_ticket(home))


@pytest.mark.parametrize(
    ("override", "message", "fatal"),
    [
        ({"state": "starting"}, "is starting; retrying", False),
        ({"capabilities": []}, "lacks the session-authority-v1", True),
        ({"api_origin": "http://10.0.0.5:80"}, "not a loopback", True),
        ({"api_origin": "http://127.0.0.1:80/x"}, "not a loopback", True),
        ({"authority_epoch": 0}, "authority epoch", True),
        ({"runtime_protocol": 2}, "another runtime protocol", True),
        ({"served_profiles": []}, "exactly once", True),
    ],
)
def test_identify_answers_are_validated(
    home: Path, arun: Callable[..., Any], override: dict[str, Any], message: str, fatal: bool
) -> None:
    async def scenario() -> None:
        sock = str(home / canonical.SOCKET_NAME)
        async with FakeControlSocket(sock, home=str(home), api_origin=ORIGIN) as control:
            control.identify_override = override
            with pytest.raises(ConnectError, match=message) as info:
                await canonical.dial_ticket(home)
            assert info.value.fatal is fatal
            assert not control.tickets  # no ticket is asked for an invalid runtime

    arun(scenario())


def test_dead_socket_file_is_a_retryable_error(home: Path, arun: Callable[..., Any]) -> None:
    # A crashed gateway leaves its socket file behind with nobody listening on it.
    raw = socket.socket(socket.AF_UNIX)
    raw.bind(str(home / canonical.SOCKET_NAME))
    raw.close()
    with pytest.raises(ConnectError, match="did not answer") as info:
        arun(canonical.dial_ticket(home))
    assert not info.value.fatal
