"""Only what was seen: how long a row must have been on screen before an answer may cover it.

Why dwell times at all: "every answer goes to exactly the command you saw". A click or a key
press is decided a few hundred milliseconds before it lands, so a row that appears (or that the
selection jumps to) just before it cannot have been part of the decision. Measured against the
old dialog: requests appended 0, 30, 100 and 300 ms before a click on "Approve all" were approved
with the rest, and a double tap on A 40 ms apart answered the row the selection had moved to.

* :data:`BATCH_DWELL_S` (0.8 s): "Approve all" / "Deny all" cover only rows that have been on
  screen at least this long. Noticing that something new appeared in a list and taking it into
  the decision takes longer than a simple reaction (about 0.25 s) plus a choice among several
  items (0.4 to 0.6 s); 0.8 s sits above that and above the 300 ms case found, while a person
  who actually reads a batch before pressing never waits for it. Rows left out stay waiting.
* :data:`KEY_DWELL_S` (0.5 s): a decision key answers the selected row only once that row has
  been on screen *and* selected this long. A double tap is 40 to 150 ms apart and auto-repeat
  starts after 250 to 600 ms; nobody reads a command in under half a second, so a deliberate
  press after reading is never refused, and the second tap of a double tap always is.

Qt-free: times come from the dialog's injected clock (the core's monotonic clock).
"""

from __future__ import annotations

BATCH_DWELL_S = 0.8
KEY_DWELL_S = 0.5
HEAD_PX = 70  # a card's head: its number, its state and the first lines of the command


def head_on_screen(y: int, height: int, view_height: int) -> bool:
    """A card at ``y`` counts as on screen: its head is inside the viewport.

    A card showing only its top edge at the bottom, or only its buttons at the top, was not
    seen: its command is not readable there.
    """
    return y >= 0 and y + min(height, HEAD_PX) <= view_height


def seen_long_enough(on_screen_since: float | None, now: float, dwell: float) -> bool:
    """The row has been on screen for at least ``dwell`` seconds (None: it is not on screen)."""
    return on_screen_since is not None and now - on_screen_since >= dwell


def key_ready(
    on_screen_since: float | None, selected_since: float | None, now: float, dwell: float
) -> bool:
    """A key may answer the selected row: on screen and selected, both for ``dwell`` seconds."""
    if on_screen_since is None or selected_since is None:
        return False
    return now - max(on_screen_since, selected_since) >= dwell
