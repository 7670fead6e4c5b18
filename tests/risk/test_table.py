"""The risk lens on the command table: level and rule ids exactly as each row says."""

from __future__ import annotations

import pytest

from desktop.risk import RiskLevel, assess
from desktop.risk.rules import OPAQUE_RULES, RULES

from .contained import CATASTROPHIC, ROUTINE
from .table import ROWS, Row


@pytest.mark.parametrize("row", ROWS, ids=[repr(r[0])[:60] for r in ROWS])
def test_each_command_gets_its_level_and_rules(row: Row) -> None:
    command, level, rules = row
    assessment = assess(command)
    found = {f.rule for f in assessment.findings}
    assert (assessment.level, found) == (level, rules), assessment


def test_the_table_is_big_and_names_every_rule() -> None:
    rule_ids = {rule.id for rule in RULES}
    assert len(ROWS) >= 100
    expected = set().union(*(rules for _, _, rules in ROWS))
    for command, cwd in ROUTINE + CATASTROPHIC:  # the rules that need the task's folder
        expected |= {f.rule for f in assess(command, cwd).findings}
    assert expected <= rule_ids  # no row names a rule that does not exist
    assert rule_ids >= OPAQUE_RULES
    unused = rule_ids - expected - {"too-long"}  # too-long has its own test
    assert not unused, f"rules no row exercises: {sorted(unused)}"


def test_rows_cover_every_level() -> None:
    assert {level for _, level, _ in ROWS} == set(RiskLevel)
