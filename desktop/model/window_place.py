"""Where the approval dialog and the tray's own menu open: near the tray, never over it. Qt-free.

Notification servers stack bubbles in a right-edge column about :data:`BUBBLE_COLUMN` px wide
(xfce4-notifyd measured 415 + 16 px) and say nothing of where: the dialog opens by the tray
icon when its geometry is known (XEmbed), else at the left. X11 only: Wayland places windows.
"""

from __future__ import annotations

from dataclasses import dataclass

BUBBLE_COLUMN = 440  # the right-edge strip where notification servers stack their bubbles
EDGE = 8  # kept from the screen's edges and the tray icon (the frame is not known before show)


@dataclass(frozen=True, slots=True)
class Box:
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


def menu_origin(area: Box, width: int, height: int, pointer: tuple[int, int]) -> tuple[int, int]:
    """Qt would push the menu over the panel that got the click (Plasma: Quit sat on the icon)."""
    x, y = pointer
    y = y - height if y > area.y + area.height // 2 else y
    x = max(area.x, min(x, area.right - width))
    y = max(area.y, min(y, area.bottom - height))
    return x, y
