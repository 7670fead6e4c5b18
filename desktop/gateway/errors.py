"""The small exception hierarchy of the gateway layer.

Why these three call errors: after a disconnect a caller must know whether to retry.
``NotSentError`` means the request never reached a socket (retrying is safe);
``OutcomeUnknownError`` means it may have reached the gateway, so a decision must never be sent
again and the person has to be told; ``RpcCallError`` is the gateway's own refusal.

``ConnectError`` carries the user-facing text (what failed, where, what to do) plus whether a
retry can help; the client turns it into ``ConnectionStatus.error``.
"""

from __future__ import annotations


class GatewayError(Exception):
    """Base of every error raised by ``desktop.gateway``."""


class NotSentError(GatewayError):
    """Certainly not sent: nothing reached the gateway, so retrying is safe."""


class OutcomeUnknownError(GatewayError):
    """Sent (or possibly sent), outcome unknown: never resend a decision; tell the person."""


class CallTimeoutError(OutcomeUnknownError):
    """The request was written but no answer came within the call's timeout."""


class RpcCallError(GatewayError):
    """The gateway answered the request with a JSON-RPC error.

    ``reason`` is the canonical gateway's short ``data.reason`` code (``not_found``,
    ``permission_denied``, ...) when present, else "".
    """

    def __init__(self, code: int, message: str, reason: str = "") -> None:
        super().__init__(f"{message} (code {code}{', ' + reason if reason else ''})")
        self.code = code
        self.message = message
        self.reason = reason


class UnsupportedError(RpcCallError):
    """The connected dialect has no such command (e.g. approvals.mode on canonical)."""

    def __init__(self, message: str) -> None:
        super().__init__(-32601, message, "unsupported")


class ConfigError(GatewayError):
    """A gateway is configured in a way that cannot work; the message says how to fix it."""


class ConnectError(GatewayError):
    """Reaching the gateway failed. ``fatal``: retrying as configured cannot help."""

    def __init__(self, message: str, *, fatal: bool = False, auth: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal
        self.auth = auth  # the credential was refused (token, ticket)
