"""The risk lens: which parts of a command are dangerous, and how much.

Qt-free and sans-I/O like the core: ``assess(command)`` is a pure function of the text (the
shell grammar comes from tree-sitter-bash, see :mod:`desktop.risk.shell` for why), so the
dialog, the notifications and the journal all see the same verdict for the same command.
"""

from __future__ import annotations

from .lens import RiskAssessment, RiskFinding, assess
from .rules import RiskLevel

__all__ = ["RiskAssessment", "RiskFinding", "RiskLevel", "assess"]
