"""The approval machine's former home: its names for modules not yet moved to ``approvals``."""

from desktop.core.approvals import ApprovalMachine as ApprovalLifecycle
from desktop.core.approvals import Row

__all__ = ["ApprovalLifecycle", "Row"]
