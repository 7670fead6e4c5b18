"""The traffic cost of noticing rows another client answered: frames/s while rows are open.

B (tui_gateway) and 0.20 announce nothing to the tray when another client answers a request,
so the core asks ``approval.pending`` for each followed session with an open row, every
``open_poll_interval``. This drives the real core on an injected clock (no socket: the figure is
the core's own schedule) with ``sessions`` sessions each holding one open row, for ``seconds``,
answering every list at once with the row still pending; it prints requests and replies per
second and their bytes. With no row open it asks nothing (also printed).

    python -m bench.pending_polls [--sessions 1] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from desktop.core.gateway_core import GatewayCore
from desktop.core.model import Dialect

REQUEST_ID = "0123456789abcdef0123456789abcdef"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def event(kind: str, session_id: str, payload: dict[str, Any]) -> str:
    params = {"type": kind, "session_id": session_id, "payload": payload}
    return json.dumps({"jsonrpc": "2.0", "method": "event", "params": params})


def connected(dialect: Dialect, clock: Clock, sessions: list[str]) -> GatewayCore:
    core = GatewayCore(clock=clock)
    core.connection_opened(1)
    ready = {"change_events": True} if dialect is Dialect.HERMES020 else {}
    core.receive_text(event("gateway.ready", "", ready))
    [caps] = core.data_to_send()
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": caps.rpc_id}
    if dialect is Dialect.B:
        reply["result"] = {"server_requests": ["approval"]}
    else:
        reply["error"] = {"code": -32601, "message": "unknown method"}
    core.receive_text(json.dumps(reply))
    for session_id in sessions:
        core.watch_session(session_id)
    core.data_to_send()
    return core


def ask(dialect: Dialect, session_id: str) -> str:
    params = {
        "session_id": session_id,
        "command": f"rm -rf /tmp/{session_id}",
        "description": "delete",
        "pattern_keys": ["delete"],
        "request_id": f"{REQUEST_ID[:-8]}{session_id[-8:]:0>8}",
        "choices": ["once", "session", "always", "deny"],
    }
    if dialect is Dialect.B:
        return json.dumps(
            {"jsonrpc": "2.0", "id": f"srq-{session_id}", "method": "approval", "params": params}
        )
    return event("approval.request", session_id, params)


def measure(dialect: Dialect, sessions: int, seconds: float, open_rows: bool) -> dict[str, float]:
    clock = Clock()
    ids = [f"{n:08x}" for n in range(1, sessions + 1)]
    core = connected(dialect, clock, ids)
    entries: dict[str, dict[str, Any]] = {}
    for session_id in ids if open_rows else ():
        text = ask(dialect, session_id)
        core.receive_text(text)
        params = json.loads(text)["params"]
        entries[session_id] = params.get("payload", params)
    core.data_to_send()
    start, out, out_bytes, replies, in_bytes = clock.now, 0, 0, 0, 0
    while clock.now < start + seconds:
        due = core.next_deadline()
        clock.now = start + seconds if due is None else min(max(due, clock.now), start + seconds)
        core.tick()
        for frame in core.data_to_send():
            out, out_bytes = out + 1, out_bytes + len(frame.text.encode())
            body = json.loads(frame.text)
            if body.get("method") == "approval.pending":
                listed = entries.get(body["params"]["session_id"])
                result = {"approvals": [listed] if listed else []}
                text = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result})
                replies, in_bytes = replies + 1, in_bytes + len(text.encode())
                core.receive_text(text)
        core.events_received()
    return {
        "requests/s": out / seconds,
        "replies/s": replies / seconds,
        "bytes out/s": out_bytes / seconds,
        "bytes in/s": in_bytes / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    for dialect in (Dialect.B, Dialect.HERMES020):
        for open_rows in (True, False):
            figures = measure(dialect, args.sessions, args.seconds, open_rows)
            shown = ", ".join(f"{value:.2f} {name}" for name, value in figures.items())
            state = "one row open each" if open_rows else "no row open"
            sys.stdout.write(f"{dialect.value}: {args.sessions} session(s), {state}: {shown}\n")


if __name__ == "__main__":
    main()
