"""Bringing a window forward with the activation token of the event that asked for it.

Why: on Wayland an app may not raise its own window; the compositor does it only for a token
(xdg-activation-v1) that came from the person's own input elsewhere -- the panel that was
clicked, the notification server whose button was pressed, the launcher that started a second
copy. Without one, Qt asks for a token tied to the app's *own* last input, and sway answers
"Rejecting activate request: unknown token": the dialog stays behind. Where a token comes from:

* a notification action: the server sends ``ActivationToken(id, token)`` just before
  ``ActionInvoked`` (Desktop Notifications spec 1.2; ``desktop.platform.native_notify``);
* a second launch: its ``XDG_ACTIVATION_TOKEN`` (or X11's ``DESKTOP_STARTUP_ID``), passed over
  the single-instance socket (``desktop.ui.single_instance``);
* a tray click: Qt 6.11's StatusNotifierItem adaptor puts a host's ``ProvideXdgActivationToken``
  into the process environment, where ``desktop.ui.tray`` picks it up.

How Qt uses one: ``QWaylandXdgSurface::requestActivate`` (a show, ``activateWindow()``) reads
``XDG_ACTIVATION_TOKEN`` from the environment, activates with it and unsets it. So the token of
the event being handled (:data:`event_token`) is set there just before the window is shown and
removed right after, never left for a later window. Where no token came (waybar sends none),
the window is looked at once a moment later; if it is still not active, the person is told
where it is (:func:`should_say_where`), once, not in a loop of retries.

Tokens are hostile input (another local program can write to the socket): printable ASCII,
no spaces, at most :data:`MAX_TOKEN` characters, else dropped.
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
    """``raw`` when it can be an activation token, else "" (never used, never logged)."""
    if 0 < len(raw) <= MAX_TOKEN and all("!" <= c <= "~" for c in raw):
        return raw
    return ""


def launch_token(environ: MutableMapping[str, str]) -> str:
    """The token this process was launched with, taken out of ``environ``.

    Taken out because it belongs to the launch: left there, Qt would spend it on whatever
    window comes first, however much later, and child processes would inherit it.
    """
    tokens = [environ.pop(name, "") for name in (TOKEN_ENV, STARTUP_ID_ENV)]
    return next((t for t in map(valid_token, tokens) if t), "")


def token_line(token: str) -> str:
    """The single-instance line that hands ``token`` over ("" when there is none to send).

    A line of its own before ``show-approvals``, so a tray of an older version, which ignores
    unknown lines, still shows its approvals for a newer launcher.
    """
    token = valid_token(token)
    return f"{TOKEN_LINE} {token}" if token else ""


def token_from_line(line: str) -> str | None:
    """The token a :func:`token_line` carries ("" when unusable), or None for another line."""
    word, _, rest = line.partition(" ")
    return valid_token(rest) if word == TOKEN_LINE else None


@dataclass(frozen=True)
class Activation:
    """How to bring a window forward.

    ``token``: set as ``XDG_ACTIVATION_TOKEN`` while the window is shown (Wayland only).
    ``check``: look once, a moment later, whether the window came forward; if not, say where.
    """

    token: str
    check: bool


def plan_activation(platform: str, token: str, already_active: bool) -> Activation:
    """The rule for one request to bring a window forward.

    Only Wayland needs a token and only there is a refusal silent; X11 window managers take
    Qt's own request (and ``DESKTOP_STARTUP_ID`` only means something at a launch).
    """
    if platform != WAYLAND or already_active:
        return Activation("", check=False)
    return Activation(valid_token(token), check=True)


def should_say_where(last_said: float | None, now: float) -> bool:
    """Say "the window is over there" unless it was said within :data:`SAY_WHERE_QUIET_S`."""
    return last_said is None or now - last_said >= SAY_WHERE_QUIET_S


class EventToken:
    """The activation token of the event being handled right now, if it brought one.

    The code that receives the event runs its handler inside :meth:`handling`; the code that
    shows a window :meth:`take` s it (a token is good for one activation). Outside a handler
    there is none, so a token never outlives its event.
    """

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
