"""Widgets and the bridge read ``Approval.action``, never the phase: the rule is the core's, once.

Why a scan: a widget that branches on ``ApprovalPhase`` re-derives what may be answered, and
such copies drift from ``decisions.refusal`` (they did: a stale row kept its Re-confirm button
while it could not be sent). The AST names the file and line of any such read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[2] / "desktop" / "ui"


def phase_reads(source: str) -> list[int]:
    """Lines that name ``ApprovalPhase`` or read a ``.phase`` attribute."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            named = [node.id]
        elif isinstance(node, ast.Attribute):
            named = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            named = [a.name for a in node.names]
        else:
            continue
        if {"phase", "ApprovalPhase"} & set(named):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", sorted(UI.rglob("*.py")), ids=lambda p: str(p.relative_to(UI)))
def test_no_widget_reads_the_phase(path: Path) -> None:
    assert phase_reads(path.read_text(encoding="utf-8")) == []


def test_the_scan_finds_each_way_of_reading_the_phase() -> None:
    source = (
        "from desktop.core.model import ApprovalPhase\n"
        "x = row.approval.phase\n"
        "y = model.ApprovalPhase.STALE\n"
        "z = row.approval.action\n"
    )
    assert sorted(phase_reads(source)) == [1, 2, 3]
