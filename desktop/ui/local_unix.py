"""The single-instance channel on Unix: a plain AF_UNIX socket watched by QSocketNotifier.

Why not ``QLocalServer``: it is the only thing in the app that needs QtNetwork, and loading
QtNetwork (its Python binding, libQt6Network and the Kerberos/GSSAPI libraries it links) costs
about 3 MiB for the whole day, for a socket that hears one line when the person launches the
app a second time. Python's ``socket`` module is loaded anyway (asyncio imports it) and
``QSocketNotifier`` is QtCore, so this costs next to nothing. On Unix ``QLocalServer`` is a
Unix socket too, so this speaks the very same protocol at the very same path (an older running
tray and a newer launcher still find each other); Windows, which has named pipes instead, keeps
``QLocalServer`` (``desktop.ui.local_qt``).

What is kept from ``QLocalServer``'s ``UserAccessOption``: the socket file is made 0600 between
``bind`` and ``listen``, before anyone can connect, so only the user can talk to the tray.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket

from PySide6.QtCore import QObject, QSocketNotifier, Signal

log = logging.getLogger(__name__)

CHUNK = 4096


def tell(path: str, payload: bytes, timeout_s: float) -> bool:
    """Send ``payload`` to whoever listens at ``path``; False if nobody does."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout_s)
            client.connect(path)
            client.sendall(payload)
            client.shutdown(socket.SHUT_WR)
    except OSError:  # no file, nobody accepting (a stale file), a timeout
        return False
    return True


class UnixServer(QObject):
    """Accepts connections at ``path`` and reports their bytes and their end, on the Qt loop.

    Signals, not callbacks: a callback into the owning ``SingleInstance`` made a reference
    cycle between two Qt wrappers (the owner is also the server's parent), which the garbage
    collector tore down in the wrong order at exit and corrupted the heap.

    Signals:
        received: (connection, bytes) as they arrive.
        ended: (connection) the peer closed its side; nothing more will come.
    """

    received = Signal(object, bytes)
    ended = Signal(object)

    def __init__(self, path: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.error = ""
        self._socket: socket.socket | None = None
        self._notifier: QSocketNotifier | None = None
        self._connections: dict[socket.socket, QSocketNotifier] = {}

    def listen(self) -> bool:
        """Bind, make the file private, listen; False (and ``error``) if that failed."""
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(self.path)
            os.chmod(self.path, 0o600)  # before listen(): nobody could connect yet
            server.listen(8)
            server.setblocking(False)
        except OSError as exc:
            server.close()
            self.error = exc.strerror or type(exc).__name__
            return False
        self._socket = server
        self._notifier = QSocketNotifier(server.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._accept)
        return True

    def abort(self, connection: object) -> None:
        """Drop one connection without reading the rest."""
        assert isinstance(connection, socket.socket)
        notifier = self._connections.pop(connection, None)
        if notifier is not None:
            notifier.setEnabled(False)
            notifier.deleteLater()
        connection.close()

    def close(self) -> None:
        """Stop listening, drop every connection and remove the socket file."""
        for connection in list(self._connections):
            self.abort(connection)
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def _accept(self, *_: object) -> None:
        while self._socket is not None:
            try:
                connection, _ = self._socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.warning("Single-instance socket: accept failed (%s)", exc)
                return
            connection.setblocking(False)
            notifier = QSocketNotifier(connection.fileno(), QSocketNotifier.Type.Read, self)
            notifier.activated.connect(lambda *_, c=connection: self._read(c))
            self._connections[connection] = notifier
            self._read(connection)  # data may have arrived with the connection

    def _read(self, connection: socket.socket) -> None:
        while connection in self._connections:
            try:
                data = connection.recv(CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:  # the peer closed its side: the message is complete
                self.abort(connection)
                self.ended.emit(connection)
                return
            self.received.emit(connection, data)
