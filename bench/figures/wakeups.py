"""(e) Wake-ups while idle: the app connected, nothing waiting, for ``idle_seconds``.

How: inside the app process (real entry point) a ``WakeCounter`` (``bench.probes.hooks``)
counts the Qt event dispatcher's ``awake`` signals — qasync runs asyncio on Qt's loop, so
asyncio timers and socket reads wake it the same way — plus every event delivered (by type
and receiver class, which names the timer or socket that woke it) and the context switches of
all threads. The window starts ``idle_settle`` s after the gateway connected. The bare tray
app is measured at the same time, the same way, as the reference.

A wake-up is one time the process leaves its sleep: loop turns closer than 0.1 s to each
other are one wake-up (a keepalive ping is a timer, a task step, the pong's socket read and
one more step, all within a millisecond or two). The loop turns themselves are an info row.

Target (issue 29): at most 0.1 wake-up/s while connected and nothing waits; the keepalive's
ping (every 20 s at the idle pace) is the only periodic one left. The window's own end timer
wakes each process once; that one is subtracted (``BENCH_OWN``) from both.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

from bench.child import Child
from bench.config import BenchConfig
from bench.report import Row, judge
from bench.stats import ratio

TARGET_PER_S = 0.1
BENCH_OWN = 1  # the window's end timer


def measure(cfg: BenchConfig, scratch: Path, url: str) -> list[Row]:
    window = f"{cfg.idle_settle},{cfg.idle_seconds}"
    timeout = cfg.idle_settle + cfg.idle_seconds + 60
    app_args = ["--gateway", url, "--observe", "--wake", window]
    with (
        Child("bench.probes.app_entry", app_args, scratch, "app-idle") as app,
        Child("bench.probes.bare_tray", ["--wake", window], scratch, "bare-idle") as bare,
    ):
        app_result = app.expect("wake_window", timeout)
        bare_result = bare.expect("wake_window", timeout)
    app_turns = max(0, app_result["awake"] - BENCH_OWN) / app_result["seconds"]
    bare_turns = max(0, bare_result["awake"] - BENCH_OWN) / bare_result["seconds"]
    app_bursts, bare_bursts = burst_summary(app_result), burst_summary(bare_result)
    app_rate = app_bursts["bursts"] / app_result["seconds"]
    bare_rate = bare_bursts["bursts"] / bare_result["seconds"]
    switches = _per_s(app_result, "voluntary_ctxt"), _per_s(bare_result, "voluntary_ctxt")
    return [
        Row(
            f"e idle wake-ups ({cfg.idle_seconds:g} s window)",
            app_rate,
            "/s",
            bare_rate,
            ratio(app_rate, bare_rate),
            f"<= {TARGET_PER_S:g}/s",
            judge(app_rate <= TARGET_PER_S),
            {
                "app": app_result,
                "bare": bare_result,
                "app_bursts": app_bursts,
                "bare_bursts": bare_bursts,
                "bench_own_wakeups_subtracted": BENCH_OWN,
            },
        ),
        Row(
            "e idle event-loop turns",
            app_turns,
            "/s",
            bare_turns,
            ratio(app_turns, bare_turns),
            "",
            "info",
        ),
        Row(
            "e idle voluntary context switches (all threads)",
            switches[0],
            "/s",
            switches[1],
            ratio(*switches),
            "",
            "info",
            {"app_threads": app_result["threads"], "bare_threads": bare_result["threads"]},
        ),
    ]


def bursts(times: list[float], gap: float = 0.1) -> list[float]:
    """Start times of wake-up bursts (wake-ups closer than ``gap`` s belong to one burst)."""
    starts: list[float] = []
    previous = -math.inf
    for t in sorted(times):
        if t - previous > gap:
            starts.append(t)
        previous = t
    return starts


def burst_summary(result: dict[str, Any]) -> dict[str, Any]:
    """How the wake-ups cluster: a periodic source shows as evenly spaced bursts."""
    starts = bursts(result.get("awake_at", [])[:-1])  # the last one is the window's end timer
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    return {
        "bursts": len(starts),
        "burst_starts_s": [round(t, 2) for t in starts[:30]],
        "min_gap_between_bursts_s": round(min(gaps), 2) if gaps else None,
    }


def _per_s(result: dict[str, Any], key: str) -> float:
    return float(result[key]) / float(result["seconds"])
