"""(f) Scale: 10,000 approvals waiting across 100 sessions (issue 16's targets).

Two runs, both against the bare PySide6 tray started the same way (RSS reference):

* **app side** (``bench.probes.app_side``): the real bridge, shell, tray and dialog fed the
  core's events directly, so the figure is the app's own cost (the core has its own budget);
* **end to end** (below): through the fake gateway, the real client and the core.

End to end: the fake gateway queues ``scale_sessions`` turns of ``scale_approvals`` commands
each; the app (its real entry point, ``bench.probes.app_entry``) starts that many tasks through
its own New-task slot and prints ``loaded`` once all of them wait. The bench then reads:

* **CPU settle**: the app's CPU time (``/proc/<pid>/stat``) in 0.5 s steps after ``loaded``;
  the figure is the end of the first whole second in which it used under 1 % of one core.
* **RSS** (VmRSS) once settled, against the bare PySide6 tray started the same way.
* **Dialog first rows**: ``scale_watch`` seconds after ``loaded`` the probe opens the dialog as
  a tray click does and prints when a row card is first visible (one loop turn after it is).
* **CPU per approval** during the burst: CPU from connect to ``loaded`` over the approvals
  (information, not a target).
* **Tracebacks** in the app's stderr over the whole run (target: none, at any size).
"""

from __future__ import annotations

import time
from pathlib import Path

from bench import procfs
from bench.child import Child, ChildError
from bench.config import BenchConfig
from bench.report import MISS, Row, judge
from bench.stats import ratio

RSS_TARGET = 3.0
SETTLE_TARGET_S = 5.0
OPEN_TARGET_MS = 1000.0
IDLE_CPU = 0.01  # "under 1 %" of one core


def _settle(pid: int, start: float, watch: float) -> tuple[float | None, list[list[float]]]:
    """Seconds after ``start`` at which a whole second used under 1 % CPU (None: never)."""
    samples: list[list[float]] = []
    deadline = start + watch
    while time.monotonic() < deadline:
        samples.append([time.monotonic() - start, procfs.cpu_seconds(pid)])
        for (t0, c0), (t1, c1) in zip(samples, samples[2:], strict=False):
            if t1 - t0 >= 0.95 and (c1 - c0) / (t1 - t0) < IDLE_CPU:
                return t1, samples
        time.sleep(0.5)
    return None, samples


def measure(cfg: BenchConfig, scratch: Path, gateway: Child, url: str) -> list[Row]:
    with Child("bench.probes.bare_tray", [], scratch, "bare-scale") as bare:
        bare.expect("tray_shown", 60)
        time.sleep(cfg.settle)
        bare_mib = procfs.memory(bare.pid).rss_mib
    rows = _app_side(cfg, scratch, bare_mib)
    try:
        rows += _end_to_end(cfg, scratch, gateway, url, bare_mib)
    except ChildError as exc:
        rows.append(
            Row(
                f"f end to end: {cfg.scale_sessions * cfg.scale_approvals:,} approvals waiting",
                float("inf"),
                "s",
                target=f"loaded within {cfg.scale_load_timeout:g} s",
                verdict=MISS,
                details={"error": str(exc)},
            )
        )
    return rows


def _app_side(cfg: BenchConfig, scratch: Path, bare_mib: float) -> list[Row]:
    sessions, per = cfg.scale_sessions, cfg.scale_approvals
    args = ["--sessions", str(sessions), "--approvals", str(per), "--watch", str(cfg.scale_watch)]
    with Child("bench.probes.app_side", args, scratch, "app-side") as probe:
        probe.expect("ready", 60)
        fed = probe.expect("fed", 600)
        settled = probe.expect("settled", cfg.scale_watch + 30)
        opened = probe.expect("opened", 60)
        probe.stop(grace=10)
    log = probe.stderr_path.read_text(encoding="utf-8", errors="replace")
    tracebacks = log.count("Traceback (most recent call last)")
    label = f"app side, {sessions * per:,} waiting"
    per_ms = float(fed["cpu_s"]) / max(1, int(fed["approvals"])) * 1000
    settle_s = settled["seconds"] if settled.get("seconds") is not None else float("inf")
    open_ms = opened["ms"] if opened.get("ms") is not None else float("inf")
    rss, rss_open = float(settled["rss_mib"]), float(opened["rss_mib"])
    return [
        Row(
            f"f RSS, {label}",
            rss,
            "MiB",
            bare_mib,
            ratio(rss, bare_mib),
            f"<= {RSS_TARGET:g}x",
            judge(ratio(rss, bare_mib) <= RSS_TARGET),
            {"waiting": fed.get("waiting"), "reference": "bare PySide6 tray app, tray shown"},
        ),
        Row(
            f"f RSS, {label}, dialog open",
            rss_open,
            "MiB",
            bare_mib,
            ratio(rss_open, bare_mib),
            f"<= {RSS_TARGET:g}x",
            judge(ratio(rss_open, bare_mib) <= RSS_TARGET),
            {"cards_built": opened.get("cards")},
        ),
        Row(
            f"f dialog shows rows after opening, {label}",
            open_ms,
            "ms",
            target=f"<= {OPEN_TARGET_MS:g} ms",
            verdict=judge(open_ms <= OPEN_TARGET_MS),
        ),
        Row(
            f"f CPU < 1 % after the burst, {label}",
            settle_s,
            "s",
            target=f"<= {SETTLE_TARGET_S:g} s",
            verdict=judge(settle_s <= SETTLE_TARGET_S),
        ),
        Row(
            f"f CPU per approval arriving, {label}",
            per_ms,
            "ms",
            details={"cpu_s": fed["cpu_s"], "wall_s": fed["wall_s"]},
        ),
        Row(
            f"f tracebacks, {label}",
            float(tracebacks),
            "",
            target="0",
            verdict=judge(tracebacks == 0),
        ),
    ]


