"""The benchmark's child processes at tiny scale: they start, talk and report.

Each figure's machinery runs with a handful of samples against the real fake gateway, offscreen,
so a broken probe is caught by the test suite and not first by a four-minute benchmark run.
Nothing about speed or size is asserted.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.child import Child
from bench.config import BenchConfig
from bench.figures import coldstart, dialog, latency, memory, wakeups
from bench.lines import PREFIX

pytestmark = pytest.mark.slow

TINY = dataclasses.replace(
    BenchConfig(),
    latency_samples=2,
    latency_interval=0.05,
    latency_jitter=0.01,
    flood_rate=300.0,
    latency_sessions=2,
    default_coalesce_samples=1,
    drain_timeout=20.0,
    idle_baseline_s=0.5,
    load_sessions=2,
    load_approvals=2,
    settle=0.2,
    start_runs=1,
    idle_seconds=0.5,
    idle_settle=0.5,
    profile=False,
)


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[tuple[Child, str]]:
    child = Child("bench.probes.gateway", ["--lifetime", "120"], tmp_path, "gateway")
    try:
        url = child.expect("ready", 30)["url"]
        yield child, url
        child.send("quit")
        child.stop(grace=10)
    finally:
        child.stop(ask_first=False)


def test_latency_rows_cover_both_phases_and_the_floor(tmp_path, gateway):
    child, url = gateway
    rows = latency.measure(TINY, tmp_path, child, url)
    names = [r.figure for r in rows]
    assert any("flood" in n and "p99" in n and "row visible" in n for n in names)
    assert any("default coalesce" in n for n in names)
    latencies = [r for r in rows if "p50" in r.figure or "p99" in r.figure]
    for row in latencies:
        assert row.details["samples"] >= 1
        assert row.details["missing"] == 0, row
        assert not math.isnan(row.value)
    cpu = next(r for r in rows if r.figure.startswith("a app CPU per approval"))
    assert cpu.value > 0
    own = next(r for r in rows if r.figure.endswith("idle subtracted"))
    assert own.verdict == "info"  # what a person feels is the target, not CPU
    assert 0 <= own.value <= cpu.value
    assert own.details["idle_cpu_per_s"] >= 0
    alone = next(r for r in rows if "row visible p50 (alone)" in r.figure)
    assert alone.details["stages_ms"]["until the card is painted"]["p50"] > 0
    absorbed = next(r for r in rows if r.figure.startswith("a app absorbed flood rate"))
    assert absorbed.reference > 0
    flood = next(r for r in rows if "flood" in r.figure and "p99" in r.figure)
    assert flood.verdict in ("pass", "MISS")
    assert not math.isnan(flood.reference)


def test_memory_rows_reach_the_loaded_state(tmp_path, gateway):
    child, url = gateway
    idle, loaded = memory.measure(TINY, tmp_path, child, url)
    assert idle.details["bare"]["rss_kib"] > 0
    assert loaded.details["waiting"] >= 4
    parts = memory.parts(tmp_path, rows=3)
    assert parts["rss_by_startup_step"][0]["step"] == "python"


def test_cold_start_and_wakeups_report_for_app_and_reference(tmp_path, gateway):
    _child, url = gateway
    (row,), _ = coldstart.measure(TINY, tmp_path, url)
    assert len(row.details["app_s"]) == len(row.details["bare_s"]) == 1
    rows = wakeups.measure(TINY, tmp_path, url)
    assert rows[0].details["app"]["seconds"] > 0
    assert "app_bursts" in rows[0].details
    assert rows[1].figure == "e idle event-loop turns"


def test_dialog_cost_probe_reports_per_row(tmp_path):
    out = dialog.profile(tmp_path, rows=3)
    assert set(out) == {label for label, _ in dialog.VARIANTS}
    assert all(v["kib_per_row"] is not None for v in out.values())


@pytest.mark.parametrize("probe", ["dialog_alone", "list_floor"])
def test_offline_dialog_probes_report_cpu_per_approval(probe: str) -> None:
    argv = ["--approvals", "3", "--interval", "0.05", "--idle", "0.1"]
    done = subprocess.run(
        [sys.executable, "-m", f"bench.probes.{probe}", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(PREFIX)]
    assert len(lines) == 1, done.stdout + done.stderr
    report = json.loads(lines[0][len(PREFIX) :])
    assert report["event"] == probe
    assert report["approvals"] == 3
    assert report["cpu_ms_per_approval"] >= 0
    assert report["idle_cpu_per_s"] > 0  # the probe's own loops cost something, and are counted
