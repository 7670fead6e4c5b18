"""The dialog's wording, with plain calls."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core.model import ApprovalPhase, CallContext, Choice, Outcome, OutcomeKind
from desktop.model.approvals import texts
from tests.core.replay import PEER_B, Replay
from tests.model.approvals.factory import approval, resolved

A = approval("a")


T = texts.Tone
STATES = [
    (A, "Waiting for you", T.WAITING),
    (replace(A, answerable=False, blocked_reason="#1 first"), "Waiting — #1 first", T.BLOCKED),
    (replace(A, phase=ApprovalPhase.SENDING), "Sending…", T.BUSY),
    (resolved(A, OutcomeKind.APPROVED, Choice.SESSION), "Approved (session)", T.GOOD),
    (resolved(A, OutcomeKind.DENIED, Choice.DENY), "Denied", T.BAD),
    (resolved(A, OutcomeKind.WITHDRAWN, reason="interrupted"), "Withdrawn — interrupted", T.ENDED),
    (resolved(A, OutcomeKind.EXPIRED), "Expired", T.ENDED),
    (resolved(A, OutcomeKind.UNKNOWN, reason="lost"), "Unknown — lost", T.WARN),
    (replace(A, phase=ApprovalPhase.STALE, blocked_reason="gone"), "Stale — gone", T.WARN),
]  # fmt: skip


@pytest.mark.parametrize(("value", "expected", "tone"), STATES)
def test_state_text_for_every_state(value: object, expected: str, tone: texts.Tone) -> None:
    assert texts.state_text(value) == (expected, tone)  # type: ignore[arg-type]


def test_state_text_reveals_hidden_characters_in_reasons() -> None:
    a = replace(A, phase=ApprovalPhase.STALE, blocked_reason="ok\u202e")
    assert "⟨U+202E⟩" in texts.state_text(a)[0]
    assert "\u202e" not in texts.outcome_text(Outcome(OutcomeKind.EXPIRED, reason="x\u200b"))[0]


@pytest.mark.parametrize(
    ("left", "expected"),
    [(65.0, "expires in 1:05"), (0.2, "expires in 0:01"), (0.0, "expiring…"), (-3, "expiring…")],
)
def test_remaining_text(left: float, expected: str) -> None:
    assert texts.remaining_text(100.0 + left, 100.0) == expected
    assert texts.remaining_text(None, 100.0) == ""


def test_label_text_cuts_visibly_and_reveals() -> None:
    shown = texts.label_text("a\u200b" + "x" * 500, 50)
    assert shown.startswith("a⟨U+200B⟩")
    assert "…" in shown
    assert shown.endswith("[502 characters in all]")
    assert texts.label_text("short", 50) == "short"


def test_revealed_fast_path_and_hidden_names() -> None:
    assert texts.revealed("ls -la\n\tx") == ("ls -la\n\tx", ())
    shown, names = texts.revealed("a\u202eb⟨")
    assert shown == "a⟨U+202E⟩b⟨U+27E8⟩"
    assert names == ("U+202E RIGHT-TO-LEFT OVERRIDE",)
    warning = texts.hidden_warning(names)
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in warning
    assert texts.hidden_warning(()) == ""
    many = texts.hidden_warning(tuple(f"n{i}" for i in range(9)), limit=6)
    assert "n5 and 3 more" in many
    assert "n6" not in many


def test_always_confirmation_names_the_pattern_class() -> None:
    text = texts.always_confirmation(replace(A, pattern_keys=("recursive_delete", "rm\u202e")))
    assert "recursive_delete, rm⟨U+202E⟩" in text
    assert "permanent allowlist" in text
    assert "no pattern class" in texts.always_confirmation(replace(A, pattern_keys=()))


def _reasks(name: str) -> list[tuple[str, str]]:
    """(command tail, what its card says) for every re-ask of a real iot transcript."""
    rows = Replay(PEER_B, name).run().rows()
    return [(a.command.rsplit("/", 1)[-1], texts.asked_again(a)) for a in rows if a.reask_of]


FRESH = "so this needs a fresh decision."
EARLIER_FAILED = f"Asked again: #1 of an earlier batch failed with exit 1, {FRESH}"
TIMED_OUT = "of an earlier batch timed out (nobody answered in time)."
REASK_TEXTS = [
    ("batch3_reask", [("c", f"Asked again: you denied #2 of an earlier batch, {FRESH}")]),
    (
        "regate",
        [
            ("r2", EARLIER_FAILED),
            ("r3 -delete", EARLIER_FAILED),
            ("r2", f"Asked again: #1 failed with exit 1, {FRESH}"),  # still in #1's batch
            ("r3 -delete", EARLIER_FAILED),
        ],
    ),
    (
        "timeout",
        [
            ("x2 -delete", f"Asked again: #1 {TIMED_OUT}"),
            ("x3", f"Asked again: #1 {TIMED_OUT}"),
            ("x3", f"Asked again: #2 {TIMED_OUT}"),
        ],
    ),
]


@pytest.mark.parametrize(("name", "expected"), REASK_TEXTS)
def test_a_re_ask_names_the_row_that_caused_it_in_real_transcripts(
    name: str, expected: list[tuple[str, str]]
) -> None:
    assert _reasks(name) == expected


def test_a_sub_agents_row_says_its_goal_never_the_parents_words() -> None:
    child = CallContext("/w", "terminal", "the parent's words", "Remove /tmp/cb")
    assert texts.agent_line(child, expanded=False) == ("Sub-agent's goal: Remove /tmp/cb", False)
    parent = CallContext("/w", "terminal", "I'll clean up.")
    assert texts.agent_line(parent, expanded=False) == ("Agent: I'll clean up.", False)
    assert texts.agent_line(CallContext(), expanded=False) == ("", False)
    long_goal = CallContext(subagent_goal="word " * 100)
    text, more = texts.agent_line(long_goal, expanded=False)
    assert more
    assert text.startswith("Sub-agent's goal: word")
    assert text.endswith("…")


def test_a_path_under_any_home_and_under_the_given_one_starts_with_a_tilde() -> None:
    assert texts.short_path("/home/ana/src/x") == "~/src/x"
    assert texts.short_path("/srv/ana/src/x", "/srv/ana/") == "~/src/x"
    assert texts.short_path("/srv/anabel", "/srv/ana") == "/srv/anabel"
