r"""One Hermes Tray per user: two would answer the same approvals twice.

A second launch (the icon may hide in an overflow menu) asks it to show its approvals, with its
activation token (Wayland raises a window only with one); unknown lines are ignored, so an older
tray survives a newer launcher. A Unix socket via ``QSocketNotifier``, not ``QLocalServer``
(QtNetwork costs 3 MiB); a pipe on Windows. Another user who created the socket first would make
every launch exit, so it lives only in a directory private to this user, and a socket there not
this user's is removed, never dialled. Connections are bounded in number, lifetime and length.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import logging
import os
import secrets
import socket
import stat
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from desktop.platform.activation import event_token, token_from_line, token_line
from desktop.platform.paths import APP_SLUG, config_dir

log = logging.getLogger(__name__)

SHOW_APPROVALS = "show-approvals"
MAX_MESSAGE = 1024
MAX_CONNECTIONS = 8  # launchers connect one at a time, for a moment
PENDING = 30  # connections the kernel holds until they are taken (Qt's default)
CONNECTION_MS = 2000  # a launcher says its one line at once
MAX_SOCKET_PATH = 107  # bytes of an AF_UNIX path, without the final NUL
SECRET_FILE = "run-key"  # in the config dir: names the last-resort socket directory


def default_server_name() -> str:
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment or the password database
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    digest = hashlib.sha256(f"{user}\0{config_dir()}".encode()).hexdigest()[:16]
    name = f"{APP_SLUG}-{digest}"
    if sys.platform == "win32":
        return name  # the pipe namespace; Qt's pipes carry the user's own ACL
    return os.path.join(private_runtime_dir(f"{name}.sock"), f"{name}.sock")


def is_private_dir(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) & 0o077 == 0
    )


def private_runtime_dir(socket_name: str = "") -> str:
    """The first private directory where ``socket_name`` fits an AF_UNIX path; never raises."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime) and is_private_dir(runtime) and _fits(runtime, socket_name):
        return runtime
    if runtime:
        log.warning(
            "XDG_RUNTIME_DIR %s is not a private directory of this user, or too long for a "
            "socket path; not using it",
            runtime,
        )
    for candidate in _fallback_dirs():
        if not _fits(candidate, socket_name):
            log.info("%s is too long for a socket path; not using it", candidate)
            continue
        with contextlib.suppress(OSError):
            os.makedirs(candidate, mode=0o700, exist_ok=True)
        if is_private_dir(candidate):
            return candidate
        log.warning("%s is not a private directory of this user; not using it", candidate)
    # Squatted everywhere: safe still, though a second launch will not find this one.
    return tempfile.mkdtemp(prefix=f"{APP_SLUG}-")


def _fallback_dirs() -> Iterator[str]:
    temp = tempfile.gettempdir()
    yield os.path.join(temp, f"{APP_SLUG}-{os.getuid()}")
    yield str(config_dir() / "run")
    secret = _run_secret()
    if secret:
        yield os.path.join(temp, f"{APP_SLUG}-{secret}")


def _fits(directory: str, socket_name: str) -> bool:
    return len(os.fsencode(os.path.join(directory, socket_name))) <= MAX_SOCKET_PATH


def _run_secret() -> str:
    """A random name kept (0600) in the config dir, so every launch finds the same directory."""
    path = config_dir() / SECRET_FILE
    with contextlib.suppress(OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if _foreign(path, want=stat.S_ISREG):
            return ""
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_hex(8))
        text = path.read_text(encoding="ascii").strip()
        if len(text) == 16 and all(c in "0123456789abcdef" for c in text):
            return text
    return ""


