"""(b) Core throughput on the real frame mix, as a ratio to plain ``json.loads``.

How: every incoming frame of every shared transcript is replayed, in order, through a fresh
``GatewayCore`` per transcript (connection notes open/lose the connection as recorded), with
``receive_text`` then ``events_received`` and ``data_to_send`` drained after each frame, as
the client's pump does. The reference parses the very same texts with ``json.loads``. Rounds
alternate reference and core so drift on a noisy machine hits both; the median of the
per-round ratios is the figure.

Also: the size of ``desktop/core`` (lines and modules), whose target issue 11 set at "smaller
than 4,284 lines", and (information, no target) the core's cost per frame of three inputs
(``message.delta``, a tool call's start and end, an approval asked and withdrawn) while N
approvals wait in other sessions, which shows whether per-frame work grows with them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bench import synthetic
from bench.config import BenchConfig
from bench.report import INFO, Row, judge
from bench.stats import median, ratio
from bench.transcripts import Transcript, load_all

CORE = Path(__file__).resolve().parents[2] / "desktop" / "core"
CORE_LINES_TARGET = 4284  # desktop/core when issue 11 was filed (36 modules)


def replay(transcripts: list[Transcript]) -> int:
    """Feed every transcript through a fresh core; returns the frames fed."""
    from desktop.core.gateway_core import GatewayCore

    fed = 0
    for transcript in transcripts:
        core = GatewayCore(clock=time.monotonic)
        for step in transcript.steps:
            if step.kind == "in":
                core.receive_text(step.text)
                core.events_received()
                core.data_to_send()
                fed += 1
            elif step.kind == "open":
                core.connection_opened(step.conn)
            else:
                core.connection_lost()
    return fed


def frame_kind(text: str) -> str:
    """``event:<type>``, ``request:<method>``, ``response`` or ``other``, read with json.loads."""
    try:
        frame = json.loads(text)
    except ValueError:
        return "other"
    if not isinstance(frame, dict):
        return "other"
    method = frame.get("method")
    if method == "event":
        params = frame.get("params")
        return f"event:{params.get('type') if isinstance(params, dict) else None}"
    if isinstance(method, str):
        return f"request:{method}"
    return "response" if "id" in frame else "other"


def costs_by_kind(transcripts: list[Transcript]) -> dict[str, dict[str, float]]:
    """Per kind of frame: frames, core and json.loads µs each, and its share of the core's time.

    Where to look when the mix misses: the kinds whose core cost is far above their parse.
    """
    from desktop.core.gateway_core import GatewayCore

    core_s: dict[str, float] = {}
    json_s: dict[str, float] = {}
    count: dict[str, int] = {}
    for transcript in transcripts:
        core = GatewayCore(clock=time.monotonic)
        for step in transcript.steps:
            if step.kind == "open":
                core.connection_opened(step.conn)
            elif step.kind != "in":
                core.connection_lost()
            else:
                kind = frame_kind(step.text)
                start = time.perf_counter()
                json.loads(step.text)
                parsed = time.perf_counter()
                core.receive_text(step.text)
                core.events_received()
                core.data_to_send()
                done = time.perf_counter()
                json_s[kind] = json_s.get(kind, 0.0) + parsed - start
                core_s[kind] = core_s.get(kind, 0.0) + done - parsed
                count[kind] = count.get(kind, 0) + 1
    total = sum(core_s.values()) or 1.0
    ranked = sorted(core_s, key=core_s.__getitem__, reverse=True)
    return {
        kind: {
            "frames": count[kind],
            "core_us": core_s[kind] / count[kind] * 1e6,
            "json_us": json_s[kind] / count[kind] * 1e6,
            "share": core_s[kind] / total,
        }
        for kind in ranked
    }


def parse_only(texts: list[str]) -> int:
    for text in texts:
        json.loads(text)
    return len(texts)


def _timed(fn: Any, arg: Any, repeat: int) -> tuple[float, int]:
    start = time.perf_counter()
    frames = 0
    for _ in range(repeat):
        frames += fn(arg)
    return time.perf_counter() - start, frames


def measure(cfg: BenchConfig) -> tuple[list[Row], dict[str, Any]]:
    transcripts = load_all()
    texts = [t for tr in transcripts for t in tr.frames]
    replay(transcripts)  # warm-up: imports, caches
    ratios, core_rates, json_rates = [], [], []
    for _ in range(cfg.throughput_rounds):
        json_s, json_n = _timed(parse_only, texts, cfg.throughput_repeat)
        core_s, core_n = _timed(replay, transcripts, cfg.throughput_repeat)
        json_rates.append(json_n / json_s)
        core_rates.append(core_n / core_s)
        ratios.append((core_n / core_s) / (json_n / json_s))
    value, reference = median(core_rates), median(json_rates)
    figure = median(ratios)
    rows = [
        Row(
            "b core throughput (transcript mix)",
            value,
            "frames/s",
            reference,
            figure,
            "-",  # information since issue 29: real gateways send far below this rate
            INFO,
            {
                "frames_per_pass": len(texts),
                "bytes_per_pass": sum(len(t) for t in texts),
                "transcripts": len(transcripts),
                "round_ratios": ratios,
                "reference": "json.loads of the same frame texts",
                "by_kind": costs_by_kind(transcripts),
            },
        )
    ]
    rows += scaling_rows(cfg)
    rows.append(core_size_row())
    return rows, {}


def delta_cost(open_approvals: int, frames: int = 2000) -> tuple[float, float]:
    """Seconds per ``message.delta`` frame in the core, and per json.loads, with N waiting."""
    return frame_cost(open_approvals, [synthetic.delta("s0", 1000 + i) for i in range(frames)])


def frame_cost(
    open_approvals: int, texts: list[str], core: Any | None = None
) -> tuple[float, float]:
    """Seconds per frame of ``texts`` in a core with N approvals waiting, and per json.loads."""
    core = core or synthetic.core_with_waiting(open_approvals)
    start = time.perf_counter()
    for text in texts:
        core.receive_text(text)
        core.events_received()
        core.data_to_send()
    core_s = (time.perf_counter() - start) / len(texts)
    start = time.perf_counter()
    for text in texts:
        json.loads(text)
    return core_s, (time.perf_counter() - start) / len(texts)


# What one input costs must not grow with the approvals waiting in other sessions. The
# requests come in a session of their own, so after 200 of them the core also forgets
# resolved rows on every one.
SCALED = {
    "message.delta": lambda n: [synthetic.delta("s0", 1000 + n)],
    "tool.start + tool.complete": lambda n: synthetic.tool_call("s0", n),
    "approval + request.cancel": lambda n: synthetic.asked_and_withdrawn("elsewhere", 10**6 + n),
}


def scaling_rows(cfg: BenchConfig) -> list[Row]:
    rows = []
    for name, frames_of in SCALED.items():
        for n in (0, 10, 1000):
            count = 300 if n >= 1000 else 1000
            texts = [text for i in range(count) for text in frames_of(i)]
            found = frame_cost(n, texts)
            rows.append(_cost_row(f"b core per {name} frame, {n} approvals waiting", *found))
    for n in (0, 10, 200):  # 200: the most session.active_list gives
        texts = [synthetic.delta("s0", 1000 + i) for i in range(1000)]
        found = frame_cost(0, texts, synthetic.core_observing(n))
        name = f"b core per message.delta frame, 0.20, {n} working sessions observed"
        rows.append(_cost_row(name, *found))
    return rows


def core_size_row(root: Path = CORE) -> Row:
    """Lines (``wc -l``) and modules of the sans-I/O core."""
    modules = sorted(root.rglob("*.py"))
    lines = sum(len(path.read_bytes().splitlines()) for path in modules)
    return Row(
        "b desktop/core size",
        lines,
        "lines",
        target=f"< {CORE_LINES_TARGET:,}",
        verdict=judge(lines < CORE_LINES_TARGET),
        details={"modules": len(modules)},
    )


def _cost_row(name: str, core_s: float, json_s: float) -> Row:
    reference = {"reference": "json.loads of the same frames", "ratio_is": "core / json"}
    return Row(name, core_s * 1e6, "us", json_s * 1e6, ratio(core_s, json_s), "", "info", reference)
