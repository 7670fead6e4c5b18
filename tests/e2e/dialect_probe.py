"""Does the core speak the 0.20 dialect yet? Asked of the sans-I/O core itself, by behaviour.

Why a behavioural probe and not a name: the 0.20 dialect (answer ``approval.request`` events
that carry a ``request_id`` by that id, in any order) is being built in ``desktop.core`` in
parallel; whatever it ends up being called, it is there exactly when, with two such events
waiting on one session, the *newer* one can be answered and the answer names its id. (Today's
core already passes a ``request_id`` along, but answers only the oldest: 0.19.0's FIFO rule.)
The e2e tests that need it skip until then, with this reason.
"""

from __future__ import annotations

import json
from functools import cache

from desktop.core.gateway_core import GatewayCore
from desktop.core.model import Choice

NEEDS_020 = "needs the core's 0.20 dialect (answers by request_id); enable by merging it"
PROBE_IDS = ("5f1e0c9a8b7d4e3f2a1b0c9d8e7f6a5b", "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d")


@cache
def core_answers_by_request_id() -> bool:
    """True if the core answers the newer of two 0.20 approvals first, by its ``request_id``."""
    core = GatewayCore(clock=lambda: 0.0)
    core.connection_opened(1)
    core.receive_text(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "event",
                "params": {"type": "gateway.ready", "payload": {"skin": {}, "change_events": True}},
            }
        )
    )
    for frame in core.data_to_send():
        core.frame_written(frame.frame_id)
        if frame.rpc_id is not None:
            core.receive_text(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": frame.rpc_id,
                        "error": {"code": -32601, "message": "unknown method: client.capabilities"},
                    }
                )
            )
    core.watch_session("s1", stored_session_id="k1")
    for frame in core.data_to_send():
        core.frame_written(frame.frame_id)
    for index, request_id in enumerate(PROBE_IDS):
        payload = {
            "command": f"rm -rf /tmp/probe{index}",
            "pattern_key": "delete in root path",
            "pattern_keys": ["delete in root path"],
            "description": "delete in root path",
            "allow_permanent": True,
            "allow_session": True,
            "request_id": request_id,
            "choices": ["once", "session", "always", "deny"],
        }
        core.receive_text(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "event",
                    "params": {"type": "approval.request", "session_id": "s1", "payload": payload},
                }
            )
        )
    core.events_received()
    rows = [a for a in core.approvals() if a.session_id == "s1"]
    if len(rows) != 2 or not core.decide(rows[-1].key, Choice.ONCE).sent:
        return False
    for frame in core.data_to_send():
        sent = json.loads(frame.text)
        if sent.get("method") == "approval.respond":
            return bool(sent.get("params", {}).get("request_id") == PROBE_IDS[1])
    return False
