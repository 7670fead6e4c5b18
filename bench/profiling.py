"""Summaries of cProfile runs: where the time of a missed figure goes, in a few lines.

Why cProfile (and not a sampler): it ships with Python, works inside the child processes and
attributes time to exact functions. It inflates the cost of many tiny Python calls, so the
summaries are read as *shares* (which code dominates), never as absolute times.
"""

from __future__ import annotations

import pstats
from collections import defaultdict
from pathlib import Path
from typing import Any

# Buckets by file path or builtin name; first match wins.
BUCKETS = (
    ("desktop/ui/approvals", "dialog (desktop/ui/approvals)"),
    ("desktop/ui", "tray, bridge, notifications (desktop/ui)"),
    ("desktop/core", "core (desktop/core)"),
    ("desktop/gateway", "client (desktop/gateway)"),
    ("websockets", "websockets"),
    ("qasync", "qasync"),
    ("asyncio", "asyncio"),
    ("json", "json"),
    ("PySide6.QtWidgets", "Qt widgets (C++ via PySide6)"),
    ("PySide6", "Qt other (C++ via PySide6)"),
    ("enum", "enum"),
    ("dataclasses", "dataclasses"),
)


def _bucket(filename: str, name: str) -> str:
    where = f"{filename} {name}"
    for needle, label in BUCKETS:
        if needle in where:
            return label
    return "other"


_REPO_PREFIX = str(Path(__file__).resolve().parents[1]) + "/"


def _label(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    short = filename.split("/site-packages/")[-1].removeprefix(_REPO_PREFIX)
    return f"{short}:{line}({name})"


# The Qt event loop itself (QApplication.exec): its own time is Qt's C++ work (layout, paint)
# plus idle waiting, which cProfile cannot tell apart.
EVENT_LOOP = (
    "<built-in method exec>",
    "<method 'exec' of 'PySide6.QtWidgets.QApplication' objects>",
)


def summarize(path: Path, top: int = 12) -> dict[str, Any]:
    """Top functions by own time and by cumulative time, plus own time per bucket."""
    stats = pstats.Stats(str(path))
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = []
    buckets: dict[str, float] = defaultdict(float)
    total = 0.0
    for func, (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        label = _label(func)
        if label in EVENT_LOOP:
            continue
        rows.append((label, ncalls, tottime, cumtime))
        buckets[_bucket(func[0], func[2])] += tottime
        total += tottime
    by_own = sorted(rows, key=lambda r: r[2], reverse=True)[:top]
    by_cum = sorted(
        (r for r in rows if r[0].startswith("desktop/")),
        key=lambda r: r[3],
        reverse=True,
    )[:top]
    return {
        "python_seconds": total,
        "own_time_share": {
            k: round(v / total, 3) for k, v in sorted(buckets.items(), key=lambda kv: -kv[1])
        }
        if total
        else {},
        "top_own": [_row(r) for r in by_own],
        "top_cumulative_app": [_row(r) for r in by_cum],
    }


def _row(r: tuple[str, int, float, float]) -> dict[str, Any]:
    return {"function": r[0], "calls": r[1], "own_s": round(r[2], 4), "cum_s": round(r[3], 4)}


def text(summary: dict[str, Any], lines: int = 8) -> str:
    """A compact multi-line rendering for the console."""
    out = [f"  Python time profiled: {summary.get('python_seconds', 0):.2f} s"]
    shares = summary.get("own_time_share", {})
    out.append(
        "  own time by area: " + ", ".join(f"{k} {v:.0%}" for k, v in list(shares.items())[:6])
    )
    out.append("  top own time:")
    out.extend(
        f"    {r['own_s']:7.3f} s {r['calls']:>7} calls  {r['function']}"
        for r in summary.get("top_own", [])[:lines]
    )
    out.append("  top cumulative (app code):")
    out.extend(
        f"    {r['cum_s']:7.3f} s {r['calls']:>7} calls  {r['function']}"
        for r in summary.get("top_cumulative_app", [])[:lines]
    )
    return "\n".join(out)
