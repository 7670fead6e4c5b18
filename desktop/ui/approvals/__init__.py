"""The grouped approval dialog: every command an agent waits on, answered in one window.

Public API (the tray and the bridge use only these): :class:`ApprovalDialog` and
:class:`DecisionRequest` with its ``SURFACE_*`` values. The rest of the package is the dialog's
own machinery: Qt-free ordering (``layout``), rules (``rules``), wording (``texts``), keyboard
(``keys``), and the Qt model/view/widgets.
"""

from desktop.ui.approvals.dialog import ApprovalDialog
from desktop.ui.approvals.requests import (
    SURFACE_BATCH,
    SURFACE_BUTTON,
    SURFACE_KEYBOARD,
    DecisionRequest,
)

__all__ = [
    "SURFACE_BATCH",
    "SURFACE_BUTTON",
    "SURFACE_KEYBOARD",
    "ApprovalDialog",
    "DecisionRequest",
]