class SingleInstance(QObject):
    """Keep alive; ``show_approvals_requested`` emits with the launch's token in ``event_token``."""

    show_approvals_requested = Signal()

    def __init__(self, name: str | None = None, *, timeout_ms: int = 500) -> None:
        super().__init__()
        self.name = name or default_server_name()
        # The Unix socket file behind the name (Windows pipes vanish with their process).
        self._file = None if sys.platform == "win32" else Path(tempfile.gettempdir(), self.name)
        self._timeout_ms = timeout_ms
        self._listener: _UnixListener | _PipeListener | None = None
        self._buffers: dict[Any, bytes] = {}  # open connection -> the start of its next line
        self._tokens: dict[Any, str] = {}  # the activation token a connection sent

    def start(self, activation_token: str = "") -> bool:
        """Become the running instance (True), or tell the running one to show itself (False)."""
        socket_file = self._file
        foreign = socket_file is not None and _foreign(socket_file)
        lines = (token_line(activation_token), SHOW_APPROVALS)
        message = "".join(f"{line}\n" for line in lines if line).encode("ascii")
        if foreign:
            log.warning(
                "The single-instance socket %s was not created by this user; ignoring it",
                socket_file,
            )
        elif self._tell_running_instance(message):
            log.info("Hermes Tray is already running; asked it to show its approvals")
            return False
        if socket_file is not None and (foreign or socket_file.exists()):
            # Nobody of ours answered on it: a crashed run's, or a squatter's in our own dir.
            log.info("Removing the stale single-instance socket %s", socket_file)
            with contextlib.suppress(OSError):
                socket_file.unlink()
        try:
            self._listener = (
                _PipeListener(self.name, self)
                if socket_file is None
                else _UnixListener(str(socket_file), self)
            )
        except OSError as error:
            # Running twice is better than not running: say so and carry on.
            log.warning(
                "Cannot claim the single-instance name %s (%s); a second launch will not find"
                " this one",
                self.name,
                error,
            )
        return True

    def close(self) -> None:
        for connection in list(self._buffers):
            connection.abort()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._buffers.clear()
        self._tokens.clear()

    def _tell_running_instance(self, message: bytes) -> bool:
        # Blocking waits are fine here: this runs once at start-up, before anything else.
        if self._file is None:
            return _PipeListener.tell(self.name, message, self._timeout_ms)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(self._timeout_ms / 1000)
            try:
                client.connect(str(self._file))
                client.sendall(message)
            except OSError:  # nobody listens (stale file, no file) or nobody reads
                return False
        return True

    def _accept(self, connection: Any) -> bool:
        if len(self._buffers) >= MAX_CONNECTIONS:
            log.warning("Refused a single-instance connection: %d are open", MAX_CONNECTIONS)
            return False
        self._buffers[connection] = b""
        QTimer.singleShot(CONNECTION_MS, self, _weak_slot(self._expire, connection))
        return True

    def _expire(self, connection: Any) -> None:
        if connection in self._buffers:
            connection.abort()  # stuck or idle

    def _on_data(self, connection: Any, chunk: bytes) -> None:
        if connection not in self._buffers:
            return
        data = self._buffers[connection] + chunk
        while b"\n" in data:
            line, _, data = data.partition(b"\n")
            self._handle(connection, line)
        if len(data) > MAX_MESSAGE:
            log.warning("Dropped an over-long single-instance message (%d bytes)", len(data))
            del self._buffers[connection]
            connection.abort()
            return
        self._buffers[connection] = data

    def _on_closed(self, connection: Any) -> None:
        rest = self._buffers.pop(connection, b"")
        if rest.strip():
            self._handle(connection, rest)  # a last line without its newline
        self._tokens.pop(connection, None)

    def _handle(self, connection: Any, line: bytes) -> None:
        message = line.decode("ascii", errors="replace").strip()
        token = token_from_line(message)
        if token is not None:
            self._tokens[connection] = token  # for this connection's show-approvals
            if not token:
                log.warning("Ignored a malformed activation token from a launch")
        elif message == SHOW_APPROVALS:
            with event_token.handling(self._tokens.pop(connection, "")):
                self.show_approvals_requested.emit()
        elif message:
            log.warning("Ignored an unknown single-instance message %r", message[:80])


def _weak_slot(method: Callable[..., object], *args: object) -> Callable[..., None]:
    """A weak slot: a strong one could free the guard while Qt deletes the slot's sender."""
    ref = weakref.WeakMethod(method)

    def slot(*_: object) -> None:
        target = ref()
        if target is not None:
            target(*args)

    return slot


