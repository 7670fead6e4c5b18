"""(c) Resident memory, idle and with 100 sessions x 10 approvals waiting, vs a bare tray app.

How: the bare reference (``bench.probes.bare_tray``) and the app (``bench.probes.app_entry``,
the real entry point) are separate processes started the same way. RSS is read from outside,
``/proc/<pid>/status`` VmRSS, ``settle`` seconds after each state is reached:

* bare: tray shown;
* app idle: tray shown and the gateway connected, nothing waiting;
* app loaded: the same process after it started ``load_sessions`` tasks through its own
  New-task slot, each asking ``load_approvals`` commands at once, and all of them wait.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench import procfs
from bench.child import Child
from bench.config import BenchConfig
from bench.report import Row, judge
from bench.stats import ratio

IDLE_TARGET, LOADED_TARGET = 1.3, 2.5  # issue 29: idle at most 1.3x the bare tray


def _mem(pid: int) -> dict[str, Any]:
    m = procfs.memory(pid)
    return {"rss_kib": m.rss_kib, "pss_kib": m.pss_kib, "anon_kib": m.anon_kib}


def measure(cfg: BenchConfig, scratch: Path, gateway: Child, url: str) -> list[Row]:
    with Child("bench.probes.bare_tray", [], scratch, "bare-memory") as bare:
        bare.expect("tray_shown", 60)
        time.sleep(cfg.settle)
        reference = _mem(bare.pid)
    load = f"{cfg.load_sessions},{cfg.load_approvals}"
    gateway.send("queue_batches", count=cfg.load_sessions, size=cfg.load_approvals)
    gateway.expect("queued", 10)
    args = ["--gateway", url, "--observe", "--load", load, "--load-delay", str(cfg.settle + 1)]
    with Child("bench.probes.app_entry", args, scratch, "app-memory") as app:
        app.expect("tray_shown", 60)
        connected = app.expect("connected", 60)
        time.sleep(cfg.settle)
        idle = _mem(app.pid)
        loaded_at = app.expect("loaded", 180)
        time.sleep(cfg.settle)
        loaded = _mem(app.pid)
    ref_mib = reference["rss_kib"] / 1024
    idle_mib, loaded_mib = idle["rss_kib"] / 1024, loaded["rss_kib"] / 1024
    total = cfg.load_sessions * cfg.load_approvals
    return [
        Row(
            "c RSS idle (connected, nothing waiting)",
            idle_mib,
            "MiB",
            ref_mib,
            ratio(idle_mib, ref_mib),
            f"<= {IDLE_TARGET:g}x",
            judge(ratio(idle_mib, ref_mib) <= IDLE_TARGET),
            {"app": idle, "bare": reference, "reference": "bare PySide6 tray app, tray shown"},
        ),
        Row(
            f"c RSS loaded ({cfg.load_sessions} sessions x {cfg.load_approvals} waiting)",
            loaded_mib,
            "MiB",
            ref_mib,
            ratio(loaded_mib, ref_mib),
            f"<= {LOADED_TARGET:g}x",
            judge(ratio(loaded_mib, ref_mib) <= LOADED_TARGET),
            {
                "app": loaded,
                "bare": reference,
                "waiting": loaded_at["waiting"],
                "wanted": total,
                "seconds_to_load": loaded_at["t"] - connected["t"] - (cfg.settle + 1),
            },
        ),
    ]


def parts(scratch: Path, rows: int) -> dict[str, Any]:
    """Run ``bench.probes.memory_parts``: RSS by start-up step, and per row (core vs dialog).

    Steps marked ``first use`` are what the app loads only when needed (a token, the first
    notification, the dialogs); ``idle_path_mib`` is the RSS once every idle step has run.
    """
    with Child("bench.probes.memory_parts", ["--rows", str(rows)], scratch, "memory-parts") as c:
        found = c.expect("memory_parts", 180)
    steps, previous, idle_kib = [], 0, 0
    for step in found["steps"]:
        steps.append(
            {
                "step": step["step"],
                "when": step.get("when", ""),
                "rss_mib": round(step["rss_kib"] / 1024, 1),
                "added_mib": round((step["rss_kib"] - previous) / 1024, 1),
            }
        )
        if step.get("when") == "idle":
            idle_kib = step["rss_kib"]
        previous = step["rss_kib"]
    return {
        "rss_by_startup_step": steps,
        "idle_path_mib": round(idle_kib / 1024, 1),
        "source_cache_entries": found.get("linecache_entries"),
        f"core_state_for_{rows}_waiting_mib": round(found["core_kib"] / 1024, 1),
        f"dialog_widgets_for_{rows}_waiting_mib": round(found["dialog_kib"] / 1024, 1),
        "dialog_kib_per_row": round(found["dialog_kib"] / max(1, rows), 1),
    }
