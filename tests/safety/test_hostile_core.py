"""Hostile input: nothing a gateway sends makes the core raise, leak or stop working.

For every dialect: protocol-shaped garbage (``hostile_frames``), random text and bytes, huge
and deep frames, invalid UTF-8, unknown events and colliding ids go into ``receive_text``,
interleaved with clicks and clock ticks; no exception may escape, no decision frame may appear
that a click did not produce, and afterwards a well-formed approval must still be shown,
answerable, and answered with exactly one well-formed frame (``CoreDriver.fresh_approval_flows``).
"""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.events import ProtocolErrorReceived
from desktop.core.model import Choice, Dialect
from tests.safety.driver import CoreDriver, event
from tests.safety.hostile_frames import messages, numeric
from tests.safety.tally import scaled

DIALECTS = list(Dialect)
FUZZ = settings(
    max_examples=scaled(80),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MiB = 1 << 20


def feed_and_click(drv: CoreDriver, data: str | bytes, pick: int, choice: Choice) -> None:
    """Feed one message, then click some row: no exception, no unasked decision frame."""
    drv.feed(data)
    assert not [f for f in drv.written if f.is_decision], "a decision frame nobody clicked"
    rows = list(drv.core.approvals())
    if rows:
        row = rows[pick % len(rows)]
        sent, frames = drv.decide(row.key, choice)
        assert len([f for f in frames if f.is_decision]) == (1 if sent else 0)
        drv.written = [f for f in drv.written if not f.is_decision]
    drv.now += pick % 7
    drv.core.tick()
    drv.flush()


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@FUZZ
@given(
    batch=st.lists(
        st.tuples(messages(), st.integers(0, 50), st.sampled_from(list(Choice))), max_size=6
    )
)
def test_protocol_shaped_garbage_never_escapes_and_the_core_keeps_working(
    dialect: Dialect, batch: list[tuple[str | bytes, int, Choice]]
) -> None:
    drv = CoreDriver(dialect).connect()
    for data, pick, choice in batch:
        feed_and_click(drv, data, pick, choice)
    drv.fresh_approval_flows()


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@FUZZ
@given(data=st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_random_text_and_bytes_never_escape(dialect: Dialect, data: str | bytes) -> None:
    drv = CoreDriver(dialect).connect()
    drv.feed(data)
    drv.fresh_approval_flows()


DEPTH_70: object = 1
for _ in range(70):
    DEPTH_70 = [DEPTH_70]
HUGE_NUMBER = "1" + "0" * 400  # valid JSON: an integer far beyond a float's range
USAGE_OVERFLOW = [
    ("session.usage", '{"context_percent":%s}'),
    ("session.usage", '{"usage":{"cost_usd":%s}}'),
    ("session.info", '{"usage":{"context_percent":%s}}'),
    ("message.complete", '{"status":"complete","usage":{"cost_usd":%s}}'),
]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@pytest.mark.parametrize(("kind", "payload"), USAGE_OVERFLOW)
def test_a_number_beyond_float_range_does_not_escape(
    dialect: Dialect, kind: str, payload: str
) -> None:
    drv = CoreDriver(dialect).connect()
    text = (
        '{"jsonrpc":"2.0","method":"event","params":{"type":"%s","session_id":"s1","payload":%s}}'
    )
    drv.feed(text % (kind, payload % HUGE_NUMBER))
    drv.fresh_approval_flows()


@FUZZ
@given(
    kind=st.sampled_from(
        [
            "session.usage",
            "session.info",
            "session.updated",
            "message.complete",
            "tool.complete",
            "todo.updated",
        ]
    ),
    payload=numeric,
)
def test_numbers_of_any_size_in_state_frames_never_escape(
    kind: str, payload: dict[str, object]
) -> None:
    drv = CoreDriver(Dialect.B).connect()
    drv.feed(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "event",
                "params": {"type": kind, "session_id": "s1", "payload": payload},
            }
        )
    )
    drv.fresh_approval_flows()