def _read_notifier(fd: int, on_readable: Callable[[], object]) -> QSocketNotifier:
    notifier = QSocketNotifier(fd, QSocketNotifier.Type.Read)
    notifier.activated.connect(_weak_slot(on_readable))
    return notifier


class _UnixListener:
    def __init__(self, path: str, guard: SingleInstance) -> None:
        self._path, self._guard = path, guard
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.bind(path)
            os.chmod(path, 0o600)  # in a private directory already; the file says so too
            self._inode = _inode(path)
            self._socket.listen(PENDING)
        except OSError:
            self._socket.close()
            raise
        self._socket.setblocking(False)
        self._notifier = _read_notifier(self._socket.fileno(), self._take_connections)

    def _take_connections(self) -> None:
        while True:
            try:
                accepted, _ = self._socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors, say: the next launch tries again
                log.warning("Could not accept a single-instance connection: %s", error)
                return
            connection = _UnixConnection(accepted, self._guard)
            if not self._guard._accept(connection):
                connection.close()

    def close(self) -> None:
        """Remove the socket file unless another instance has replaced it."""
        _stop(self._notifier)
        self._socket.close()
        if _inode(self._path) == self._inode:
            with contextlib.suppress(OSError):
                os.unlink(self._path)


class _UnixConnection:
    def __init__(self, accepted: socket.socket, guard: SingleInstance) -> None:
        accepted.setblocking(False)
        self._socket, self._guard = accepted, guard
        self._notifier = _read_notifier(accepted.fileno(), self._read)

    def _read(self) -> None:
        try:
            chunk = self._socket.recv(MAX_MESSAGE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if chunk:
            self._guard._on_data(self, chunk)
        else:
            self.abort()  # the launcher hung up

    def close(self) -> None:
        """Close without telling the guard (a refused connection)."""
        if self._socket.fileno() >= 0:
            _stop(self._notifier)
            self._socket.close()

    def abort(self) -> None:
        """Close, and let the guard read what is left of the last line."""
        if self._socket.fileno() >= 0:
            self.close()
            self._guard._on_closed(self)


def _stop(notifier: QSocketNotifier) -> None:
    """Deleted later: this may run inside the notifier's own signal."""
    notifier.setEnabled(False)
    notifier.deleteLater()


class _PipeListener:
    """``QLocalServer`` on a named pipe (Windows): the pipe carries the user's own ACL."""

    def __init__(self, name: str, guard: SingleInstance) -> None:
        from PySide6.QtNetwork import QLocalServer

        self._guard = guard
        self._server = QLocalServer()
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(_weak_slot(self._take_connections))
        if not self._server.listen(name):
            raise OSError(self._server.errorString())

    @staticmethod
    def tell(name: str, message: bytes, timeout_ms: int) -> bool:
        from PySide6.QtNetwork import QLocalSocket

        client = QLocalSocket()
        client.connectToServer(name)
        if not client.waitForConnected(timeout_ms):
            return False
        client.write(message)
        client.flush()
        sent = client.waitForBytesWritten(timeout_ms) or client.bytesToWrite() == 0
        client.disconnectFromServer()
        return sent

    def _take_connections(self) -> None:
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            if not self._guard._accept(connection):
                # Closed at once, so its descriptor is free; the small object stays a child of
                # the server (deleting it here crashed PySide6 6.11 at the next flush).
                connection.abort()
                continue
            connection.readyRead.connect(_weak_slot(self._read, connection))
            connection.disconnected.connect(_weak_slot(self._closed, connection))
            self._read(connection)  # data may have arrived with the connection

    def _read(self, connection: Any) -> None:
        self._guard._on_data(connection, bytes(connection.readAll().data()))

    def _closed(self, connection: Any) -> None:
        self._guard._on_closed(connection)
        connection.deleteLater()

    def close(self) -> None:
        self._server.close()
        self._server.deleteLater()


def _inode(path: str) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _foreign(path: Path, want: Callable[[int], bool] = stat.S_ISSOCK) -> bool:
    """True if ``path`` exists and is not a socket (or ``want``) of this user: never use it."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return info.st_uid != os.getuid() or not want(info.st_mode)
