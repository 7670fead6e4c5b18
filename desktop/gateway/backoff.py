"""Jittered (reconnect storms of many trays) exponential backoff, capped (long outages)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BackoffPolicy:
    """``jitter`` randomises downwards: with 0.5 a delay is in ``[d/2, d]``, never past the cap."""

    initial: float = 0.5
    factor: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.5
    rng: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def delay(self, attempt: int) -> float:
        # The exponent is capped so a long outage cannot overflow the float.
        exponent = min(max(attempt, 1) - 1, 64)
        base = min(self.initial * self.factor**exponent, self.max_delay)
        return base * (1.0 - self.jitter * self.rng())