def _end_to_end(
    cfg: BenchConfig, scratch: Path, gateway: Child, url: str, bare_mib: float
) -> list[Row]:
    sessions, per = cfg.scale_sessions, cfg.scale_approvals
    total = sessions * per
    gateway.send("queue_batches", count=sessions, size=per)
    gateway.expect("queued", 10)
    args = [
        "--gateway", url, "--observe", "--load", f"{sessions},{per}",
        "--load-delay", "1", "--open-after", str(cfg.scale_watch),
    ]  # fmt: skip
    with Child("bench.probes.app_entry", args, scratch, "app-scale") as app:
        app.expect("tray_shown", 60)
        app.expect("connected", 60)
        cpu_start = procfs.cpu_seconds(app.pid)
        loaded = app.expect("loaded", cfg.scale_load_timeout)
        cpu_loaded = procfs.cpu_seconds(app.pid)
        settled, samples = _settle(app.pid, float(loaded["t"]), cfg.scale_watch - 0.5)
        rss_waiting = procfs.memory(app.pid).rss_mib
        opened = app.expect("dialog_open", 120)
        time.sleep(1.0)
        rss_open = procfs.memory(app.pid).rss_mib
        app.stop(grace=10)
    log = app.stderr_path.read_text(encoding="utf-8", errors="replace")
    tracebacks = log.count("Traceback (most recent call last)")
    open_ms = (float(opened.get("first_rows", "nan")) - float(opened.get("t", "nan"))) * 1000
    settle_value = settled if settled is not None else float("inf")
    per_ms = (cpu_loaded - cpu_start) / total * 1000
    label = f"end to end, {total:,} waiting"
    return [
        Row(
            f"f RSS, {label}",
            rss_waiting,
            "MiB",
            bare_mib,
            ratio(rss_waiting, bare_mib),
            f"<= {RSS_TARGET:g}x",
            judge(ratio(rss_waiting, bare_mib) <= RSS_TARGET),
            {"waiting": loaded.get("waiting"), "reference": "bare PySide6 tray app, tray shown"},
        ),
        Row(
            f"f RSS, {label}, dialog open",
            rss_open,
            "MiB",
            bare_mib,
            ratio(rss_open, bare_mib),
            f"<= {RSS_TARGET:g}x",
            judge(ratio(rss_open, bare_mib) <= RSS_TARGET),
            {"cards_built": opened.get("cards"), "rows": opened.get("rows")},
        ),
        Row(
            f"f dialog shows rows after opening, {label}",
            open_ms,
            "ms",
            target=f"<= {OPEN_TARGET_MS:g} ms",
            verdict=judge(open_ms <= OPEN_TARGET_MS),
            details=dict(opened),
        ),
        Row(
            f"f CPU < 1 % after the burst, {label}",
            settle_value,
            "s",
            target=f"<= {SETTLE_TARGET_S:g} s",
            verdict=judge(settle_value <= SETTLE_TARGET_S),
            details={"cpu_samples_s": [[round(t, 2), round(c, 3)] for t, c in samples]},
        ),
        Row(
            f"f CPU per approval, core included, {label}",
            per_ms,
            "ms",
            details={"cpu_s": cpu_loaded - cpu_start, "approvals": total},
        ),
        Row(
            f"f tracebacks, {label}",
            float(tracebacks),
            "",
            target="0",
            verdict=judge(tracebacks == 0),
        ),
    ]
