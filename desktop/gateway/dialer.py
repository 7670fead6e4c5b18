"""Turn an endpoint into one open socket, and a failed dial into a user-facing error.

Every dial is planned afresh: a canonical ticket is single-use, an owned backend or a dashboard
may have a new token. A refusal (401/403, 4401/4403) is never fatal (the token may be fixed
without a Reconnect) but marked ``auth``, so the backoff keeps growing: never hammered.
"""

from __future__ import annotations

import logging
import shutil
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidStatus,
    InvalidURI,
)
from websockets.typing import Subprotocol

from desktop import logsetup
from desktop.gateway import canonical, dashboard
from desktop.gateway.endpoints import (
    DialPlan,
    GatewayEndpoint,
    load_token,
    normalise_ws_url,
    redact_url,
    with_token,
)
from desktop.gateway.errors import ConfigError, ConnectError
from desktop.gateway.status import ConnectionSettings
from desktop.gateway.supervisor import OwnedBackend
from desktop.settings.model import GatewayKind

log = logging.getLogger(__name__)

AUTH_CLOSE = 4401
FORBIDDEN_CLOSE = 4403
MAX_AUTH_RETRIES = 3  # fresh credentials refused this often in a row: stop saying "fresh"


def sent_too_big(exc: BaseException | None) -> bool:
    """Whether the tray closed the connection because a message passed ``max_size``."""
    return isinstance(exc, ConnectionClosed) and exc.sent is not None and exc.sent.code == 1009


