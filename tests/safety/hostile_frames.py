"""Hypothesis strategies for frames a broken or hostile gateway might send.

Why protocol-shaped garbage and not only random JSON: random JSON is rejected at the first
``jsonrpc != "2.0"`` check and never reaches the dialect adapters, the approval book or the
usage/todo folding. These strategies keep the outline of real frames (protocol.md §1.4, §3,
§4) — known event types, known payload keys, ids that collide with ours — and put wrong types,
huge numbers, surrogates and deep values everywhere inside.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

SESSIONS = ["s1", "s2", "", "a1b2c3d4"]
EVENT_TYPES = [
    "approval.request",
    "approval.settled",
    "request.cancel",
    "session.info",
    "session.updated",
    "message.start",
    "message.complete",
    "tool.start",
    "tool.complete",
    "todo.updated",
    "session.usage",
    "session.title",
    "session.reclaimed",
    "session.replay_gap",
    "error",
    "notification.show",
    "gateway.ready",
    "status.update",
    "no.such.event",
]
KEYS = [
    "command",
    "description",
    "choices",
    "pattern_key",
    "pattern_keys",
    "allow_permanent",
    "allow_session",
    "smart_denied",
    "prompt_id",
    "execution_generation",
    "request_id",
    "id",
    "method",
    "reason",
    "status",
    "running",
    "tool_id",
    "name",
    "result",
    "todos",
    "revision",
    "usage",
    "context_percent",
    "cost_usd",
    "api_calls",
    "calls",
    "input",
    "info",
    "title",
    "session_id",
    "stored_session_id",
    "open_requests",
    "prompts",
    "todo_state",
    "kind",
    "edit",
    "yolo",
    "approval_mode",
    "error",
    "text",
    "level",
    "message",
    "replay_epoch",
]
huge_ints = st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1, 10**4000])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 50),
    huge_ints,
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["once", "deny", "session", "always", "yes", "", "\ud800", "srq-1", "blocked"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=12,
)
NUMERIC_KEYS = [
    "context_percent",
    "cost_usd",
    "estimated_cost_usd",
    "context_used",
    "context_max",
    "input",
    "output",
    "total",
    "calls",
    "api_calls",
    "revision",
    "execution_generation",
]
numbers = st.one_of(huge_ints, st.integers(), st.floats(allow_nan=False, allow_infinity=False))
numeric = st.dictionaries(
    st.sampled_from([*NUMERIC_KEYS, "usage"]),
    numbers | st.dictionaries(st.sampled_from(NUMERIC_KEYS), numbers, max_size=4),
    max_size=5,
)
payloads = st.dictionaries(st.sampled_from(KEYS), values, max_size=8) | numeric
ids = st.one_of(
    st.integers(0, 12), st.sampled_from(["srq-1", "srq-2", "1", True, None, 1.0]), values
)


@st.composite
def frames(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["event", "request", "response", "error", "junk"]))
    if kind == "event":
        params: dict[str, Any] = {
            "type": draw(st.sampled_from(EVENT_TYPES)),
            "session_id": draw(st.sampled_from(SESSIONS) | values),
            "payload": draw(st.one_of(payloads, values)),
        }
        params.update(draw(st.dictionaries(st.sampled_from(KEYS), values, max_size=2)))
        return {"jsonrpc": "2.0", "method": "event", "params": params}
    if kind == "request":
        method = draw(
            st.sampled_from(["approval", "clarify", "terminal.read", "sudo"]) | st.text(max_size=8)
        )
        body: object = draw(st.one_of(payloads, values))
        if isinstance(body, dict) and draw(st.booleans()):
            body["session_id"] = draw(st.sampled_from(SESSIONS))
        return {"jsonrpc": "2.0", "id": draw(ids), "method": method, "params": body}
    if kind == "response":
        return {"jsonrpc": "2.0", "id": draw(ids), "result": draw(st.one_of(payloads, values))}
    if kind == "error":
        error = {
            "code": draw(st.integers(-32700, 6000) | huge_ints),
            "message": draw(values),
            "data": draw(st.one_of(payloads, values)),
        }
        return {"jsonrpc": "2.0", "id": draw(ids), "error": error}
    return draw(
        st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result"]), values)
    )


@st.composite
def messages(draw: st.DrawFn) -> str | bytes:
    """One WebSocket message: frames encoded, sometimes joined, cut, or made bytes."""
    items = draw(st.lists(frames(), min_size=1, max_size=3))
    text = "\n".join(json.dumps(item) for item in items)
    shape = draw(st.sampled_from(["plain", "cut", "bom", "bytes", "bad-utf8", "noise"]))
    if shape == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if shape == "bom":
        return "\ufeff" + text
    if shape == "bytes":
        return text.encode("utf-8", "surrogatepass")
    if shape == "bad-utf8":
        return text.encode("utf-8", "surrogatepass") + b"\xff\xfe"
    if shape == "noise":
        return draw(st.text(max_size=50)) + text
    return text
