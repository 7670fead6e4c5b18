"""``python -m bench [--quick] [--idle-seconds N] [--only a,b,c,d,e] [--json PATH]``.

Runs the figures in an order that keeps them from disturbing each other: the CPU-bound core
throughput first (nothing else running), then the child-process figures against one fake
gateway process, the idle wake-ups last. Prints the table, then — for every missed target —
the profile that says where the time or memory goes. Writes everything to
``artifacts/bench.json``.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench import profiling
from bench.child import Child, ChildError
from bench.config import BenchConfig
from bench.env import ROOT, scratch_dir
from bench.report import MISS, Row, render, write_json

FIGURES = ("a", "b", "c", "d", "e", "f")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small samples, 5 s idle window")
    parser.add_argument("--idle-seconds", type=float, default=None, help="idle window (e)")
    parser.add_argument("--only", default=",".join(FIGURES), help="figures to run, e.g. a,c")
    parser.add_argument("--no-profile", action="store_true", help="skip profiles of misses")
    parser.add_argument("--json", default=str(ROOT / "artifacts" / "bench.json"))
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (logs)")
    return parser.parse_args(argv)


def config(args: argparse.Namespace) -> BenchConfig:
    cfg = BenchConfig().quick() if args.quick else BenchConfig()
    overrides: dict[str, Any] = {}
    if args.idle_seconds is not None:
        overrides["idle_seconds"] = args.idle_seconds
    if args.no_profile:
        overrides["profile"] = False
    return BenchConfig(**{**cfg.__dict__, **overrides}) if overrides else cfg


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def run(cfg: BenchConfig, only: set[str], scratch: Path) -> tuple[list[Row], dict[str, Any]]:
    from bench.figures import coldstart, dialog, latency, memory, scale, throughput, wakeups

    rows: list[Row] = []
    profiles: dict[str, Any] = {}
    if "b" in only:
        _say("(b) core throughput ...")
        found, extra = throughput.measure(cfg)
        rows += found
        if "profile" in extra:
            profiles["b core throughput"] = extra["profile"]
    if only & {"a", "c", "d", "f"}:
        with Child("bench.probes.gateway", [], scratch, "gateway") as gateway:
            url = gateway.expect("ready", 30)["url"]
            if "a" in only:
                _say("(a) latency: floor, app alone and under flood, default coalescing ...")
                found = latency.measure(cfg, scratch, gateway, url)
                rows += found
                if cfg.profile and any(r.verdict == MISS for r in found):
                    _say("(a) profiling the app under the flood ...")
                    profiles["a latency under flood"] = latency.profile_flood(
                        cfg, scratch, gateway, url
                    )
            if "c" in only:
                _say("(c) memory: bare, app idle, app loaded ...")
                found = memory.measure(cfg, scratch, gateway, url)
                rows += found
                if cfg.profile and any(r.verdict == MISS for r in found):
                    profiles["c memory"] = memory.parts(
                        scratch, cfg.load_sessions * cfg.load_approvals
                    )
            missed = {r.figure[0] for r in rows if r.verdict == MISS}
            if cfg.profile and missed & {"a", "c"}:
                _say("(a/c) profiling the approval dialog ...")
                profiles["a/c approval dialog, per row"] = dialog.profile(scratch)
            if "d" in only:
                _say("(d) cold start ...")
                found, extra = coldstart.measure(cfg, scratch, url)
                rows += found
                if "imports" in extra:
                    profiles["d cold start (imports)"] = extra["imports"]
                if "startup" in extra:
                    profiles["d cold start (start-up steps)"] = extra["startup"]
            if "f" in only:
                _say("(f) scale: many approvals waiting at once ...")
                rows += scale.measure(cfg, scratch, gateway, url)
            gateway.send("quit")
            gateway.stop(grace=10)
    if "e" in only:
        # A gateway of its own: the app follows every live session, and the sessions (c) and
        # (f) leave waiting on the shared one would make the "idle" app take in 10,000 rows.
        _say(f"(e) idle wake-ups, {cfg.idle_seconds:g} s ...")
        with Child("bench.probes.gateway", [], scratch, "gateway-idle") as idle_gateway:
            idle_url = idle_gateway.expect("ready", 30)["url"]
            rows += wakeups.measure(cfg, scratch, idle_url)
            idle_gateway.send("quit")
            idle_gateway.stop(grace=10)
    return rows, profiles


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    cfg = config(args)
    only = {f.strip() for f in args.only.split(",") if f.strip()} & set(FIGURES)
    scratch = scratch_dir()
    started = time.monotonic()
    load_at_start = _loadavg()
    try:
        rows, profiles = run(cfg, only, scratch)
    except ChildError as exc:
        _say(f"bench failed: {exc}")
        for log in sorted(scratch.glob("*.stderr.log")):
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-8:]
            _say(f"--- {log.name}\n" + "\n".join(tail))
        _say(f"(child logs kept in {scratch})")
        return 1
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    meta = {
        "mode": "quick" if args.quick else "full",
        "config": cfg.__dict__,
        "platform": "QT_QPA_PLATFORM=offscreen (no system tray, no D-Bus session bus)",
        "python": sys.version.split()[0],
        "machine": platform.platform(),
        "cpus": _cpus(),
        "seconds": round(time.monotonic() - started, 1),
        "profiles": profiles,
        "scratch": str(scratch) if args.keep else "",
        "git": _git(),
        "loadavg_at_start_end": [load_at_start, _loadavg()],
    }
    write_json(Path(args.json), rows, meta)
    out = [render(rows), ""]
    for name, summary in profiles.items():
        out.append(f"profile for the miss in {name}:")
        out.append(_profile_text(summary))
    out.append(f"({meta['mode']} run, {meta['seconds']} s, offscreen; JSON: {args.json})")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _profile_text(summary: dict[str, Any]) -> str:
    """Profiles from cProfile get their own layout; others print as indented key: value."""
    if "top_own" in summary:
        return profiling.text(summary)
    lines: list[str] = []

    def walk(value: Any, indent: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, dict | list):
                    lines.append(f"{indent}{key}:")
                    walk(item, indent + "  ")
                else:
                    lines.append(f"{indent}{key}: {item}")
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    lines.append(indent + ", ".join(f"{k} {v}" for k, v in item.items()))
                else:
                    lines.append(f"{indent}{item}")

    walk(summary, "  ")
    return "\n".join(lines)


def _git() -> dict[str, Any]:
    """The commit measured, and how many files of the app differ from it (others edit too)."""
    import subprocess

    def git(*argv: str) -> str:
        done = subprocess.run(
            ["git", *argv], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
        return done.stdout.strip()

    dirty = [line for line in git("status", "--porcelain", "--", "desktop").splitlines() if line]
    return {"commit": git("rev-parse", "--short", "HEAD"), "desktop_files_modified": len(dirty)}


def _loadavg() -> str:
    """The machine's load (other people's work counts too): noise context for the figures."""
    try:
        return Path("/proc/loadavg").read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0))
