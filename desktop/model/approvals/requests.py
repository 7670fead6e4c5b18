"""What the approval dialog asks for when a person decides: one frozen value per command.

A value with named fields cannot be half-built or changed on its way to the one
``GatewayCore.decide`` call the bridge makes of it. Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.model import Choice
from desktop.journal import Surface


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """A person's answer to one approval, for the bridge to pass to ``GatewayCore.decide``."""

    gateway_id: str
    key: str  # Approval.key, unique within that gateway's core
    choice: Choice  # one of the row's Approval.choices
    surface: Surface  # where the person decided (the journal says it)
    confirm_stale: bool = False  # the person pressed "Re-confirm" on a STALE row
