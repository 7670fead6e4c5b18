"""Where the approval dialog opens: near the tray, never under the bubbles. Qt-free.

No notification server says where it draws; xfce4-notifyd, mako and dunst stack bubbles at the
top right, KDE Plasma at the bottom right, about :data:`BUBBLE_COLUMN` px wide with margin
(xfce4-notifyd's measured 415 + 16 px). So the dialog opens below or above the tray icon when
its geometry is known (XEmbed), else at the left, centred, out of that strip. For X11: Wayland
compositors place windows themselves.
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
    """Top-left corner for the dialog on ``area`` (panels excluded), near a known ``tray``."""
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
