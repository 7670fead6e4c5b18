"""Both single-instance channels deliver a message and its end: the Unix one the app uses on
Linux and macOS (no QtNetwork), and the QLocalServer one Windows uses (tried here on a Unix
socket, which is what QLocalServer is on Unix). The protocol on top is tested in
tests/ui/test_single_instance.py; here only the transports, each against both clients."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.ui import local_qt, local_unix

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket paths")

SERVERS = {"unix": local_unix.UnixServer, "qt": local_qt.QtServer}
CLIENTS = {"unix": local_unix.tell, "qt": local_qt.tell}


@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_a_message_arrives_and_then_its_end(qtbot: QtBot, tmp_path: Path, server, client):
    path = str(tmp_path / "c.sock")
    listening = SERVERS[server](path)
    received: list[bytes] = []
    ended: list[object] = []
    listening.received.connect(lambda _c, data: received.append(data))
    listening.ended.connect(ended.append)
    assert listening.listen(), listening.error
    assert CLIENTS[client](path, b"show-approvals\n", 1.0)
    qtbot.waitUntil(lambda: bool(ended), timeout=2000)
    assert b"".join(received) == b"show-approvals\n"
    listening.close()
    listening.deleteLater()


def test_the_unix_channel_is_private_and_cleans_up(qtbot: QtBot, tmp_path: Path):
    path = tmp_path / "c.sock"
    listening = local_unix.UnixServer(str(path))
    assert listening.listen()
    assert path.stat().st_mode & 0o077 == 0
    assert not local_unix.UnixServer(str(path)).listen()  # the name is taken
    listening.close()
    assert not path.exists()
    assert not local_unix.tell(str(path), b"x\n", 0.2)  # nobody listens any more
    listening.deleteLater()


def test_aborting_a_connection_stops_its_data(qtbot: QtBot, tmp_path: Path):
    path = str(tmp_path / "c.sock")
    listening = local_unix.UnixServer(path)
    received: list[bytes] = []

    def first_chunk_only(connection: object, data: bytes) -> None:
        received.append(data)
        listening.abort(connection)

    listening.received.connect(first_chunk_only)
    assert listening.listen()
    local_unix.tell(path, b"y" * (4 * local_unix.CHUNK), 1.0)
    qtbot.waitUntil(lambda: bool(received), timeout=2000)
    qtbot.wait(100)
    assert len(received) == 1
    listening.close()
    listening.deleteLater()
