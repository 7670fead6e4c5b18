"""(d) Cold start to "tray icon shown", as a ratio to the bare tray app started the same way.

"Shown" (both programs, ``bench.probes.hooks``): ``QSystemTrayIcon.show()`` returned and one
event-loop turn ran after it. The clock starts in the parent just before the fork
(``Child.started_at``) and stops at the child's marker; both are ``time.monotonic()``, which is
system-wide. Offscreen has no system tray, so nothing is drawn; the figure is the time until
the program *asked* for its icon and its loop was running.

Runs alternate bare/app after one unmeasured warm-up each (page cache, .pyc files), and the
medians are compared. The app starts through ``desktop.cli.main`` with ``--gateway`` pointing
at the running fake gateway, so no discovery is timed (the gateway connection itself happens
after the icon is shown and is not part of the figure).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench import profiling
from bench.child import Child
from bench.config import BenchConfig
from bench.env import ROOT, child_env, python
from bench.report import Row, judge
from bench.stats import median, ratio

TARGET = 2.0  # issue 29


def _once(module: str, args: list[str], scratch: Path, name: str) -> float:
    child = Child(module, args, scratch, name)
    try:
        marker = child.expect("tray_shown", 60)
        return float(marker["t"]) - child.started_at
    finally:
        child.kill()


def measure(cfg: BenchConfig, scratch: Path, url: str) -> tuple[list[Row], dict[str, Any]]:
    programs = {
        "bare": ("bench.probes.bare_tray", []),
        "app": ("bench.probes.app_entry", ["--gateway", url]),
    }
    times: dict[str, list[float]] = {"bare": [], "app": []}
    for run in range(cfg.start_runs + 1):
        for name, (module, args) in programs.items():
            seconds = _once(module, args, scratch, f"start-{name}")
            if run:  # run 0 is the warm-up
                times[name].append(seconds)
    app, bare = median(times["app"]), median(times["bare"])
    figure = ratio(app, bare)
    row = Row(
        "d cold start to tray shown",
        app * 1000,
        "ms",
        bare * 1000,
        figure,
        f"<= {TARGET:g}x",
        judge(figure <= TARGET),
        {"app_s": times["app"], "bare_s": times["bare"], "shown": "show() returned + 1 loop turn"},
    )
    extra: dict[str, Any] = {}
    if cfg.profile and figure > TARGET:
        extra["imports"] = import_profile(scratch, url)
        extra["startup"] = startup_profile(scratch, url)
    return [row], extra


def startup_profile(scratch: Path, url: str) -> dict[str, Any]:
    """One app start under cProfile, process start to tray marker: which steps cost."""
    path = Path(tempfile.mkstemp(prefix="startup-", suffix=".prof", dir=scratch)[1])
    args = ["--gateway", url, "--profile", str(path)]
    child = Child("bench.probes.app_entry", args, scratch, "start-profile")
    try:
        child.expect("profiled", 60)
    finally:
        child.kill()
    return profiling.summarize(path, top=15)


def import_profile(scratch: Path, url: str, runs: int = 3, top: int = 15) -> dict[str, Any]:
    """``python -X importtime`` of app starts: what costs the most to import.

    Each module's time is the minimum over ``runs`` starts (noise only ever adds time).
    """
    texts = [_importtime_once(scratch, url) for _ in range(runs)]
    return summarize_importtime(texts, top)


def _importtime_once(scratch: Path, url: str) -> str:
    log = Path(tempfile.mkstemp(prefix="importtime-", suffix=".log", dir=scratch)[1])
    argv = [python(), "-X", "importtime", "-m", "bench.probes.app_entry", "--gateway", url]
    with log.open("wb") as err:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=child_env(scratch), stdout=subprocess.PIPE, stderr=err
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if b"tray_shown" in line:
                    break
        finally:
            proc.kill()
            proc.wait(timeout=10)
    return log.read_text(encoding="utf-8", errors="replace")


def parse_importtime(text: str) -> dict[str, int]:
    """Module -> self time in microseconds, from ``-X importtime`` output."""
    selfs: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3 or "self [us]" in line:
            continue
        selfs[parts[2].strip()] = int(parts[0].split(":")[1])
    return selfs


def summarize_importtime(texts: list[str], top: int = 15) -> dict[str, Any]:
    """Import self time summed per package (minimum per module over runs), slowest modules."""
    runs = [parse_importtime(t) for t in texts]
    modules = set.intersection(*(set(r) for r in runs)) if runs else set()
    best = {m: min(r[m] for r in runs) for m in modules}
    packages: dict[str, int] = {}
    for module, micros in best.items():
        root = module.split(".")[0]
        packages[root] = packages.get(root, 0) + micros
    ranked = sorted(packages.items(), key=lambda kv: -kv[1])
    return {
        "total_import_ms": round(sum(best.values()) / 1000, 1),
        "self_ms_by_package": {k: round(v / 1000, 1) for k, v in ranked[:top]},
        "slowest_modules_self_ms": {
            m: round(us / 1000, 1) for m, us in sorted(best.items(), key=lambda kv: -kv[1])[:top]
        },
    }
