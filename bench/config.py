"""How big each benchmark runs: full (the reported figures) or quick (a smoke of the machinery).

Why in one place: the scale decides how trustworthy a percentile is (p99 of 100 samples is
roughly the second-worst sample) and how long the run takes; both should be visible at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class BenchConfig:
    # (a) latency
    latency_samples: int = 100  # approvals per phase (alone, under flood)
    latency_interval: float = 0.2  # seconds between approvals (plus/minus jitter)
    latency_jitter: float = 0.08
    flood_rate: float = 5000.0  # message.delta frames per second on the same socket
    latency_sessions: int = 4  # approvals rotate over these sessions (one batch each)
    default_coalesce_samples: int = 20  # extra run with the app's default notification coalescing
    drain_timeout: float = 60.0  # how long the app may take to catch up after a phase
    idle_baseline_s: float = 3.0  # the app's idle CPU, measured before its phases
    # (b) throughput
    throughput_rounds: int = 7  # alternating json.loads / core rounds; the median ratio counts
    throughput_repeat: int = 5  # transcript passes per round
    # (c) memory
    load_sessions: int = 100
    load_approvals: int = 10
    settle: float = 2.0  # seconds after a state is reached before RSS is read
    # (f) scale: many approvals waiting at once
    scale_sessions: int = 100
    scale_approvals: int = 100  # per session: 10,000 in all
    scale_watch: float = 8.0  # seconds after the burst to watch the CPU settle
    scale_load_timeout: float = 300.0  # end to end: how long all of them may take to arrive
    # (d) cold start
    start_runs: int = 7  # measured runs per program (after one unmeasured warm-up each)
    # (e) wake-ups
    idle_seconds: float = 60.0
    idle_settle: float = 3.0
    # profiles of misses
    profile: bool = True
    profile_samples: int = 20

    def quick(self) -> BenchConfig:
        """Small numbers that still run every code path (about a minute)."""
        return replace(
            self,
            latency_samples=25,
            idle_baseline_s=1.0,
            default_coalesce_samples=6,
            throughput_rounds=3,
            throughput_repeat=2,
            start_runs=3,
            idle_seconds=5.0,
            idle_settle=2.0,
            settle=1.0,
            profile_samples=10,
            scale_approvals=20,
            scale_watch=6.0,
        )
