"""The benchmark's pure helpers: statistics, table, /proc readers, parsers, transcript replay.

No timing is asserted anywhere: these prove the machinery computes what it says it computes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from bench import procfs, synthetic
from bench.figures import coldstart, throughput, wakeups
from bench.report import INFO, MISS, PASS, Row, judge, render, write_json
from bench.stats import median, percentile, ratio
from bench.transcripts import load_all


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 50) == 50
    assert percentile(values, 99) == 99
    assert percentile(values, 100) == 100
    assert percentile([7.0], 99) == 7.0
    assert math.isnan(percentile([], 50))


def test_percentile_keeps_infinitely_late_samples_visible():
    values = [1.0] * 98 + [math.inf, math.inf]
    assert percentile(values, 99) == math.inf


def test_median_and_ratio():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 2, 3]) == 2.5
    assert ratio(3.0, 2.0) == 1.5
    assert math.isnan(ratio(1.0, 0.0))


def test_table_has_the_six_columns_and_json_has_no_nan(tmp_path: Path):
    rows = [
        Row("x speed", 10.0, "ms", 5.0, 2.0, "< 50 ms", judge(True)),
        Row("y memory", 3.0, "MiB", math.nan, math.nan, "", INFO),
    ]
    text = render(rows)
    assert text.splitlines()[0].split(" | ")[0].strip() == "figure"
    assert "pass/miss" in text.splitlines()[0]
    assert "x speed" in text
    assert PASS in text
    assert judge(False) == MISS
    path = tmp_path / "out" / "bench.json"
    write_json(path, rows, {"mode": "test", "nan": math.nan})
    loaded = json.loads(path.read_text())
    assert loaded["rows"][1]["reference"] is None
    assert loaded["meta"]["nan"] is None


def test_procfs_reads_this_process():
    memory = procfs.memory()
    assert memory.rss_kib > 1000
    assert memory.anon_kib > 0
    switches = procfs.switches()
    assert switches.threads >= 1
    assert switches.voluntary >= 0


def test_transcripts_replay_feeds_every_incoming_frame():
    transcripts = load_all()
    assert transcripts, "the shared transcripts are missing"
    first = transcripts[:2]
    assert throughput.replay(first) == sum(len(t.frames) for t in first)
    assert throughput.parse_only(first[0].frames) == len(first[0].frames)


def test_synthetic_core_has_exactly_the_waiting_approvals():
    core = synthetic.core_with_waiting(12, per_session=5)
    assert sum(1 for a in core.approvals() if a.phase.name == "WAITING") == 12
    assert {a.session_id for a in core.approvals()} == {"s0", "s1", "s2"}
    core_s, json_s = throughput.delta_cost(3, frames=5)
    assert core_s > 0
    assert json_s > 0


def test_synthetic_core_observes_exactly_the_working_sessions_on_a_plan():
    core = synthetic.core_observing(4)
    assert core.observed_sessions == {f"t{n:07d}" for n in range(4)}
    assert core.link.at is not None  # working sessions are polled on a plan
    assert core.session("s0") is not None


def test_importtime_summary_takes_the_minimum_per_module():
    run_a = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:       100 |        100 |   desktop.core.model",
            "import time:       900 |       1000 | desktop.core",
            "import time:        50 |         50 | websockets",
        ]
    )
    run_b = run_a.replace("900 |       1000", "400 |        500")
    summary = coldstart.summarize_importtime([run_a, run_b])
    assert summary["self_ms_by_package"]["desktop"] == 0.5  # 100 + min(900, 400) us
    assert summary["slowest_modules_self_ms"]["desktop.core"] == 0.4


def test_wakeup_bursts_group_close_wakeups():
    times = [0.0, 0.01, 0.02, 20.0, 20.05, 40.0, 60.0]  # the last one is the end timer
    summary = wakeups.burst_summary({"awake_at": times})
    assert summary["bursts"] == 3
    assert summary["min_gap_between_bursts_s"] == 20.0


def test_core_size_counts_every_line_of_every_module(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "one.py").write_text("a = 1\n\nb = 2\n")
    (tmp_path / "sub" / "two.py").write_text("c = 3")  # no final newline: still a line
    (tmp_path / "notes.txt").write_text("not code\n")
    row = throughput.core_size_row(tmp_path)
    assert (row.value, row.details["modules"]) == (4, 2)
    assert row.verdict == PASS


def test_costs_by_kind_cover_every_frame_and_sum_to_the_whole() -> None:
    first = load_all()[:3]
    found = throughput.costs_by_kind(first)
    assert sum(row["frames"] for row in found.values()) == sum(len(t.frames) for t in first)
    assert math.isclose(sum(row["share"] for row in found.values()), 1.0)
    shares = [row["share"] for row in found.values()]
    assert shares == sorted(shares, reverse=True)
    assert throughput.frame_kind('{"jsonrpc":"2.0","method":"event","params":{"type":"x"}}') == (
        "event:x"
    )
    assert throughput.frame_kind('{"jsonrpc":"2.0","id":1,"result":{}}') == "response"
    assert throughput.frame_kind("[1]") == "other"
