"""Profile helper for misses in (a) and (c): what one dialog row costs (``probes.dialog_cost``).

Three runs of 200 rows each, in separate processes: the dialog shown with the app's style
sheet (as in the latency figure), shown with no style sheet (counterfactual), and hidden (as
in the memory figure: the app builds every card even while the window is closed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.child import Child

VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("shown, app style sheet", []),
    ("shown, no style sheet", ["--style", "none"]),
    ("hidden, app style sheet", ["--hidden"]),
)


def profile(scratch: Path, rows: int = 200) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, args in VARIANTS:
        argv = ["--rows", str(rows), *args]
        with Child("bench.probes.dialog_cost", argv, scratch, "dialog") as child:
            found = child.expect("dialog_cost", 600)
        out[label] = {
            "upsert_ms_rows_1_10": round(found["upsert_ms_first10"], 1),
            f"upsert_ms_rows_{rows - 9}_{rows}": round(found["upsert_ms_last10"], 1),
            "paint_turn_ms_rows_1_10": round(found["turn_ms_first10"], 1),
            f"paint_turn_ms_rows_{rows - 9}_{rows}": round(found["turn_ms_last10"], 1),
            "kib_per_row": round(found["kib_per_row"], 1),
        }
    return out
