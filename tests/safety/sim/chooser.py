"""Where the interleaver's decisions come from: a seeded RNG, or hypothesis' data stream.

Why one interface for both: the seeded runs give cheap, countable volume (and a seed that
reproduces a failure exactly); the hypothesis driver runs the *same* engine but lets hypothesis
shrink a failing interleaving to a short one. Every random decision in a run goes through one
``Chooser``, so a run is a pure function of its seed (or its hypothesis example).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Chooser(Protocol):
    def below(self, n: int) -> int:
        """An integer in ``[0, n)``; ``n >= 1``."""
        ...


class RandomChooser:
    """Decisions from ``random.Random(seed)``: reproducible by seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def below(self, n: int) -> int:
        return self._rng.randrange(n)


class DataChooser:
    """Decisions drawn from hypothesis' ``st.data()`` (shrinks toward small choices)."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self._data = data
        self._st = st

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        value: int = self._data.draw(self._st.integers(0, n - 1))
        return value


def pick(chooser: Chooser, items: Sequence[T]) -> T:
    return items[chooser.below(len(items))]


def chance(chooser: Chooser, percent: int) -> bool:
    """True with probability ``percent``/100."""
    return chooser.below(100) < percent


def weighted(chooser: Chooser, options: Sequence[tuple[int, T]]) -> T:
    """One option, with probability proportional to its (positive) weight."""
    total = sum(weight for weight, _ in options)
    point = chooser.below(total)
    for weight, option in options:
        if point < weight:
            return option
        point -= weight
    raise AssertionError("unreachable: weights are positive")
