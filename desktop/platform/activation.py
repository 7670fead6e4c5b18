"""Bringing a window forward with the activation token of the event that asked for it.

On Wayland the compositor raises a window only for an xdg-activation token from the person's
own input elsewhere (sway otherwise: "unknown token", the dialog stays behind): a notification
action's, a second launch's (over the single-instance socket) or a tray click's. Qt's
``requestActivate`` reads ``XDG_ACTIVATION_TOKEN`` and unsets it, so the current event's token
is set just before a show and never left for a later window.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

TOKEN_ENV = "XDG_ACTIVATION_TOKEN"
STARTUP_ID_ENV = "DESKTOP_STARTUP_ID"
MAX_TOKEN = 255  # sway's are 32 characters, GNOME's and X11 startup ids well under 200
TOKEN_LINE = "activation-token"  # the single-instance line that carries a launch's token
WAYLAND = "wayland"
SAY_WHERE_QUIET_S = 60.0  # "the window is over there" at most this often
SAY_WHERE_WHAT = "Approvals are open in the Hermes Tray window"
SAY_WHERE_ADVICE = "It may be behind other windows: look for it in the window list or taskbar."


def valid_token(raw: str) -> str:
    """Hostile input (any local program writes to the socket): "" unless plausible; never logged."""
    if 0 < len(raw) <= MAX_TOKEN and all("!" <= c <= "~" for c in raw):
        return raw
    return ""


def launch_token(environ: MutableMapping[str, str]) -> str:
    """The launch's token, taken out of ``environ`` (else a later window or a child gets it)."""
    tokens = [environ.pop(name, "") for name in (TOKEN_ENV, STARTUP_ID_ENV)]
    return next((t for t in map(valid_token, tokens) if t), "")


def token_line(token: str) -> str:
    """A line of its own before ``show-approvals``: an older tray ignores it and still shows."""
    token = valid_token(token)
    return f"{TOKEN_LINE} {token}" if token else ""


def token_from_line(line: str) -> str | None:
    """The token a :func:`token_line` carries ("" when unusable), or None for another line."""
    word, _, rest = line.partition(" ")
    return valid_token(rest) if word == TOKEN_LINE else None


@dataclass(frozen=True)
class Activation:
    """``token``: set while the window is shown; ``check``: look once later, else say where."""

    token: str
    check: bool


def plan_activation(platform: str, token: str, already_active: bool) -> Activation:
    """Only Wayland needs a token, and only there is a refusal silent."""
    if platform != WAYLAND or already_active:
        return Activation("", check=False)
    return Activation(valid_token(token), check=True)


def should_say_where(last_said: float | None, now: float) -> bool:
    return last_said is None or now - last_said >= SAY_WHERE_QUIET_S


class EventToken:
    """The token of the event being handled (inside :meth:`handling`), taken once by a show."""

    def __init__(self) -> None:
        self._token = ""

    @contextlib.contextmanager
    def handling(self, token: str) -> Iterator[None]:
        previous, self._token = self._token, valid_token(token)
        try:
            yield
        finally:
            self._token = previous

    def take(self) -> str:
        token, self._token = self._token, ""
        return token


event_token = EventToken()
