"""The single-instance channel where there are no Unix sockets (Windows): ``QLocalServer``.

Why a separate module: it is the only one that imports QtNetwork, which costs about 3 MiB, so
it is imported only on platforms that need it (``desktop.ui.local_unix`` serves Unix). Same
interface as :class:`desktop.ui.local_unix.UnixServer` and :func:`~desktop.ui.local_unix.tell`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket


def tell(name: str, payload: bytes, timeout_s: float) -> bool:
    """Send ``payload`` to the server called ``name``; False if nobody answers."""
    # Blocking waits are fine here: this runs once at start-up, before the event loop.
    timeout_ms = int(timeout_s * 1000)
    client = QLocalSocket()
    client.connectToServer(name)
    if not client.waitForConnected(timeout_ms):
        return False
    client.write(payload)
    client.flush()
    sent = client.waitForBytesWritten(timeout_ms) or client.bytesToWrite() == 0
    client.disconnectFromServer()
    return sent


class QtServer(QObject):
    """``QLocalServer`` behind the interface of ``UnixServer``."""

    received = Signal(object, bytes)
    ended = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.error = ""
        self._name = name
        self._server: QLocalServer | None = None
        self._connections: set[QLocalSocket] = set()

    def listen(self) -> bool:
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        server.newConnection.connect(self._on_new_connection)
        if not server.listen(self._name):
            self.error = server.errorString()
            server.deleteLater()
            return False
        self._server = server
        return True

    def abort(self, connection: object) -> None:
        assert isinstance(connection, QLocalSocket)
        self._connections.discard(connection)
        connection.abort()
        connection.deleteLater()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server.deleteLater()
            self._server = None
        for connection in list(self._connections):
            self.abort(connection)

    def _on_new_connection(self) -> None:
        assert self._server is not None
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            self._connections.add(connection)
            connection.readyRead.connect(lambda c=connection: self._read(c))
            connection.disconnected.connect(lambda c=connection: self._ended(c))
            self._read(connection)  # data may have arrived with the connection

    def _read(self, connection: QLocalSocket) -> None:
        if connection in self._connections:
            self.received.emit(connection, bytes(connection.readAll().data()))

    def _ended(self, connection: QLocalSocket) -> None:
        if connection in self._connections:
            self._connections.discard(connection)
            connection.deleteLater()
            self.ended.emit(connection)
