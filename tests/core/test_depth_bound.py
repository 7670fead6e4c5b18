"""The nesting bound: each parsed value deeper than the limit is a protocol error, no deeper is not.

Depth counts objects and arrays (the envelope included); brackets inside strings do not count, and
each object of a several-object message is bounded on its own.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from desktop.core import jsonrpc
from desktop.core.events import ProtocolErrorReceived
from desktop.core.jsonrpc import ResponseFrame, parse_message

DEPTH = 8


def nested(levels: int) -> str:
    """A response whose ``result`` holds ``levels`` nested objects in all (envelope included)."""
    inner = "1"
    for _ in range(levels - 1):
        inner = '{"a":' + inner + "}"
    return '{"jsonrpc":"2.0","id":1,"result":' + inner + "}"


def parse(text: str, depth: int = DEPTH) -> list[object]:
    return list(parse_message(text, max_bytes=10**6, max_depth=depth))


TOO_DEEP = ProtocolErrorReceived(f"nested deeper than {DEPTH} levels", "")


def test_a_value_exactly_at_the_limit_passes_and_one_deeper_fails() -> None:
    assert isinstance(parse(nested(DEPTH))[0], ResponseFrame)
    assert parse(nested(DEPTH + 1)) == [TOO_DEEP]


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": "{[" * 20}})
    (frame,) = parse(text)
    assert isinstance(frame, ResponseFrame)


def test_each_object_of_a_message_is_bounded_on_its_own() -> None:
    shallow = nested(DEPTH - 2)
    message = "\n".join([shallow] * 4)  # more brackets in all than the limit, each one is fine
    assert [type(f) for f in parse(message)] == [ResponseFrame] * 4
    (first, second) = parse(shallow + "\n" + nested(DEPTH + 3))
    assert isinstance(first, ResponseFrame)
    assert second == TOO_DEEP


_values = st.recursive(
    st.none() | st.integers() | st.text(alphabet="{}[]ab", max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=30,
)


def _nesting(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_nesting, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    return 0


@given(_values)
def test_the_walk_measures_what_the_recursive_definition_says(value: object) -> None:
    assert jsonrpc._depth(value) == _nesting(value)


@given(_values, st.integers(min_value=1, max_value=6))
def test_a_value_is_refused_exactly_when_it_nests_deeper_than_the_limit(
    value: object, depth: int
) -> None:
    (frame,) = parse(json.dumps({"jsonrpc": "2.0", "id": 1, "result": value}), depth)
    assert isinstance(frame, ProtocolErrorReceived) == (1 + _nesting(value) > depth)
