"""The nesting bound: the bracket-count shortcut never changes what ``parse_message`` returns.

``parse_message`` skips walking a parsed value when the text holds no more ``{``/``[`` than the
depth limit. These tests pin the edges (exactly at the limit, brackets in strings, several
objects per message) and compare every recorded frame, and random values, with the walk forced.
"""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core import jsonrpc
from desktop.core.events import ProtocolErrorReceived
from desktop.core.jsonrpc import EventFrame, ResponseFrame, parse_message
from tests.core.replay import FIXTURES

DEPTH = 8


def nested(levels: int) -> str:
    """A response whose ``result`` holds ``levels`` nested objects in all (envelope included)."""
    inner = "1"
    for _ in range(levels - 1):
        inner = '{"a":' + inner + "}"
    return '{"jsonrpc":"2.0","id":1,"result":' + inner + "}"


def parse(text: str, depth: int = DEPTH) -> list[object]:
    return list(parse_message(text, max_bytes=10**6, max_depth=depth))


def walked(text: str, depth: int = DEPTH) -> list[object]:
    """``parse_message`` with the shortcut disabled: every value is walked."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonrpc, "_bracket_bound", lambda _text: sys.maxsize)
        return parse(text, depth)


def test_a_value_exactly_at_the_limit_passes_and_one_deeper_fails() -> None:
    at_limit, too_deep = nested(DEPTH), nested(DEPTH + 1)
    assert jsonrpc._bracket_bound(at_limit) == DEPTH  # the shortcut decides this one
    assert isinstance(parse(at_limit)[0], ResponseFrame)
    assert parse(too_deep) == [ProtocolErrorReceived(f"nested deeper than {DEPTH} levels", "")]


def test_brackets_inside_strings_only_make_the_walk_run() -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": "{[" * 20}})
    assert jsonrpc._bracket_bound(text) > DEPTH
    (frame,) = parse(text)
    assert isinstance(frame, ResponseFrame)


def test_each_object_of_a_message_is_bounded_on_its_own() -> None:
    shallow = nested(DEPTH - 2)
    message = "\n".join([shallow] * 4)  # more brackets in all than the limit, each one is fine
    assert jsonrpc._bracket_bound(message) > DEPTH
    assert [type(f) for f in parse(message)] == [ResponseFrame] * 4
    mixed = shallow + "\n" + nested(DEPTH + 3)
    assert parse(mixed) == walked(mixed)
    assert isinstance(parse(mixed)[1], ProtocolErrorReceived)


def test_every_recorded_frame_parses_the_same_with_and_without_the_shortcut() -> None:
    texts = [
        json.dumps(line["frame"]) if not isinstance(line["frame"], str) else line["frame"]
        for path in sorted(FIXTURES.glob("*/*.jsonl"))
        for line in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        if line.get("dir") == "in"
    ]
    assert len(texts) > 1000
    for depth in (3, 5, 64):  # small limits send real frames down both sides of the shortcut
        assert [parse(t, depth) for t in texts] == [walked(t, depth) for t in texts]
    assert any(isinstance(parse(t)[0], EventFrame) for t in texts)


_values = st.recursive(
    st.none() | st.integers() | st.text(alphabet="{}[]ab", max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=30,
)


@given(st.lists(_values, min_size=1, max_size=3), st.integers(min_value=1, max_value=6))
def test_random_values_parse_the_same_with_and_without_the_shortcut(
    values: list[object], depth: int
) -> None:
    message = "\n".join(json.dumps({"jsonrpc": "2.0", "id": 1, "result": v}) for v in values)
    assert parse(message, depth) == walked(message, depth)


def _nesting(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_nesting, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    return 0


@given(_values)
def test_the_walk_measures_what_the_recursive_definition_says(value: object) -> None:
    assert jsonrpc._depth(value) == _nesting(value)
