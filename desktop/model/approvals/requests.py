"""What the approval dialog asks for when a person decides: one value per command.

Why a dataclass and not a bare ``(gateway_id, key, choice)`` signal: the bridge logs it, turns it
into exactly one ``GatewayCore.decide`` call, and tests compare it; a frozen value with named
fields cannot be half-built or mutated on the way. Qt-free on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.model import Choice
from desktop.journal import Surface

# Where in the dialog the decision was made (for the log and for the bridge's own policy).
SURFACE_BUTTON = Surface.DIALOG_BUTTON.value
SURFACE_KEYBOARD = Surface.DIALOG_KEYBOARD.value
SURFACE_BATCH = Surface.DIALOG_BATCH.value


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """A person's answer to one approval, for the bridge to pass to ``GatewayCore.decide``.

    Attributes:
        gateway_id: the gateway the approval belongs to (as given to ``upsert``).
        key: ``Approval.key``, unique within that gateway's core.
        choice: one of the row's ``Approval.choices``; never a free-form string.
        surface: one of the ``SURFACE_*`` constants above.
        confirm_stale: True only after the person pressed "Re-confirm" on a STALE row.
    """

    gateway_id: str
    key: str
    choice: Choice
    surface: str
    confirm_stale: bool = False
