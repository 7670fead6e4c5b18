"""Where the approval dialog opens: near the tray, never under the bubbles. Qt-free.

Assumption, since no notification server says where it draws: bubbles stack in a column at
the right edge of the screen — top-right by default on xfce4-notifyd, mako and dunst,
bottom-right on KDE Plasma — about :data:`BUBBLE_COLUMN` pixels wide with its margin
(xfce4-notifyd's summary bubble measured 415 px plus a 16 px margin on a 1280x800 screen).
So the dialog keeps out of that strip: below or above the tray icon when its geometry is known
(XEmbed trays; a StatusNotifierItem has none), else on the left side, vertically centred. A
screen too narrow for both gets the dialog at its left edge. Wayland compositors place windows
themselves, so this is for X11.
"""

from __future__ import annotations

from dataclasses import dataclass

BUBBLE_COLUMN = 440  # the right-edge strip where notification servers stack their bubbles
EDGE = 8  # kept from the screen's edges and the tray icon (the frame is not known before show)


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle in screen pixels: ``x``, ``y`` its top-left corner."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height


def dialog_origin(area: Box, width: int, height: int, tray: Box | None = None) -> tuple[int, int]:
    """Top-left corner for a ``width`` by ``height`` dialog on the screen's ``area``.

    ``area`` is the screen's available geometry (panels excluded); ``tray`` the tray icon's
    geometry when the platform reports a non-empty one.
    """
    if tray is not None and tray.width > 0 and tray.height > 0:
        middle = tray.y + tray.height // 2
        below = middle < area.y + area.height // 2  # a panel at the top: open below it
        y = tray.bottom + EDGE if below else tray.y - height - EDGE
        x = tray.x + tray.width // 2 - width // 2
    else:
        x = area.x + EDGE
        y = area.y + (area.height - height) // 2
    x = min(x, area.right - BUBBLE_COLUMN - width)  # out of the bubbles' column
    x = max(area.x + EDGE, min(x, area.right - width - EDGE))
    y = max(area.y + EDGE, min(y, area.bottom - height - EDGE))
    return x, y