def test_a_turn_end_with_an_absurd_usage_number_still_closes_the_0_19_card() -> None:
    drv = CoreDriver(Dialect.A).connect()
    drv.feed(event("approval.request", "s1", {"command": "rm -rf a", "choices": ["once", "deny"]}))
    [row] = drv.rows_of("s1")
    text = (
        '{"jsonrpc":"2.0","method":"event","params":{"type":"message.complete","session_id":"s1",'
    )
    text += f'"payload":{{"status":"interrupted","usage":{{"cost_usd":{HUGE_NUMBER}}}}}}}}}'
    drv.feed(text)
    after = {a.key: a for a in drv.core.approvals()}.get(row.key)
    assert after is not None
    assert not after.answerable


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "data",
    [
        pytest.param("[" * 100_000 + "]" * 100_000, id="deep-array-100k"),
        pytest.param('{"a":' * 5000 + "1" + "}" * 5000, id="deep-object-5k"),
        pytest.param(event("session.usage", "s1", {"usage": DEPTH_70}), id="depth-70"),
        pytest.param(b"\xff\xfe\x00garbage", id="invalid-utf8"),
        pytest.param(b"\xed\xa0\x80", id="utf8-encoded-surrogate"),
        pytest.param('{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"result":{}}', id="int-5000-digits"),
        pytest.param(
            '{"jsonrpc":"2.0","method":"event","params":{"type":"x","payload":NaN}}', id="NaN"
        ),
        pytest.param("\n".join(["{bad"] * 1000), id="1000-broken-lines"),
        pytest.param(event("no.such.event", "s1", {"command": "rm -rf /"}), id="unknown-event"),
    ],
)
def test_malformed_frames_are_reported_not_raised(dialect: Dialect, data: str | bytes) -> None:
    drv = CoreDriver(dialect).connect()
    drv.feed(data)
    assert not list(drv.core.approvals())
    drv.fresh_approval_flows()


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
def test_a_16_mib_frame_is_refused_in_bounded_memory(dialect: Dialect, as_bytes: bool) -> None:
    """Stated bound: a 16 MiB frame is refused with a peak below 64 KiB (measured: ~1 KiB)."""
    drv = CoreDriver(dialect).connect()
    padding = "x" * (16 * MiB)
    frame = event("notification.show", "s1", {"text": padding})
    data: str | bytes = frame.encode() if as_bytes else frame
    del padding
    tracemalloc.start()
    try:
        drv.feed(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024, f"peak {peak / 1024:.0f} KiB"
    assert any(isinstance(e, ProtocolErrorReceived) and "too large" in e.reason for e in drv.events)
    drv.fresh_approval_flows()


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_frame_just_under_the_cap_is_parsed_in_bounded_memory(dialect: Dialect) -> None:
    """Stated bound: a 7.8 MiB notification (under the 8 MiB cap) peaks below 2x its size
    (measured: 1.0x; the shown text is cut to 4,000 characters)."""
    drv = CoreDriver(dialect).connect()
    frame = event("notification.show", "s1", {"text": "y" * (8 * MiB - 200_000)})
    tracemalloc.start()
    try:
        drv.feed(frame)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(frame), (
        f"peak {peak / MiB:.1f} MiB for a {len(frame) / MiB:.1f} MiB frame"
    )
    drv.fresh_approval_flows()


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_stream_of_junk_retains_nothing(dialect: Dialect) -> None:
    """Stated bound: 5,000 junk frames (errors drained as the client does) retain < 64 KiB
    (measured: 1-12 KiB)."""
    drv = CoreDriver(dialect).connect()
    junk = [
        "{not json",
        json.dumps([1, 2, 3]),
        event("no.such.event", "s1", {"x": "y" * 500}),
        json.dumps({"jsonrpc": "2.0", "id": 999_999, "result": {"late": True}}),
        json.dumps({"jsonrpc": "2.0", "method": "event", "params": "string"}),
    ]
    drv.feed(junk[0])
    drv.events.clear()
    # Count only what the core's own code allocated: other threads of the test process (the
    # fixtures' servers, loggers) allocate at random and are none of the core's doing.
    only_core = [tracemalloc.Filter(True, "*/desktop/core/*", all_frames=True)]
    tracemalloc.start(32)  # deep enough that json's allocations still show the core's frames
    try:
        before = tracemalloc.take_snapshot().filter_traces(only_core)
        for i in range(5000):
            drv.feed(junk[i % len(junk)])
            drv.events.clear()
        after = tracemalloc.take_snapshot().filter_traces(only_core)
    finally:
        tracemalloc.stop()
    retained = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert retained < 64 * 1024, f"retained {retained / 1024:.0f} KiB"
    drv.fresh_approval_flows()
