"""Framing: every input becomes classified frames or a typed protocol error, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.events import ProtocolErrorReceived
from desktop.core.jsonrpc import (
    NON_OBJECT_RESULT,
    EventFrame,
    ResponseFrame,
    ServerRequestFrame,
    encode_error,
    encode_request,
    encode_result,
    excerpt,
    parse_message,
)

LIMITS = {"max_bytes": 4096, "max_depth": 8}
EVENT = '{"jsonrpc":"2.0","method":"event","params":{"type":"message.start","session_id":"s1"}}'
RESPONSE = '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}'


def parse(data: str | bytes) -> list[object]:
    return list(parse_message(data, **LIMITS))


@pytest.mark.parametrize(
    ("data", "kinds"),
    [
        (EVENT, [EventFrame]),
        (EVENT.encode(), [EventFrame]),
        ("\ufeff" + EVENT, [EventFrame]),
        (b"\xef\xbb\xbf" + EVENT.encode(), [EventFrame]),
        (f"{EVENT}\n{RESPONSE}\n", [EventFrame, ResponseFrame]),
        (f"\n\n  {EVENT}\r\n\r\n{RESPONSE}", [EventFrame, ResponseFrame]),
        (f"{EVENT}{RESPONSE}", [EventFrame, ResponseFrame]),
        (f"{EVENT}\nnot json\n{RESPONSE}", [EventFrame, ProtocolErrorReceived, ResponseFrame]),
        ("", []),
        ("   \n\n", []),
        (json.dumps(json.loads(EVENT), indent=2), [EventFrame]),  # one object over many lines
    ],
)
def test_a_message_may_hold_several_objects_blank_lines_and_a_bom(
    data: str | bytes, kinds: list[type]
) -> None:
    assert [type(item) for item in parse(data)] == kinds


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xfe{}", "not UTF-8"),
        ("x" * 5000, "frame too large"),
        (b"x" * 5000, "frame too large"),
        ("é" * 2100, "frame too large"),  # 2100 characters but 4200 bytes
        ("{oops", "not JSON"),
        ('{"a": NaN}', "not JSON"),
        ('{"a": Infinity}', "not JSON"),
        ("[" * 9 + "]" * 9, "nested deeper than 8 levels"),
        ("[" * 5000 + "]" * 5000, "frame too large"),
        ("[]", "not a JSON object"),
        ('"text"', "not a JSON object"),
        ('{"id":1,"result":{}}', "not JSON-RPC 2.0"),
        ('{"jsonrpc":"1.0","id":1,"result":{}}', "not JSON-RPC 2.0"),
        ('{"jsonrpc":"2.0"}', "neither an event, a request nor a response"),
        ('{"jsonrpc":"2.0","method":7}', "method is not a string"),
        ('{"jsonrpc":"2.0","method":"event","params":[]}', "event params is not an object"),
        ('{"jsonrpc":"2.0","method":"event","params":{}}', "event has no type"),
        ('{"jsonrpc":"2.0","method":"event","params":{"type":"x","session_id":5}}', "session_id"),
        ('{"jsonrpc":"2.0","method":"event","params":{"type":"x","payload":[1]}}', "payload"),
        ('{"jsonrpc":"2.0","method":"ping"}', "unexpected notification"),
        ('{"jsonrpc":"2.0","method":"approval","id":true}', "request id"),
        ('{"jsonrpc":"2.0","method":"approval","id":1.5}', "request id"),
        ('{"jsonrpc":"2.0","id":{},"result":{}}', "response id"),
        ('{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}', "exactly one"),
        ('{"jsonrpc":"2.0","id":1}', "exactly one"),
        ('{"jsonrpc":"2.0","id":1,"error":"boom"}', "integer code"),
        ('{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}', "integer code"),
    ],
)
def test_bad_input_becomes_a_typed_protocol_error(data: str | bytes, reason: str) -> None:
    items = parse(data)
    assert len(items) == 1
    item = items[0]
    assert isinstance(item, ProtocolErrorReceived)
    assert reason in item.reason
    assert len(item.excerpt) <= 120
    assert item.excerpt.isprintable()


def test_bytes_that_are_not_text_at_all_are_a_protocol_error() -> None:
    items = parse_message(12345, **LIMITS)  # type: ignore[arg-type]
    assert items == [ProtocolErrorReceived("not text", "int")]


def test_over_long_integers_are_a_protocol_error_not_a_crash() -> None:
    item = parse_message('{"a":' + "9" * 5000 + "}", max_bytes=10_000, max_depth=8)[0]
    assert isinstance(item, ProtocolErrorReceived)
    assert item.reason.startswith("not JSON")


def test_a_pile_of_broken_lines_yields_a_bounded_number_of_errors() -> None:
    items = parse("\n".join(["garbage"] * 50))
    assert len(items) == 6
    assert items[-1] == ProtocolErrorReceived("too many broken frames in one message", "")


def test_an_event_keeps_type_session_payload_and_params() -> None:
    data: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": "event",
        "params": {"type": "session.info", "session_id": "s1", "payload": {"a": 1}, "seq": 4},
    }
    (item,) = parse(json.dumps(data))
    assert item == EventFrame("session.info", "s1", {"a": 1}, data["params"])


@pytest.mark.parametrize(
    ("params", "expected"),
    [({"session_id": "s"}, {"session_id": "s"}), (None, {}), ([1], None), ("x", None)],
)
def test_a_server_request_carries_its_params_or_none_when_they_are_no_object(
    params: object, expected: object
) -> None:
    body: dict[str, object] = {"jsonrpc": "2.0", "id": "srq-1", "method": "approval"}
    if params is not None:
        body["params"] = params
    (item,) = parse(json.dumps(body))
    assert item == ServerRequestFrame("srq-1", "approval", expected)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"id": 3, "result": {"x": 1}}, ResponseFrame(3, {"x": 1}, None)),
        ({"id": "c1-3", "result": {}}, ResponseFrame("c1-3", {}, None)),
        (
            {
                "id": 4,
                "error": {"code": 4001, "message": "not_found", "data": {"reason": "not_found"}},
            },
            "error:4001:not_found",
        ),
        ({"id": None, "error": {"code": -32700, "message": "parse error"}}, "error:-32700:"),
        ({"id": 5, "result": [1, 2]}, f"error:{NON_OBJECT_RESULT}:"),
    ],
)
def test_responses_keep_result_or_error(body: dict[str, object], expected: object) -> None:
    (item,) = parse(json.dumps({"jsonrpc": "2.0", **body}))
    assert isinstance(item, ResponseFrame)
    if isinstance(expected, ResponseFrame):
        assert item == expected
    else:
        assert item.error is not None
        assert f"error:{item.error.code}:{item.error.reason}" == expected


def test_encoders_write_compact_json_rpc() -> None:
    assert json.loads(encode_request(9, "ping", {})) == {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "ping",
        "params": {},
    }
    assert json.loads(encode_result("srq-1", {"choice": "once"})) == {
        "jsonrpc": "2.0",
        "id": "srq-1",
        "result": {"choice": "once"},
    }
    assert json.loads(encode_error("srq-2", -32601, "no")) == {
        "jsonrpc": "2.0",
        "id": "srq-2",
        "error": {"code": -32601, "message": "no"},
    }


@pytest.mark.parametrize(
    ("params", "error"), [({"x": float("nan")}, ValueError), ({"x": {1, 2}}, TypeError)]
)
def test_encoding_unencodable_params_is_a_caller_error(
    params: dict[str, object], error: type
) -> None:
    with pytest.raises(error):
        encode_request(1, "m", params)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("ws://h/api/ws?token=abc123secret&x=1", "abc123secret"),
        ('{"ticket": "t-99999"}', "t-99999"),
        ("Authorization: Bearer-xyz", "Bearer-xyz"),
        ('{"api_key":"sk-live-1"}', "sk-live-1"),
    ],
)
def test_excerpts_never_carry_a_token(text: str, secret: str) -> None:
    shown = excerpt(text)
    assert secret not in shown
    assert "***" in shown


@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    for item in parse_message(data, **LIMITS):
        assert isinstance(
            item, EventFrame | ServerRequestFrame | ResponseFrame | ProtocolErrorReceived
        )


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(
    st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "x"]),
        _json | st.just("2.0") | st.just("event"),
        max_size=6,
    )
)
def test_random_objects_are_always_classified(obj: dict[str, object]) -> None:
    items = parse_message(json.dumps(obj), max_bytes=100_000, max_depth=64)
    assert len(items) == 1
