"""What the app really sent and received, read from its own wire log.

Why the wire and not the app's state: "nothing was answered blindly" and "exactly one answer
per decision" are claims about frames on the socket. The client logs every frame at DEBUG on
``desktop.gateway.wire`` (``"> "`` out, ``"< "`` in, cut at 2000 characters); this handler
keeps them for the test. Long incoming frames (``session.info`` lists every tool) may be cut,
so event kinds and session ids are also recognised from the raw text.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

WIRE_LOGGER = "desktop.gateway.wire"
_TYPE = re.compile(r'"type"\s*:\s*"([^"]+)"')
_EVENT = re.compile(r'"method"\s*:\s*"event"')
_SESSION = re.compile(r'"session_id"\s*:\s*"([^"]*)"')
_RESPONSE = re.compile(r'^\{"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(\d+)\s*,\s*"(?:result|error)"')


@dataclass(frozen=True)
class Line:
    """One logged frame; ``frame`` is None when it was cut and no longer parses."""

    outgoing: bool
    text: str
    frame: dict[str, Any] | None
    event_type: str  # params.type of an incoming event, else ""
    session_id: str
    response_id: int | None  # id of an incoming response to one of our requests
    at: float = 0.0  # when the client logged it (``time.time()``, from the log record)

    @classmethod
    def read(cls, outgoing: bool, text: str, at: float = 0.0) -> Line:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        frame = value if isinstance(value, dict) else None
        event_type = ""
        if not outgoing and frame is not None and frame.get("method") == "event":
            event_type = str((frame.get("params") or {}).get("type", ""))
        elif not outgoing and frame is None and _EVENT.search(text):
            found = _TYPE.search(text)
            event_type = found.group(1) if found else ""
        session = _SESSION.search(text)
        response_id = None
        if not outgoing and frame is not None and "method" not in frame:
            response_id = frame.get("id") if isinstance(frame.get("id"), int) else None
        elif not outgoing and frame is None and (found := _RESPONSE.match(text)):
            response_id = int(found.group(1))
        return cls(
            outgoing,
            text,
            frame,
            event_type,
            session.group(1) if session else "",
            response_id,
            at,
        )


class WireTap(logging.Handler):
    """Collects the client's wire log while installed (``install`` / ``remove``)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[Line] = []
        self._saved: tuple[int, bool] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message[:2] in ("> ", "< "):
            self.lines.append(Line.read(message[0] == ">", message[2:], record.created))

    def install(self) -> None:
        logger = logging.getLogger(WIRE_LOGGER)
        self._saved = (logger.level, logger.propagate)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False  # thousands of frames need not reach pytest's log capture
        logger.addHandler(self)

    def remove(self) -> None:
        logger = logging.getLogger(WIRE_LOGGER)
        logger.removeHandler(self)
        if self._saved is not None:
            logger.level, logger.propagate = self._saved

    # -- reading --------------------------------------------------------------------------
    def sent(self) -> list[dict[str, Any]]:
        return [line.frame for line in self.lines if line.outgoing and line.frame is not None]

    def calls(self, method: str) -> list[dict[str, Any]]:
        return [f for f in self.sent() if f.get("method") == method]

    def decisions(self) -> list[dict[str, Any]]:
        """Every frame that answers an approval: A ``approval.respond``, B a response frame."""
        return [
            f
            for f in self.sent()
            if f.get("method") == "approval.respond"
            or (str(f.get("id", "")).startswith("srq-") and "choice" in (f.get("result") or {}))
        ]

    def response_to_last(self, method: str, session_id: str | None = None) -> dict[str, Any] | None:
        """The gateway's response to our latest ``method`` request (for that session, if
        given); None while it is unanswered or nothing was sent.

        A response cut in the log comes back as ``{"id": …, "cut": <text>}``.
        """
        sent_at = [
            i
            for i, line in enumerate(self.lines)
            if line.outgoing
            and line.frame is not None
            and line.frame.get("method") == method
            and (session_id is None or line.session_id == session_id)
        ]
        if not sent_at:
            return None
        rpc_id = self.lines[sent_at[-1]].frame["id"]  # type: ignore[index]
        return next(
            (
                line.frame or {"id": rpc_id, "cut": line.text}
                for line in self.lines[sent_at[-1] + 1 :]
                if line.response_id == rpc_id
            ),
            None,
        )

    def mark(self) -> int:
        """A position in the log, for ``events(..., since=…)``."""
        return len(self.lines)

    def events(
        self, event_type: str, session_id: str | None = None, *, since: int = 0
    ) -> list[Line]:
        return [
            line
            for line in self.lines[since:]
            if line.event_type == event_type
            and (session_id is None or line.session_id == session_id)
        ]

    def turns_ended(self, session_id: str) -> int:
        """How many ``message.complete`` events arrived for the session (finished turns)."""
        return len(self.events("message.complete", session_id))

    def info_after_turn(self, session_id: str) -> bool:
        """A ``session.info`` came after the session's latest ``message.complete``.

        Both builds send one when a turn has fully wound down; state read before it may be
        overtaken by it (it is computed on the agent's thread, possibly before a change the
        tray just made).
        """
        last_complete = max(
            (
                i
                for i, line in enumerate(self.lines)
                if line.event_type == "message.complete" and line.session_id == session_id
            ),
            default=None,
        )
        return last_complete is not None and any(
            line.event_type == "session.info" and line.session_id == session_id
            for line in self.lines[last_complete + 1 :]
        )

    def tail(self, count: int = 15) -> str:
        return "\n".join(
            f"{'>' if line.outgoing else '<'} {line.text[:240]}" for line in self.lines[-count:]
        )
