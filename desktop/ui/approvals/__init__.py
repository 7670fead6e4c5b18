"""The grouped approval dialog: every command an agent waits on, answered in one window.

Public API (the tray and the bridge use only these): :class:`ApprovalDialog` and
:class:`DecisionRequest` with its ``SURFACE_*`` values. The rest of the package is the dialog's
own Qt machinery: keyboard (``keys``), the item model, the view and the widgets; its Qt-free
ordering, rules and wording are in :mod:`desktop.model.approvals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop.model.approvals.requests import (
    SURFACE_BATCH,
    SURFACE_BUTTON,
    SURFACE_KEYBOARD,
    DecisionRequest,
)

if TYPE_CHECKING:
    from desktop.ui.approvals.dialog import ApprovalDialog


def __getattr__(name: str) -> Any:
    """Import ``ApprovalDialog`` on first use.

    The bridge needs only ``DecisionRequest``; the dialog's widgets cost start-up time the tray
    icon should not wait for.
    """
    if name == "ApprovalDialog":
        from desktop.ui.approvals.dialog import ApprovalDialog

        return ApprovalDialog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SURFACE_BATCH",
    "SURFACE_BUTTON",
    "SURFACE_KEYBOARD",
    "ApprovalDialog",
    "DecisionRequest",
]
