"""The opening handshake: path, origin and credential, counted per attempt.

A/B authenticate with ``?token=`` (compared in constant time). C authenticates with a single-use
ticket offered as a subprotocol pair ``hermes-gateway-v1, hermes-gateway-ticket.<ticket>``:
exactly one ticket protocol, the public protocol present, and only ``hermes-gateway-v1`` echoed.
A failed check answers HTTP 403, as the measured gateway does, unless ``auth_failure="close"``
asks for an accepted connection closed with 4401 instead. Every handshake counts as an attempt,
refused ones included, so tests can plan faults per attempt (:meth:`Gatekeeper.refusal`). The
public liveness page ``GET /api/status`` (no auth) is served too and is *not* an attempt, so a
client's version probe never shifts a fault plan.
"""

from __future__ import annotations

import hmac
import json
import secrets
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from tests.gatewaymodel.dialect import PUBLIC_SUBPROTOCOL, TICKET_PREFIX, WS_PATH, Dialect

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
STATUS_PATH = "/api/status"


@dataclass(frozen=True)
class Handshake:
    """What the gatekeeper learned about one accepted handshake."""

    attempt: int
    path: str
    query: str
    offered: tuple[str, ...]
    authorized: bool


class Gatekeeper:
    """Checks handshakes and hands each accepted connection its :class:`Handshake`."""

    def __init__(
        self,
        dialect: Dialect,
        token: str,
        auth_failure: Literal["http", "close"],
        on_change: Callable[[], None],
        status: Callable[[], dict[str, Any]],
    ) -> None:
        self.dialect = dialect
        self._status = status
        self.token = token
        self.auth_failure = auth_failure
        self.attempts = 0
        self.tickets: set[str] = set()
        self._on_change = on_change
        self._accepted: dict[ServerConnection, Handshake] = {}

    def refusal(self, attempt: int) -> int | None:
        """An HTTP status to refuse handshake ``attempt`` with before any check (None: go on)."""
        return None

    def issue_ticket(self) -> str:
        """Mint a single-use C ticket."""
        ticket = secrets.token_urlsafe(18)
        self.tickets.add(ticket)
        return ticket

    def take(self, connection: ServerConnection) -> Handshake:
        """The handshake record of an accepted connection (one lookup per connection)."""
        return self._accepted.pop(connection, None) or Handshake(-1, WS_PATH, "", (), False)

    def check(self, connection: ServerConnection, request: Request) -> Response | None:
        """``process_request``: refuse with an HTTP response, or None to go on."""
        if urllib.parse.urlsplit(request.path).path == STATUS_PATH:
            response = connection.respond(200, json.dumps(self._status()) + "\n")
            response.headers["Content-Type"] = "application/json"
            return response
        attempt = self.attempts
        self.attempts += 1
        split = urllib.parse.urlsplit(request.path)
        offered = offered_subprotocols(request.headers)
        self._on_change()
        if split.path != WS_PATH:
            return connection.respond(404, "Not Found\n")
        refused = self.refusal(attempt)
        if refused is not None:
            return connection.respond(refused, "Refused\n")
        origin = request.headers.get("Origin")
        if origin and urllib.parse.urlsplit(origin).hostname not in _LOOPBACK:
            return connection.respond(403, "Forbidden\n")
        authorized = self._authorized(split.query, offered)
        if not authorized and self.auth_failure == "http":
            return connection.respond(403, "Forbidden\n")
        self._accepted[connection] = Handshake(
            attempt, split.path, split.query, offered, authorized
        )
        return None

    def select(
        self, connection: ServerConnection, subprotocols: Sequence[Subprotocol]
    ) -> Subprotocol | None:
        """Echo only the public subprotocol (C); A/B negotiate none."""
        if self.dialect is Dialect.C and PUBLIC_SUBPROTOCOL in subprotocols:
            return Subprotocol(PUBLIC_SUBPROTOCOL)
        return None

    def _authorized(self, query: str, offered: tuple[str, ...]) -> bool:
        if self.dialect is not Dialect.C:
            given = urllib.parse.parse_qs(query).get("token", [""])[0]
            return hmac.compare_digest(given.encode(), self.token.encode())
        tickets = [p[len(TICKET_PREFIX) :] for p in offered if p.startswith(TICKET_PREFIX)]
        if PUBLIC_SUBPROTOCOL not in offered or len(tickets) != 1:
            return False
        if tickets[0] not in self.tickets:
            return False  # unknown, or already used: tickets are single use
        self.tickets.discard(tickets[0])
        return True


def offered_subprotocols(headers: Headers) -> tuple[str, ...]:
    """Every subprotocol the client offered, across repeated headers."""
    values = headers.get_all("Sec-WebSocket-Protocol")
    return tuple(p.strip() for value in values for p in value.split(",") if p.strip())
