"""The lens grades within what Hermes asks about: routine work below high, ruin always high."""

from __future__ import annotations

import pytest

from desktop.risk import RiskLevel, assess

from .contained import CATASTROPHIC, ROUTINE

ROUTINE_BELOW_HIGH = 0.90  # issue 30's target, with the folder given


def below_high(rows: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    return [(c, cwd) for c, cwd in rows if assess(c, cwd).level < RiskLevel.HIGH]


def test_the_table_is_big_enough_to_say_something() -> None:
    assert len(ROUTINE) + len(CATASTROPHIC) >= 300
    assert len(set(ROUTINE)) == len(ROUTINE)
    assert len(set(CATASTROPHIC)) == len(CATASTROPHIC)


@pytest.mark.parametrize(
    ("command", "cwd"), CATASTROPHIC, ids=[repr(c)[:50] for c, _ in CATASTROPHIC]
)
def test_every_catastrophic_command_is_high(command: str, cwd: str) -> None:
    assessment = assess(command, cwd)
    assert assessment.level is RiskLevel.HIGH, assessment


def test_most_routine_commands_are_below_high() -> None:
    low = below_high(ROUTINE)
    share = len(low) / len(ROUTINE)
    high = sorted(set(ROUTINE) - set(low))
    assert share >= ROUTINE_BELOW_HIGH, f"{share:.0%} below high; high: {high}"
