"""Counts of what the safety campaign ran, for the terminal summary (``conftest.py``).

Why a module-level tally: the counts come from many tests (seeded runs per dialect, hypothesis
examples, end-to-end scenarios, planted bugs) and CI must *print* the total, so a reader of
the log sees how much was actually exercised, not just "passed".
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

SCALE_ENV = "HERMES_TRAY_CAMPAIGN_SCALE"


def campaign_scale() -> float:
    """``$HERMES_TRAY_CAMPAIGN_SCALE`` (default 1): multiplies every campaign's size."""
    raw = os.environ.get(SCALE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{SCALE_ENV} must be a number, not {raw!r}") from None
    if not 0 < value <= 10_000:
        raise ValueError(f"{SCALE_ENV} must be in (0, 10000], not {value}")
    return value


def scaled(count: int, *, minimum: int = 1) -> int:
    return max(minimum, round(count * campaign_scale()))


@dataclass
class Layer:
    runs: int = 0
    steps: int = 0
    violations: int = 0
    seconds: float = 0.0


@dataclass
class Tally:
    layers: dict[str, Layer] = field(default_factory=dict)
    planted: list[str] = field(default_factory=list)

    def add(self, layer: str, *, runs: int, steps: int, violations: int, seconds: float) -> None:
        entry = self.layers.setdefault(layer, Layer())
        entry.runs += runs
        entry.steps += steps
        entry.violations += violations
        entry.seconds += seconds

    def lines(self) -> list[str]:
        out = []
        for name, layer in sorted(self.layers.items()):
            out.append(
                f"  {name}: {layer.runs:,} runs, {layer.steps:,} steps, "
                f"{layer.violations} violations, {layer.seconds:.1f}s"
            )
        out += [f"  planted bug: {line}" for line in self.planted]
        runs = sum(layer.runs for layer in self.layers.values())
        steps = sum(layer.steps for layer in self.layers.values())
        violations = sum(layer.violations for layer in self.layers.values())
        out.append(
            f"safety campaign: {steps:,} interleavings ({runs:,} runs), {violations} violations"
        )
        return out


TALLY = Tally()
