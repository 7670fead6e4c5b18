"""The gateway layer's errors: after a disconnect a caller must know whether a retry is safe."""

from __future__ import annotations


class GatewayError(Exception):
    pass


class NotSentError(GatewayError):
    """Certainly not sent: nothing reached the gateway, so retrying is safe."""


class OutcomeUnknownError(GatewayError):
    """Sent (or possibly sent), outcome unknown: never resend a decision; tell the person."""


class CallTimeoutError(OutcomeUnknownError):
    """The request was written but no answer came within the call's timeout."""


class RpcCallError(GatewayError):
    """The gateway's JSON-RPC error; ``reason``: canonical's ``data.reason`` code, or ""."""

    def __init__(self, code: int, message: str, reason: str = "") -> None:
        super().__init__(f"{message} (code {code}{', ' + reason if reason else ''})")
        self.code = code
        self.message = message
        self.reason = reason


class UnsupportedError(RpcCallError):
    """The connected dialect has no such command."""

    def __init__(self, message: str) -> None:
        super().__init__(-32601, message, "unsupported")


class ConfigError(GatewayError):
    """A gateway configured in a way that cannot work; the message says how to fix it."""


class ConnectError(GatewayError):
    """Reaching the gateway failed. ``fatal``: retrying as configured cannot help."""

    def __init__(self, message: str, *, fatal: bool = False, auth: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal
        self.auth = auth  # the credential was refused (token, ticket)
