"""Hostile-input frames and probes over the core tests' driver (no sockets, fake clock).

These tests feed the core things no gateway should ever send, then ask one question: does a
well-formed approval still flow and get exactly one well-formed answer? The approval frames and
the "fresh approval" probe are written here from protocol.md, per dialect.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from desktop.core.events import ApprovalRequested, CoreEvent
from desktop.core.gateway_core import CoreSettings, OutboundFrame
from desktop.core.model import Approval, Choice, Dialect
from tests.core.frames import Driver


def event(kind: str, session_id: str, payload: Any = None, **params: Any) -> str:
    body: dict[str, Any] = {"type": kind, "session_id": session_id, **params}
    if payload is not None:
        body["payload"] = payload
    return json.dumps({"jsonrpc": "2.0", "method": "event", "params": body})


def approval_frame(
    dialect: Dialect, session_id: str, ident: str, command: str, generation: int = 7
) -> str:
    """A well-formed approval of ``dialect`` (``ident``: srq id on B, prompt id on C)."""
    if dialect is Dialect.HERMES020:
        payload = {
            "command": command,
            "pattern_keys": ["k"],
            "request_id": hashlib.md5(ident.encode()).hexdigest(),  # 32 hex, as 0.20 sends
            "choices": ["once", "session", "always", "deny"],
        }
        return event("approval.request", session_id, payload)
    if dialect is Dialect.A:
        payload = {
            "command": command,
            "pattern_keys": ["k"],
            "allow_permanent": True,
            "choices": ["once", "session", "always", "deny"],
        }
        return event("approval.request", session_id, payload)
    if dialect is Dialect.B:
        params = {
            "session_id": session_id,
            "command": command,
            "request_id": f"req-{ident}",
            "choices": ["once", "session", "always", "deny"],
        }
        return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "approval", "params": params})
    payload = {
        "kind": "approval",
        "prompt_id": ident,
        "execution_generation": generation,
        "command": command,
        "choices": ["once", "deny", "session", "always"],
    }
    return event("approval.request", session_id, payload, execution_generation=generation)


FOLLOWED = ("s1", "s2", "a1b2c3d4")  # sessions the tests' tray follows from the start


class CoreDriver(Driver):
    """The core tests' driver (tests/core/frames.py) held to one dialect, for hostile input.

    What differs: the dialect is fixed and checked after the handshake, ``written`` restarts at
    each connection, and ``decide`` insists that a refusal says why.
    """

    def __init__(self, dialect: Dialect, settings: CoreSettings | None = None) -> None:
        super().__init__(settings=settings or CoreSettings(), follows=FOLLOWED)
        self.dialect = dialect

    @property
    def events(self) -> list[CoreEvent]:
        return self.emitted

    def connect(self, dialect: Dialect | None = None, *, ready: bool = True) -> CoreDriver:
        self.written.clear()
        super().connect(dialect or self.dialect, ready=ready)
        assert self.core.dialect is self.dialect
        return self

    def connect_again(self) -> CoreDriver:
        """A new connection (the next epoch) with the same handshake."""
        return self.connect()

    def decide(  # type: ignore[override]  # (sent, frames): the hostile tests read no reason
        self, key: str, choice: Choice, *, confirm_stale: bool = False, write: bool = True
    ) -> tuple[bool, list[OutboundFrame]]:
        sent, reason, frames = super().decide(key, choice, confirm_stale=confirm_stale, write=write)
        assert sent or reason, "a refusal must say why"
        return sent, frames

    def rows_of(self, session_id: str) -> list[Approval]:
        return [a for a in self.core.approvals() if a.session_id == session_id]

    def fresh_approval_flows(self) -> None:
        """A well-formed approval on a new followed session is shown, answerable, answered once."""
        sid = "fresh-" + uuid.uuid4().hex[:10]
        ident = ("srq-" if self.dialect is Dialect.B else "prompt-") + uuid.uuid4().hex[:12]
        before = len(self.events)
        self.core.watch_session(sid)  # as the tray does for the sessions it starts
        self.flush()
        self.feed(approval_frame(self.dialect, sid, ident, "rm -rf build/"))
        shown = [e.approval for e in self.events[before:] if isinstance(e, ApprovalRequested)]
        assert [a.session_id for a in shown] == [sid], shown
        row = {a.key: a for a in self.core.approvals()}.get(shown[0].key)
        assert row is not None
        assert row.answerable, row
        sent, frames = self.decide(row.key, Choice.ONCE)
        decisions = [json.loads(f.text) for f in frames if f.is_decision]
        assert sent, frames
        assert len(decisions) == 1, frames
        [frame] = decisions
        if self.dialect is Dialect.A:
            assert frame["method"] == "approval.respond"
            assert frame["params"] == {"session_id": sid, "choice": "once"}
        elif self.dialect is Dialect.HERMES020:
            request_id = hashlib.md5(ident.encode()).hexdigest()
            assert frame["params"] == {
                "session_id": sid,
                "choice": "once",
                "request_id": request_id,
            }
        elif self.dialect is Dialect.B:
            assert frame == {"jsonrpc": "2.0", "id": ident, "result": {"choice": "once"}}
        else:
            assert frame["params"] == {
                "session_id": sid,
                "execution_generation": 7,
                "prompt_id": ident,
                "choice": "once",
            }
        again, more = self.decide(row.key, Choice.DENY)
        assert not again
        assert not [f for f in more if f.is_decision]
