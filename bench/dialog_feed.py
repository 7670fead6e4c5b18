"""The approval dialog fed as the app feeds it: the store keeps each row, then the dialog hears.

The probes measure the dialog on its real path, so the store's share (folding the event,
keeping the row the dialog reads) is in their figures, as it is in the app's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.events import ApprovalChanged
from desktop.core.model import Approval
from desktop.model.app_state import AppState

if TYPE_CHECKING:
    from desktop.ui.approvals.dialog import ApprovalDialog

GATEWAY_ID, GATEWAY_NAME = "bench", "Bench gateway"


class DialogFeed:
    """An ``ApprovalDialog`` on a store of its own, on one gateway."""

    def __init__(self) -> None:
        from desktop.ui.approvals.dialog import ApprovalDialog

        self.store = AppState()
        self.store.add_gateway(GATEWAY_ID, GATEWAY_NAME)
        self.dialog: ApprovalDialog = ApprovalDialog(self.store)

    def show(self, approval: Approval, session_title: str) -> None:
        """One core event for ``approval``: the store folds it, then the dialog shows it."""
        self.store.apply(GATEWAY_ID, ApprovalChanged(approval))
        self.dialog.upsert(GATEWAY_ID, GATEWAY_NAME, approval, session_title)
