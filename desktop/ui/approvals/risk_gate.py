"""Which rows "Approve all" must leave out and name: the high-risk ones.

Why a gate here and not only on the card: one click on "Approve all (once)" approved
``DROP SCHEMA … CASCADE``, ``rm -rf`` and ``git clean -fdx`` together. A batch action therefore
never approves a high-risk row; it answers the others and names the ones it left waiting, each
to be answered on its own card.

The judgement is the risk package's (``desktop.risk.assess(command) -> RiskAssessment`` with
``level`` LOW/MEDIUM/HIGH). The dialog takes the function as a parameter so tests can pass a
small stand-in; without one it uses ``desktop.risk`` when that package is installed.
Qt-free.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

Assess = Callable[[str], Any]  # command -> RiskAssessment (anything with .level.name)


def default_assess() -> Assess | None:
    """``desktop.risk.assess`` if the package is there, else None (nothing is judged high)."""
    try:
        module = importlib.import_module("desktop.risk")
    except ImportError:
        return None
    found = getattr(module, "assess", None)
    return found if callable(found) else None


def is_high(assess: Assess | None, command: str) -> bool:
    """The command is judged high risk (an assessor that fails counts as high: say no)."""
    if assess is None:
        return False
    try:
        level = getattr(assess(command), "level", None)
    except Exception:  # a judge that breaks must not open the gate
        return True
    return getattr(level, "name", "") == "HIGH"
