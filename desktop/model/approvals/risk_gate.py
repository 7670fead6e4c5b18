"""Which rows "Approve all" must leave out and name: the high-risk ones.

Why a gate here and not only on the card: one click on "Approve all (once)" approved
``DROP SCHEMA … CASCADE``, ``rm -rf`` and ``git clean -fdx`` together. A batch action therefore
never approves a high-risk row; it answers the others and names the ones it left waiting, each
to be answered on its own card.

The judgement is the risk package's (``desktop.risk.assess(command) -> RiskAssessment`` with
``level`` LOW/MEDIUM/HIGH), the same verdict the cards show. The dialog takes the function as a
parameter so tests can pass a small stand-in. Qt-free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Assess = Callable[[str, str], Any]  # (command, cwd) -> RiskAssessment (with .level.name)


def default_assess() -> Assess:
    """``desktop.risk.assess`` (imported on first use: tree-sitter is not needed before)."""
    from desktop.risk import assess

    return assess


def is_high(assess: Assess | None, command: str, cwd: str) -> bool:
    """The command, run in ``cwd``, is judged high risk (a judge that fails says high: no)."""
    if assess is None:
        return False
    try:
        level = getattr(assess(command, cwd), "level", None)
    except Exception:  # a judge that breaks must not open the gate
        return True
    return getattr(level, "name", "") == "HIGH"
