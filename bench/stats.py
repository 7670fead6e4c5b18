"""Small statistics helpers: percentiles and medians without numpy.

Why nearest-rank percentiles: with a few hundred samples an interpolated p99 invents a value
that was never observed; nearest-rank reports a real sample and is the convention of most
latency tools.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile ``p`` (0-100) of ``values``; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def median(values: Sequence[float]) -> float:
    """The middle value (mean of the two middle ones for an even count); NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2.0


def ratio(value: float, reference: float) -> float:
    """``value / reference``; NaN when the reference is zero or missing."""
    if not reference or math.isnan(reference) or math.isnan(value):
        return math.nan
    return value / reference
