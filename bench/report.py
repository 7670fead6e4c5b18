"""The result table: one :class:`Row` per figure, printed and written as JSON.

Why value, reference and ratio side by side: on a noisy shared machine an absolute number
means little on its own; the ratio to a reference measured in the same run is the figure that
is compared with its target, wherever a reference exists.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PASS, MISS, INFO = "pass", "MISS", "info"


@dataclass
class Row:
    """One line of the table.

    ``verdict`` is ``pass``/``MISS`` when the figure has a target, ``info`` otherwise.
    ``details`` holds everything that explains the figure (JSON only).
    """

    figure: str
    value: float
    unit: str
    reference: float = math.nan
    ratio: float = math.nan
    target: str = ""
    verdict: str = INFO
    details: dict[str, Any] = field(default_factory=dict)


def judge(ok: bool) -> str:
    return PASS if ok else MISS


def _num(value: float, unit: str = "") -> str:
    if math.isnan(value):
        return "-"
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()


def render(rows: Sequence[Row]) -> str:
    """The table as aligned plain text: figure | value | reference | ratio | target | pass/miss."""
    header = ("figure", "value", "reference", "ratio", "target", "pass/miss")
    lines = [
        (
            r.figure,
            _num(r.value, r.unit),
            _num(r.reference, r.unit),
            _num(r.ratio),
            r.target or "-",
            r.verdict,
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out = [" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    out.append("-+-".join("-" * w for w in widths))
    out.extend(" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines)
    return "\n".join(out)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_json(path: Path, rows: Sequence[Row], meta: dict[str, Any]) -> None:
    """Write ``{"meta": ..., "rows": [...]}`` (NaN becomes null)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(_clean(payload), indent=2) + "\n", encoding="utf-8")
