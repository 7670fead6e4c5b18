"""The risk lens: which parts of a command are dangerous, and how much.

``assess`` is a pure function of the text, so every surface sees the same verdict.
"""

from __future__ import annotations

from .lens import RiskAssessment, RiskFinding, assess
from .rules import RiskLevel

__all__ = ["RiskAssessment", "RiskFinding", "RiskLevel", "assess"]