class Dialer:
    def __init__(self, endpoint: GatewayEndpoint) -> None:
        self.endpoint = endpoint
        self.backend: OwnedBackend | None = None
        self.current: DialPlan | None = None  # the last dial's plan, once made
        self._auth_failures = 0

    async def dial(self, settings: ConnectionSettings, max_size: int) -> ClientConnection:
        """Plan a dial and open it; raises what :meth:`classify` explains."""
        self.current = None
        self.current = plan = await self.plan()
        ws = await SameOriginConnect(
            plan.url,
            proxy=None,
            max_size=max_size,
            open_timeout=settings.open_timeout,
            ping_interval=None,  # the pump paces pings by what is open
            close_timeout=settings.close_timeout,
            subprotocols=[Subprotocol(p) for p in plan.subprotocols] or None,
        )
        if plan.expect_subprotocol is not None and ws.subprotocol != plan.expect_subprotocol:
            await ws.close(1002, "protocol mismatch")
            raise ConnectError(
                f"{plan.where} does not speak {plan.expect_subprotocol} "
                "(protocol mismatch); update or restart Hermes.",
                fatal=True,
            )
        return ws

    async def plan(self) -> DialPlan:
        ep = self.endpoint
        try:
            if ep.kind is GatewayKind.CANONICAL:
                return await canonical.dial_ticket(
                    ep.hermes_home or canonical.default_hermes_home()
                )
            if ep.kind is GatewayKind.OWNED:
                return DialPlan(await self._owned().ensure_running())
            if ep.kind is GatewayKind.DASHBOARD:
                parts = urlsplit(ep.url if "://" in ep.url else "http://" + ep.url)
                host, port = parts.hostname or "127.0.0.1", parts.port or dashboard.DEFAULT_PORT
                return DialPlan(await dashboard.probe_dashboard(host, port))
            url = normalise_ws_url(ep.url, allow_insecure_remote=ep.allow_insecure_remote)
            logsetup.register_url_secrets(url)
            if ep.token is not None:
                url = with_token(url, load_token(ep.token))
            return DialPlan(url)
        except ConfigError as exc:
            raise ConnectError(str(exc), fatal=True) from None

    def _owned(self) -> OwnedBackend:
        if self.backend is None:
            exe = shutil.which(self.endpoint.hermes_executable or "hermes")
            if exe is None:
                raise ConnectError(
                    f"Cannot find the Hermes executable "
                    f"{self.endpoint.hermes_executable or 'hermes'!r} on PATH. Install "
                    "hermes-agent or set its path in Settings.",
                    fatal=True,
                )
            self.backend = OwnedBackend(
                exe, name=self.endpoint.gateway_id, hermes_home=self.endpoint.hermes_home
            )
        return self.backend

    def connected(self) -> None:
        """The handshake completed: refused credentials are no longer a streak."""
        self._auth_failures = 0

    @property
    def where(self) -> str:
        """Where the last dial went (masked), else the endpoint's name."""
        return self.current.where if self.current is not None else self.endpoint.name

    async def classify(self, exc: BaseException) -> ConnectError:
        """A user-facing ConnectError for ``exc``; may restart an owned backend on auth failure."""
        where = self.where
        if isinstance(exc, ConnectError):
            return exc
        if isinstance(exc, InvalidStatus):
            code = exc.response.status_code
            if code in (401, 403):
                return await self._auth_refused(f"HTTP {code}", where)
            if code == 404:
                return ConnectError(
                    f"{where} has no Hermes WebSocket (HTTP 404). Check the URL "
                    "(it should end in /api/ws).",
                    fatal=True,
                )
            return ConnectError(f"{where} answered HTTP {code}; retrying.")
        if isinstance(exc, ConnectionClosed):
            close_code = exc.rcvd.code if exc.rcvd is not None else None
            if close_code == AUTH_CLOSE:
                return await self._auth_refused("close code 4401", where)
            if sent_too_big(exc):
                return ConnectError(
                    f"{where} sent a message larger than this tray accepts; reconnecting."
                )
            if close_code == FORBIDDEN_CLOSE:
                return ConnectError(
                    f"{where} refused the connection (close code 4403: embedded chat is "
                    "disabled or the host/origin check failed). Enable the chat WebSocket in "
                    "Hermes or connect through loopback; retrying with backoff.",
                    auth=True,
                )
            return ConnectError(
                f"The connection to {where} closed ({close_code or 'no close frame'}); retrying."
            )
        if isinstance(exc, InvalidURI):
            return ConnectError(
                f"The gateway URL {where} is not valid. Fix it in Settings.", fatal=True
            )
        if isinstance(exc, InvalidHandshake):
            return ConnectError(
                f"{where} did not complete a WebSocket handshake "
                f"({type(exc).__name__}); is it a Hermes gateway? Retrying."
            )
        if isinstance(exc, TimeoutError):
            return ConnectError(f"{where} did not answer in time; retrying.")
        if isinstance(exc, ConnectionRefusedError):
            return ConnectError(
                f"Nothing is listening at {where}. Is the Hermes gateway running? Retrying."
            )
        if isinstance(exc, OSError):
            return ConnectError(
                f"Could not reach {where} ({exc.strerror or type(exc).__name__}); retrying."
            )
        log.debug("unclassified connect failure: %s", type(exc).__name__)
        return ConnectError(f"Connecting to {where} failed ({type(exc).__name__}); retrying.")

    async def _auth_refused(self, how: str, where: str) -> ConnectError:
        kind = self.endpoint.kind
        self._auth_failures += 1
        fresh = kind in (GatewayKind.CANONICAL, GatewayKind.OWNED, GatewayKind.DASHBOARD)
        if fresh and self._auth_failures <= MAX_AUTH_RETRIES:
            if kind is GatewayKind.OWNED and self.backend is not None:
                await self.backend.stop()  # next plan() restarts it with a fresh token
            return ConnectError(
                f"{where} refused the credential ({how}); getting a fresh one and retrying.",
                auth=True,
            )
        source = (
            self.endpoint.token.describe()
            if self.endpoint.token
            else ("the fresh credential" if fresh else "the URL")
        )
        return ConnectError(
            f"{where} refused the token ({how}). Check the token in {source}: it must be the "
            "gateway's current session token (HERMES_DASHBOARD_SESSION_TOKEN). Retrying with "
            f"backoff (refused {self._auth_failures} time"
            f"{'s' if self._auth_failures != 1 else ''} in a row).",
            auth=True,
        )

    async def close(self) -> None:
        if self.backend is not None:
            await self.backend.stop()


class SameOriginConnect(connect):
    """Follow a redirect only within the dialled origin.

    websockets follows any: a token could cross the network in clear, around ``endpoints``.
    """

    def process_redirect(self, exc: Exception) -> Exception | str:
        old = urlsplit(self.uri)
        try:
            target = super().process_redirect(exc)
        except InvalidURI as bad:  # http://, or no URL at all: the gateway's fault, not Settings'
            target = bad.uri
        if not isinstance(target, str):
            return target
        new = urlsplit(target)
        try:
            same = (old.scheme, old.hostname, old.port) == (new.scheme, new.hostname, new.port)
        except ValueError:  # a bad port in the Location
            same = False
        if same:
            return target
        logsetup.register_url_secrets(target)
        return ConnectError(
            f"{redact_url(self.uri)} redirected to {redact_url(target)}; the tray follows "
            "redirects only within the same scheme, host and port. Put the address it should "
            "reach in Settings (wss:// for a remote host); retrying."
        )
