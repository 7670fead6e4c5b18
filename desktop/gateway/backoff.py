"""Jittered exponential backoff for reconnects.

A value object with an injected random source, so tests pass a fast or deterministic policy
instead of patching time. Jitter spreads reconnect storms when a gateway restarts under several
trays; ``max_delay`` keeps a person from waiting minutes after a long outage.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BackoffPolicy:
    """Delay before reconnect attempt ``n`` (1-based): ``initial * factor**(n-1)``, capped.

    ``jitter`` is the fraction randomised downwards ("equal jitter"): with 0.5 the delay lies
    in ``[d/2, d]``, never past the cap and never zero.
    """

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
