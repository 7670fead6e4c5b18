"""Clarify, sudo and secret prompts: read in every dialect, shown, answered only as allowed.

The frames follow protocol.md §1.4 and what the real builds send: 0.19.0's ``_block`` events
(``request_id`` of 8 hex, ``{status: "ok"}`` replies, 4009 when nothing waits) and iot
0.22.2.post1's ``clarify`` server request (``questions: [{qid, question, choices,
multi_select}]``, answered ``{answers: {qid: answer}}``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core import prompt_book
from desktop.core.dialects import MAX_CHOICES, MAX_QUESTION_CHARS
from desktop.core.events import NoticeReceived, PromptAsked, PromptEnded
from desktop.core.gateway_core import CoreSettings
from desktop.core.model import Dialect, Prompt, PromptKind, SessionStatus
from tests.core.frames import (
    SID,
    Driver,
    b_approval,
    cancel,
    error,
    event,
    message_complete,
    result,
    settled,
    tool_complete,
)

OTHER = "ffff0000"  # a session the tray does not follow


def b_clarify(
    srq: str = "srq-c1",
    question: str = "Which branch?",
    choices: list[Any] | None = None,
    session_id: str = SID,
    **extra: Any,
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "qid": "q0",
        "question": question,
        "choices": choices,
        "multi_select": False,
    }
    params: dict[str, Any] = {"session_id": session_id, "questions": [item], **extra}
    return {"jsonrpc": "2.0", "id": srq, "method": "clarify", "params": params}


def a_clarify(
    rid: str = "1a2b3c4d", question: str = "Which branch?", choices: Any = None
) -> dict[str, Any]:
    return event(
        "clarify.request", SID, {"question": question, "choices": choices, "request_id": rid}
    )


def c_clarify(
    prompt_id: str = "p-9", generation: int = 3, kind_event: bool = True
) -> dict[str, Any]:
    payload = {"kind": "clarify", "prompt_id": prompt_id, "execution_generation": generation}
    payload |= {"question": "Ship it?", "choices": ["yes", "no"]}
    name = "approval.request" if kind_event else "clarify.request"
    return event(name, SID, payload)


def asked(drv: Driver) -> list[Prompt]:
    return [e.prompt for e in drv.of_type(PromptAsked)]


def ended(drv: Driver) -> list[tuple[str, str]]:
    return [(e.prompt.key, e.reason) for e in drv.of_type(PromptEnded)]


def only(drv: Driver) -> Prompt:
    (prompt,) = drv.prompts()
    return prompt


def answer(drv: Driver, key: str, text: object) -> tuple[bool, str, list[dict[str, Any]]]:
    outcome = drv.core.answer_prompt(key, text)  # type: ignore[arg-type]
    frames = drv.flush()
    return outcome.sent, outcome.reason, [json.loads(f.text) for f in frames]


# -- B: server requests -------------------------------------------------------------------------
def test_b_clarify_is_shown_and_answered_by_its_question_id_in_one_response_frame() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(choices=["main", "dev"]))
    prompt = only(drv)
    assert (prompt.kind, prompt.question, prompt.choices) == (
        PromptKind.CLARIFY,
        "Which branch?",
        ("main", "dev"),
    )
    assert (prompt.answerable, prompt.free_text, prompt.expires_at) == (True, True, None)
    assert not [f for f in drv.sent_json() if f.get("id") == "srq-c1"]  # held, not refused
    assert drv.core.session(SID).status is SessionStatus.WAITING  # type: ignore[union-attr]
    sent, reason, frames = answer(drv, prompt.key, "dev")
    assert (sent, reason) == (True, "")
    assert frames == [{"jsonrpc": "2.0", "id": "srq-c1", "result": {"answers": {"q0": "dev"}}}]
    assert ended(drv) == [(prompt.key, prompt_book.ANSWERED)]
    assert drv.core.session(SID).status is not SessionStatus.WAITING  # type: ignore[union-attr]
    assert answer(drv, prompt.key, "dev")[:2] == (False, "expired: the question is no longer open")


def test_b_free_text_is_sent_as_typed_and_an_older_single_question_is_answered_answer() -> None:
    single = {"session_id": SID, "question": "Name?", "choices": None}
    drv = Driver().connect(Dialect.B)
    drv.feed({"jsonrpc": "2.0", "id": "srq-old", "method": "clarify", "params": single})
    _, _, frames = answer(drv, only(drv).key, "  a typed ‮ name ")
    assert frames[0]["result"] == {"answer": "  a typed ‮ name "}


def test_b_withdrawal_ends_the_prompt_and_a_late_answer_sends_nothing() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify())
    key = only(drv).key
    drv.feed(cancel("srq-c1", "timeout"))
    assert ended(drv) == [(key, prompt_book.EXPIRED)]
    before = len(drv.written)
    assert answer(drv, key, "main")[0] is False
    assert len(drv.written) == before


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("interrupted", prompt_book.CANCELLED),
        ("resolved", prompt_book.ANSWERED_ELSEWHERE),
        ("session_closed", prompt_book.SESSION_GONE),
    ],
)
def test_b_cancel_reasons(reason: str, why: str) -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(), cancel("srq-c1", reason))
    assert [r for _, r in ended(drv)] == [why]


def test_b_another_viewer_answering_ends_it_with_the_clarify_tool() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(), b_clarify("srq-c2"))
    first, second = drv.prompts()
    drv.feed(tool_complete("call_1_0", result={"output": "ok"}, name="terminal"))
    assert drv.prompts() == (first, second)
    drv.feed(tool_complete("call_1_1", result={"answers": {"q0": "x"}}, name="clarify"))
    assert ended(drv) == [(first.key, prompt_book.ANSWERED_ELSEWHERE)]
    assert drv.prompts() == (second,)


def test_b_the_tool_call_of_a_question_answered_here_ends_no_other_question() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(), b_clarify("srq-c2", question="And?"))
    first, second = drv.prompts()
    assert answer(drv, first.key, "main")[0] is True
    drv.feed(tool_complete("call_1_0", name="clarify"))  # the first question's tool returns
    assert drv.prompts() == (second,)
    drv.feed(cancel("srq-c2", "timeout"), tool_complete("call_1_1", name="clarify"))
    drv.feed(b_clarify("srq-c3", question="Third?"))
    assert [p.question for p in drv.prompts()] == ["Third?"]
    drv.lose()
    drv.connect(Dialect.B).feed(b_clarify("srq-c4"), tool_complete("call_2_0", name="clarify"))
    assert drv.prompts() == ()  # nothing owed across a reconnect: another viewer answered


def test_b_message_complete_withdraws_no_prompt() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(), message_complete())
    assert len(drv.prompts()) == 1


@pytest.mark.parametrize("method", ["sudo", "secret"])
def test_b_sudo_and_secret_are_shown_and_never_answered(method: str) -> None:
    params = {"session_id": SID, "command": "sudo apt install x", "env_var": "OPENAI_API_KEY"}
    params["prompt"] = "Paste your key"
    drv = Driver().connect(Dialect.B)
    drv.feed({"jsonrpc": "2.0", "id": "srq-s1", "method": method, "params": params})
    prompt = only(drv)
    assert prompt.kind is PromptKind(method)
    assert (prompt.command, prompt.env_var) == ("sudo apt install x", "OPENAI_API_KEY")
    assert prompt.answerable is False
    assert prompt.blocked_reason == prompt_book.ONLY_THERE[prompt.kind]
    before = len(drv.written)
    sent, reason, _ = answer(drv, prompt.key, "hunter2")
    assert (sent, reason) == (False, prompt_book.ONLY_THERE[prompt.kind])
    assert len(drv.written) == before  # not even an error reply
    assert not hasattr(drv.core, "answer_sudo")
    assert not hasattr(drv.core, "answer_secret")
    for never in ("sudo.respond", "secret.respond", "clarify.respond"):
        with pytest.raises(ValueError, match=never):
            drv.core.call(never, {"request_id": "x", "password": "p"})


def test_several_questions_locked_answers_or_cut_text_are_read_only() -> None:
    two = b_clarify()
    two["params"]["questions"].append({"qid": "q1", "question": "And?", "choices": None})
    locked = b_clarify("srq-l", answers={"q0": "main"})
    long = b_clarify("srq-long", question="x" * (MAX_QUESTION_CHARS + 1))
    many = b_clarify("srq-many", choices=[str(i) for i in range(MAX_CHOICES + 1)])
    junk = b_clarify("srq-junk", choices=["ok", 5])
    blank = b_clarify("srq-blank", question=" \n")
    drv = Driver().connect(Dialect.B).feed(two, locked, long, many, junk, blank)
    reasons = [p.blocked_reason for p in drv.prompts()]
    assert reasons == [prompt_book.SEVERAL] * 2 + [prompt_book.CUT] * 3 + [prompt_book.NO_TEXT]
    assert len(drv.prompts()[2].question) == MAX_QUESTION_CHARS
    assert len(drv.prompts()[3].choices) == MAX_CHOICES
    for prompt in drv.prompts():
        assert answer(drv, prompt.key, "main")[0] is False


def test_a_prompt_of_a_session_the_tray_does_not_follow_is_read_only_until_followed() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(session_id=OTHER))
    prompt = only(drv)
    assert (prompt.answerable, prompt.blocked_reason) == (False, prompt_book.NOT_FOLLOWED)
    assert answer(drv, prompt.key, "main")[:2] == (False, prompt_book.NOT_FOLLOWED)
    drv.core.watch_session(OTHER)
    drv.flush()
    assert asked(drv)[-1] == Prompt(**{**_fields(prompt), "answerable": True, "blocked_reason": ""})
    assert answer(drv, prompt.key, "main")[0] is True


def _fields(prompt: Prompt) -> dict[str, Any]:
    return {name: getattr(prompt, name) for name in Prompt.__slots__}  # type: ignore[attr-defined]


def test_re_delivery_keeps_the_key_and_other_text_under_the_same_id_replaces_it() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(), b_clarify())
    (first,) = asked(drv)
    drv.feed(b_clarify(question="Delete everything?"))
    second = only(drv)
    assert second.key != first.key
    assert ended(drv) == [(first.key, prompt_book.REPLACED)]
    assert answer(drv, first.key, "main")[0] is False


def test_the_only_choices_rule_and_bad_answers() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify(choices=["a", "b"], allow_free_text=False))
    key = only(drv).key
    assert only(drv).free_text is False
    for bad in ("c", "", "   ", 5, "a" * (prompt_book.MAX_ANSWER_CHARS + 1)):
        assert answer(drv, key, bad)[0] is False
    assert answer(drv, key, "b")[0] is True


def test_a_lost_connection_ends_every_prompt_and_answers_nothing() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify())
    key = only(drv).key
    drv.lose()
    assert ended(drv) == [(key, prompt_book.CONNECTION_LOST)]
    assert answer(drv, key, "main")[0] is False


def test_a_resume_snapshot_re_delivers_a_clarify_as_a_new_prompt() -> None:
    drv = Driver().connect(Dialect.B)
    drv.core.watch_session(SID, stored_session_id="stored-1")
    drv.flush()
    drv.lose()
    drv.connect(Dialect.B)
    resume = drv.request("session.resume")
    item = b_clarify()
    snapshot = {"session_id": SID, "running": True}
    snapshot["open_requests"] = [{k: item[k] for k in ("id", "method", "params")}]
    drv.feed(result(resume["id"], snapshot))
    assert only(drv).question == "Which branch?"
    assert answer(drv, only(drv).key, "main")[2][0]["id"] == "srq-c1"


def test_the_flood_is_bounded() -> None:
    drv = Driver().connect(Dialect.B)
    for i in range(prompt_book.MAX_OPEN + 5):
        drv.feed(b_clarify(f"srq-{i}"))
    assert len(drv.prompts()) == prompt_book.MAX_OPEN


def test_malformed_prompt_requests_are_dropped_without_a_reply() -> None:
    drv = Driver().connect(Dialect.B)
    drv.feed({"jsonrpc": "2.0", "id": "srq-x", "method": "clarify", "params": {"questions": []}})
    drv.feed({"jsonrpc": "2.0", "id": "srq-y", "method": "sudo"})
    drv.feed(event("clarify.request", SID, {"question": "no id"}))
    assert drv.prompts() == ()
    assert not [f for f in drv.sent_json() if f.get("id") in ("srq-x", "srq-y")]


def test_approvals_and_prompts_live_side_by_side() -> None:
    drv = Driver().connect(Dialect.B).feed(b_approval("srq-a1"), b_clarify())
    assert len(drv.rows()) == 1
    assert len(drv.prompts()) == 1
    drv.feed(cancel("srq-a1", "interrupted"))
    assert len(drv.prompts()) == 1


# -- 0.19.0 and 0.20: events and respond RPCs ----------------------------------------------------
@pytest.mark.parametrize("dialect", [Dialect.A, Dialect.HERMES020])
def test_event_dialects_answer_with_clarify_respond_and_read_the_reply(dialect: Dialect) -> None:
    drv = Driver().connect(dialect).feed(a_clarify(choices=["main", "dev"]))
    prompt = only(drv)
    assert prompt.expires_at == drv.now + prompt_book.EVENT_TIMEOUTS[PromptKind.CLARIFY]
    sent, _, frames = answer(drv, prompt.key, "main")
    (frame,) = frames
    assert sent
    assert frame["method"] == "clarify.respond"
    assert frame["params"] == {"request_id": "1a2b3c4d", "answer": "main"}
    drv.feed(result(frame["id"], {"status": "ok"}))
    assert drv.of_type(NoticeReceived) == []


@pytest.mark.parametrize(
    "reply",
    [error(0, 4009, "no pending request"), result(0, {"status": "expired"})],
)
def test_an_answer_the_gateway_did_not_take_is_said(reply: dict[str, Any]) -> None:
    drv = Driver().connect(Dialect.A).feed(a_clarify())
    _, _, (frame,) = answer(drv, only(drv).key, "main")
    drv.feed({**reply, "id": frame["id"]})
    (notice,) = drv.of_type(NoticeReceived)
    assert "Which branch?" in notice.text
    assert "expired" in notice.text
    drv.feed({**reply, "id": frame["id"]})  # a second reply is nobody's
    assert len(drv.of_type(NoticeReceived)) == 1


def test_event_prompts_expire_locally_and_refuse_inside_the_margin() -> None:
    drv = Driver(settings=CoreSettings(staleness_margin=5.0)).connect(Dialect.A)
    drv.feed(a_clarify())
    key = only(drv).key
    assert drv.core.next_deadline() == only(drv).expires_at
    drv.advance(prompt_book.EVENT_TIMEOUTS[PromptKind.CLARIFY] - 2)
    assert answer(drv, key, "main")[:2] == (False, "expired: Hermes stops waiting for it now")
    drv.advance(3)
    assert ended(drv) == [(key, prompt_book.EXPIRED)]


def test_a_0_20_resume_brings_back_the_clarify_still_waiting() -> None:
    drv = Driver(follows=()).connect(Dialect.HERMES020)
    drv.core.watch_session(SID, stored_session_id="stored-1")
    resume = drv.core.resume_session(SID)
    drv.flush()
    pending = {"question": "Which branch?", "choices": ["main"], "request_id": "9f9f9f9f"}
    drv.feed(result(resume, {"session_id": SID, "running": True, "pending_clarify": pending}))
    drv.feed(result(resume, {"session_id": SID, "running": True, "pending_clarify": pending}))
    assert len(asked(drv)) == 1  # the same question twice is one prompt
    _, _, (frame,) = answer(drv, only(drv).key, "main")
    assert frame["params"] == {"request_id": "9f9f9f9f", "answer": "main"}
    again = drv.core.resume_session(SID)
    drv.flush()
    drv.feed(result(again, {"session_id": SID, "pending_clarify": {"question": "no id"}}))
    assert drv.prompts() == ()  # answered, and an entry without its id is no prompt


def test_sudo_and_secret_events_and_their_expiry() -> None:
    drv = Driver().connect(Dialect.A)
    drv.feed(event("sudo.request", SID, {"request_id": "aa11bb22"}))
    drv.feed(event("secret.request", SID, {"request_id": "cc33", "prompt": "Key?", "env_var": "K"}))
    sudo, secret = drv.prompts()
    assert sudo.expires_at == drv.now + 120.0
    assert secret.env_var == "K"
    drv.feed(event("sudo.expire", SID, {"request_id": "aa11bb22"}), event("secret.expire", SID, {}))
    assert ended(drv) == [(sudo.key, prompt_book.EXPIRED)]


def test_a_turn_end_ends_event_prompts() -> None:
    drv = Driver().connect(Dialect.A).feed(a_clarify(), message_complete(status="interrupted"))
    assert [r for _, r in ended(drv)] == [prompt_book.TURN_ENDED]


def test_a_removed_session_ends_its_prompts() -> None:
    drv = Driver().connect(Dialect.B).feed(b_clarify())
    drv.feed(event("session.reclaimed", SID, {"session_id": SID, "reason": "idle_timeout"}))
    assert [r for _, r in ended(drv)] == [prompt_book.SESSION_GONE]


def test_before_the_handshake_nothing_is_answered() -> None:
    drv = Driver().connect(None)
    drv.feed(b_clarify())
    prompt = only(drv)
    assert prompt.answerable is False
    assert answer(drv, prompt.key, "x")[0] is False


# -- canonical -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind_event", [True, False])
def test_canonical_clarify_is_answered_with_its_prompt_id_and_generation(kind_event: bool) -> None:
    drv = Driver().connect(Dialect.C).feed(c_clarify(kind_event=kind_event))
    assert drv.rows() == []  # not an approval
    prompt = only(drv)
    _, _, (frame,) = answer(drv, prompt.key, "yes")
    assert frame["method"] == "clarify.respond"
    assert frame["params"] == {
        "session_id": SID,
        "execution_generation": 3,
        "prompt_id": "p-9",
        "answer": "yes",
    }
    drv.feed(result(frame["id"], {"status": "already_resolved"}))
    assert len(drv.of_type(NoticeReceived)) == 1


def test_canonical_settle_ends_only_the_prompt_of_that_generation() -> None:
    drv = Driver().connect(Dialect.C).feed(c_clarify())
    drv.feed(settled("p-9", generation=2))
    assert len(drv.prompts()) == 1
    drv.feed(settled("p-9", generation=3))
    assert [r for _, r in ended(drv)] == [prompt_book.ANSWERED_ELSEWHERE]
    drv.feed(
        c_clarify("p-10"), event("clarify.settled", SID, {"prompt_id": "p-10", "reason": "expired"})
    )
    assert [r for _, r in ended(drv)][-1] == prompt_book.EXPIRED


def test_canonical_snapshot_prompts_bring_clarify_back_and_a_bad_one_is_dropped() -> None:
    drv = Driver().connect(Dialect.C)
    resume = drv.core.resume_session(SID)
    drv.flush()
    clarify = c_clarify()["params"]["payload"]
    broken = {"kind": "clarify", "question": "no id"}
    drv.feed(
        result(resume, {"session_id": SID, "prompts": [clarify, broken], "execution_generation": 3})
    )
    assert [p.question for p in drv.prompts()] == ["Ship it?"]
