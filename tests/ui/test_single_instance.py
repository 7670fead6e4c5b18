"""Single instance: two SingleInstance objects with one name stand in for two launches."""

from __future__ import annotations

import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.platform.activation import event_token
from desktop.ui.single_instance import (
    CONNECTION_MS,
    MAX_CONNECTIONS,
    SHOW_APPROVALS,
    SingleInstance,
    default_server_name,
    is_private_dir,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket paths")

Factory = Callable[[], SingleInstance]


@pytest.fixture
def socket_path(tmp_path: Path) -> str:
    return str(tmp_path / "tray.sock")  # short enough for AF_UNIX's 108-byte limit


@pytest.fixture
def make_instance(qapp: object, socket_path: str) -> Iterator[Factory]:
    made: list[SingleInstance] = []

    def make() -> SingleInstance:
        instance = SingleInstance(socket_path, timeout_ms=1000)
        made.append(instance)
        return instance

    yield make
    for instance in made:
        instance.close()


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temp dir with a short path (pytest's own are too deep for AF_UNIX's 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="ht", dir="/tmp") as path:
        yield Path(path)


def connect(name: str) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(1.0)
    client.connect(name)
    return client


def send_raw(name: str, payload: bytes) -> None:
    with connect(name) as client:
        client.sendall(payload)


def closed_by_server(client: socket.socket) -> bool:
    client.setblocking(False)
    try:
        return client.recv(1) == b""
    except BlockingIOError:
        return False  # still open, nothing to read
    except ConnectionResetError:
        return True


def test_second_launch_asks_the_first_to_show_approvals(
    qtbot: QtBot, make_instance: Factory
) -> None:
    first, second = make_instance(), make_instance()
    assert first.start() is True
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        assert second.start() is False


def test_a_second_launch_hands_over_its_activation_token(
    qtbot: QtBot, make_instance: Factory
) -> None:
    first, second = make_instance(), make_instance()
    first.start()
    taken: list[str] = []
    first.show_approvals_requested.connect(lambda: taken.append(event_token.take()))
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        assert second.start(activation_token="sway/token-1") is False
    assert taken == ["sway/token-1"]
    assert event_token.take() == ""  # gone with the request it came with


@pytest.mark.parametrize(
    "line",
    [b"activation-token two words", b"activation-token " + b"t" * 300, b"activation-token \x1b[2J"],
)
def test_a_malformed_token_is_dropped_and_the_approvals_still_shown(
    qtbot: QtBot,
    make_instance: Factory,
    socket_path: str,
    caplog: pytest.LogCaptureFixture,
    line: bytes,
) -> None:
    first = make_instance()
    first.start()
    taken: list[str] = []
    first.show_approvals_requested.connect(lambda: taken.append(event_token.take()))
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        send_raw(socket_path, line + b"\n" + SHOW_APPROVALS.encode() + b"\n")
    assert taken == [""]
    assert "malformed activation token" in caplog.text
    assert line.decode()[17:] not in caplog.text  # never logged


def test_a_token_belongs_to_its_own_connection(
    qtbot: QtBot, make_instance: Factory, socket_path: str
) -> None:
    first = make_instance()
    first.start()
    taken: list[str] = []
    first.show_approvals_requested.connect(lambda: taken.append(event_token.take()))
    send_raw(socket_path, b"activation-token not-for-you\n")
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        send_raw(socket_path, SHOW_APPROVALS.encode() + b"\n")
    assert taken == [""]


def test_the_socket_is_private_to_the_user(make_instance: Factory, socket_path: str) -> None:
    assert make_instance().start() is True
    mode = stat.S_IMODE(Path(socket_path).stat().st_mode)
    assert mode & 0o077 == 0


def test_a_stale_socket_from_a_crashed_run_is_replaced(
    qtbot: QtBot, make_instance: Factory, socket_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    crashed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    crashed.bind(socket_path)  # the file exists, but nobody will ever accept on it
    crashed.close()
    assert Path(socket_path).exists()
    with caplog.at_level(logging.INFO, logger="desktop.ui.single_instance"):
        first = make_instance()
        assert first.start() is True
    assert "stale" in caplog.text
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        assert make_instance().start() is False


def test_after_close_the_next_launch_becomes_primary(
    make_instance: Factory, socket_path: str
) -> None:
    first = make_instance()
    assert first.start() is True
    first.close()
    assert not Path(socket_path).exists()
    assert make_instance().start() is True


def test_unknown_messages_are_ignored_and_logged(
    qtbot: QtBot, make_instance: Factory, socket_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    first = make_instance()
    first.start()
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000) as blocker:
        send_raw(socket_path, b"open-the-pod-bay-doors\n" + SHOW_APPROVALS.encode() + b"\n")
    assert blocker.signal_triggered
    assert "unknown single-instance message" in caplog.text
    assert "open-the-pod-bay-doors" in caplog.text


def test_a_last_line_without_newline_still_counts(
    qtbot: QtBot, make_instance: Factory, socket_path: str
) -> None:
    first = make_instance()
    first.start()
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        send_raw(socket_path, SHOW_APPROVALS.encode())


def test_an_over_long_message_is_dropped(
    qtbot: QtBot, make_instance: Factory, socket_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    first = make_instance()
    first.start()
    with qtbot.assertNotEmitted(first.show_approvals_requested, wait=200):
        send_raw(socket_path, b"x" * 5000)
        qtbot.waitUntil(lambda: "over-long" in caplog.text, timeout=2000)


def test_default_name_is_per_user_and_per_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(tmp_path / "a"))
    name_a = default_server_name()
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(tmp_path / "b"))
    name_b = default_server_name()
    assert name_a != name_b
    assert Path(name_a).parent == runtime
    assert Path(name_a).name.startswith("hermes-tray-")
    monkeypatch.setenv("USER", "someone-else")
    monkeypatch.setenv("LOGNAME", "someone-else")
    assert default_server_name() != name_b


def test_without_a_runtime_dir_the_socket_lives_in_a_private_dir_of_ours(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = short_tmp
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    name = Path(default_server_name())
    assert name.parent == tmp_path / f"hermes-tray-{os.getuid()}"  # before: a bare name in /tmp
    assert name.name.startswith("hermes-tray-")
    info = name.parent.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.getuid()


@pytest.mark.parametrize("mode", [0o777, 0o755])
def test_a_directory_others_can_enter_is_never_used(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    tmp_path = short_tmp  # pytest's own may pass the 107-byte socket path after many runs
    runtime = tmp_path / "run"
    runtime.mkdir()
    runtime.chmod(mode)
    squatted = tmp_path / f"hermes-tray-{os.getuid()}"  # created first by someone else
    squatted.mkdir()
    squatted.chmod(mode)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(tmp_path / "config"))
    name = Path(default_server_name())
    assert name.parent == tmp_path / "config" / "run"
    assert is_private_dir(str(name.parent))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_another_users_socket_does_not_make_the_tray_exit(qapp: object, tmp_path: Path) -> None:
    path = tmp_path / "tray.sock"
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(str(path))
    squatter.listen(8)  # it even answers: before, the launch "found the running tray" and quit
    os.chown(path, 4242, 4242)
    instance = SingleInstance(str(path), timeout_ms=500)
    try:
        assert instance.start() is True
        assert path.stat().st_uid == os.getuid()  # our own socket replaced the squatter's
    finally:
        instance.close()
        squatter.close()


def test_a_non_socket_file_at_the_name_is_replaced(qapp: object, tmp_path: Path) -> None:
    path = tmp_path / "tray.sock"
    path.write_text("not a socket")
    instance = SingleInstance(str(path), timeout_ms=500)
    try:
        assert instance.start() is True
        assert stat.S_ISSOCK(path.stat().st_mode)
    finally:
        instance.close()


def test_a_runtime_dir_too_long_for_a_socket_path_is_skipped(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = short_tmp
    long_home = tmp_path / ("h" * 90)
    long_home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(long_home))  # private, but 100+ bytes deep
    squatted = tmp_path / f"hermes-tray-{os.getuid()}"  # the short temp dir is taken
    squatted.mkdir()
    squatted.chmod(0o777)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(long_home / "config"))
    name = default_server_name()
    assert len(os.fsencode(name)) <= 107
    assert is_private_dir(str(Path(name).parent))
    assert default_server_name() == name  # a second launch finds the same socket


def test_two_launches_with_a_long_home_still_find_each_other(
    qtbot: QtBot, short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_home = short_tmp / ("h" * 90)
    long_home.mkdir(mode=0o700)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    (short_tmp / f"hermes-tray-{os.getuid()}").mkdir(mode=0o755)  # squatted: others may enter
    monkeypatch.setattr(tempfile, "tempdir", str(short_tmp))
    monkeypatch.setenv("HERMES_TRAY_CONFIG_DIR", str(long_home / "config"))
    first = SingleInstance(timeout_ms=1000)
    assert first.start()  # before: "Name error" from listen, and a second tray ran
    assert Path(first.name).exists()  # it listens
    assert SingleInstance(timeout_ms=1000).name == first.name  # the next launch dials it
    first.close()


def test_idle_connections_are_capped_and_closed(
    qtbot: QtBot, make_instance: Factory, socket_path: str
) -> None:
    first = make_instance()
    first.start()
    idle = [connect(socket_path) for _ in range(MAX_CONNECTIONS + 4)]
    qtbot.waitUntil(lambda: len(first._buffers) == MAX_CONNECTIONS, timeout=2000)
    qtbot.waitUntil(lambda: all(closed_by_server(c) for c in idle), timeout=CONNECTION_MS + 2000)
    assert not first._buffers  # every idle one was closed by the server
    with qtbot.waitSignal(first.show_approvals_requested, timeout=2000):
        send_raw(socket_path, SHOW_APPROVALS.encode() + b"\n")  # and launches still get through
    for client in idle:
        client.close()


def test_a_launch_that_finds_nobody_listening_gives_up_at_once(
    make_instance: Factory, socket_path: str
) -> None:
    assert make_instance()._tell_running_instance(b"show-approvals\n") is False  # no file
    make_instance().start()
    assert make_instance()._tell_running_instance(b"show-approvals\n") is True


def test_closing_leaves_a_socket_another_instance_put_there(
    make_instance: Factory, socket_path: str
) -> None:
    first = make_instance()
    first.start()
    os.unlink(socket_path)  # someone removed it, and a new instance listens there now
    second = make_instance()
    assert second.start() is True
    first.close()
    assert Path(socket_path).exists()  # still the second one's


def test_the_guard_does_not_load_qtnetwork_on_unix() -> None:
    """QtNetwork costs 3 MiB resident; a Unix socket does the same job."""
    code = "import sys, desktop.ui.single_instance; print('PySide6.QtNetwork' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"
