"""Every fast path of the core is invisible: the same inputs give the same outputs without it.

How: a script of operations (frames, clock moves, reconnects, decisions, write failures) runs
through a fresh core, and after every step everything a caller can see is recorded: the events,
the frames to send, every approval, every session and ``next_deadline``. The same script runs
once as shipped and once with the fast paths switched off (each patched to "never skip"), and
the two records must be equal. Scripts: every recorded transcript (with the harness's own
decisions) at several clock speeds, so 0.19.0 rows reach their margin and expire mid-stream,
and Hypothesis soups of the frame-soup frames plus stream deltas.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core import approvals, jsonrpc, session_state, usage
from desktop.core.approval_cache import BookCache
from desktop.core.model import Choice, Dialect
from tests.core.frames import Driver, event
from tests.core.replay import FIXTURES, Replay
from tests.core.test_frame_soup import apply, operations, sessions


def _never(*_: object) -> bool:
    return False


def _forget(*_: object) -> None:
    return None


# Each fast path, as the patches that make the core take the long way every time.
SLOW_PATHS: dict[str, list[tuple[object, str, object]]] = {
    "depth walk": [(jsonrpc, "_bracket_bound", lambda _text: sys.maxsize)],
    "one value per message": [(jsonrpc, "_whole", lambda _text: None)],
    "unchanged values": [
        (session_state, "same_fields", _never),
        (approvals, "same_fields", _never),
        (usage, "same_fields", _never),
    ],
    "approval cache": [
        # nothing is ever kept, so every check finds no result for the current version
        (BookCache, "keep_open_rows", _forget),
        (BookCache, "refreshed", _forget),
        (BookCache, "expiry_checked", _forget),
        (BookCache, "deadline_found", _forget),
        (session_state.SessionBook, "_waiting_unchanged", _never),
    ],
}


@contextmanager
def slow(names: list[str]) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            for owner, attribute, value in SLOW_PATHS[name]:
                patch.setattr(owner, attribute, value)
        yield


def seen(core: Any) -> tuple[object, ...]:
    return core.approvals(), core.sessions(), core.next_deadline(), core.dialect


def both_ways(run: Callable[[], list[object]], names: list[str] | None = None) -> None:
    """``run`` records the same with every fast path and without those named (default all)."""
    with slow(names if names is not None else list(SLOW_PATHS)):
        expected = run()
    assert run() == expected


# -- recorded transcripts -------------------------------------------------------------------
TRANSCRIPTS = sorted(FIXTURES.glob("*/*.jsonl"))


def replay(path: Any, speed: float) -> list[object]:
    """Replay with the transcript's clock times ``speed``; record after every line."""
    run = Replay(path.parent.name, path.stem)
    record: list[object] = []
    for line in run.lines:
        run.step({**line, "t": float(line["t"]) * speed})
        record.append(seen(run.core))
    return [record, run.events, [(f.text, f.is_decision, f.rpc_id) for f in run.sent]]


@pytest.mark.parametrize("speed", [1.0, 8.0, 40.0])
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: f"{p.parent.name[:12]}/{p.stem}")
def test_a_recorded_transcript_replays_the_same_without_the_fast_paths(
    path: Any, speed: float
) -> None:
    both_ways(lambda: replay(path, speed))


# -- soups ----------------------------------------------------------------------------------
STREAM = ["message.delta", "thinking.delta", "reasoning.delta", "tool.generating"]
streams = st.builds(
    lambda kind, s: event(kind, s, {"text": "token "}), st.sampled_from(STREAM), sessions
)
soup_operations = st.one_of(
    operations,
    st.tuples(st.just("feed"), streams),
    st.tuples(st.just("feed"), streams),
    st.tuples(st.just("decide"), st.integers(0, 12), st.sampled_from(list(Choice))),
    st.tuples(st.just("timeout"), st.sampled_from([1.0, 30.0, 600.0])),
    st.tuples(st.just("back"), st.floats(min_value=0, max_value=70)),  # a clock may go back
)


def soup(start: Dialect, ops: list[tuple[Any, ...]]) -> list[object]:
    drv = Driver().connect(start)
    record: list[object] = []
    for op in ops:
        if op[0] == "decide":
            rows = drv.core.approvals()
            if rows:
                stale = op[3] if len(op) > 3 else True
                answer = drv.core.decide(rows[op[1] % len(rows)].key, op[2], confirm_stale=stale)
                record.append(answer)
                drv.flush()
        elif op[0] == "back":
            drv.advance(-op[1])
        elif op[0] == "timeout":
            drv.core.set_approval_timeout(op[1])
            drv.flush()
        else:
            apply(drv, op)
        record.append(seen(drv.core))
    return [record, drv.emitted, [(f.text, f.is_decision, f.rpc_id) for f in drv.written]]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([Dialect.A, Dialect.B, Dialect.C]), st.lists(soup_operations, max_size=40))
def test_a_frame_soup_runs_the_same_without_the_fast_paths(
    start: Dialect, ops: list[tuple[Any, ...]]
) -> None:
    both_ways(lambda: soup(start, ops))


@pytest.mark.parametrize("name", list(SLOW_PATHS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([Dialect.A, Dialect.B]), st.lists(soup_operations, max_size=30))
def test_each_fast_path_alone_changes_nothing(
    name: str, start: Dialect, ops: list[tuple[Any, ...]]
) -> None:
    both_ways(lambda: soup(start, ops), [name])
