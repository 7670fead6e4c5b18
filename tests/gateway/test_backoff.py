from __future__ import annotations

import pytest

from desktop.gateway.backoff import BackoffPolicy


def test_delays_grow_exponentially_and_cap_without_jitter() -> None:
    policy = BackoffPolicy(initial=0.5, factor=2.0, max_delay=3.0, jitter=0.0)
    assert [policy.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_jitter_only_shortens_within_its_fraction() -> None:
    low = BackoffPolicy(initial=4.0, jitter=0.5, rng=lambda: 1.0)
    high = BackoffPolicy(initial=4.0, jitter=0.5, rng=lambda: 0.0)
    assert low.delay(1) == pytest.approx(2.0)
    assert high.delay(1) == pytest.approx(4.0)


def test_huge_attempt_numbers_do_not_overflow() -> None:
    policy = BackoffPolicy(initial=1.0, factor=10.0, max_delay=30.0, jitter=0.0)
    assert policy.delay(10_000) == 30.0
    assert policy.delay(0) == 1.0  # attempt numbers below 1 count as the first retry
