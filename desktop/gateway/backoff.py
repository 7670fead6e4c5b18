"""Jittered exponential backoff for reconnects.

Why a value object with an injected random source: the client asks it for "the delay before
attempt N" and nothing else, so tests can pass ``initial=0.001`` (fast) or a fixed ``rng``
(deterministic) without patching time. Jitter spreads reconnect storms when a gateway restarts
under several trays; ``max_delay`` keeps a person from waiting minutes after a long outage.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BackoffPolicy:
    """Delay before reconnect attempt ``n`` (1-based): ``initial * factor**(n-1)``, capped.

    ``jitter`` is the fraction of the delay that is randomised downwards ("equal jitter"): with
    0.5 the delay lies in ``[d/2, d]``, so it never grows past the cap and never drops to zero.
    """

    initial: float = 0.5
    factor: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.5
    rng: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.initial < 0 or self.max_delay < 0:
            raise ValueError("backoff delays must not be negative")
        if self.factor < 1:
            raise ValueError("backoff factor must be >= 1")
        if not 0 <= self.jitter <= 1:
            raise ValueError("backoff jitter must be within [0, 1]")

    def delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect attempt ``attempt`` (attempt 1 = first retry)."""
        n = max(attempt, 1)
        # Cap the exponent first so a long outage cannot overflow the float.
        base = self.initial
        for _ in range(n - 1):
            base *= self.factor
            if base >= self.max_delay:
                break
        base = min(base, self.max_delay)
        return base * (1.0 - self.jitter * self.rng())


FAST_BACKOFF = BackoffPolicy(initial=0.001, factor=2.0, max_delay=0.01, jitter=0.0)
"""For tests and demos: reconnects at once, still exercises the BACKOFF state."""
