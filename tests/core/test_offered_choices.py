"""Only offered choices: a choices list with nothing the tray knows offers nothing (issue 17)."""

from __future__ import annotations

from desktop.core.dialects import FALLBACK_CHOICES, offered_choices
from desktop.core.model import Choice


def test_a_list_of_unknown_choices_offers_nothing_instead_of_once_and_deny() -> None:
    assert offered_choices({"choices": ["all"]}) == ()
    assert offered_choices({"choices": ["approve", 3, None]}) == ()


def test_only_the_valid_offered_ones_in_the_servers_order() -> None:
    offered = offered_choices({"choices": ["all", "deny", "once", "deny"]})
    assert offered == (Choice.DENY, Choice.ONCE)


def test_no_list_at_all_keeps_the_one_shot_fallback() -> None:
    assert offered_choices({}) == FALLBACK_CHOICES  # MCP elicitation on 0.19.0 sends none
    assert offered_choices({"choices": None}) == FALLBACK_CHOICES
    assert offered_choices({"choices": []}) == FALLBACK_CHOICES
    assert offered_choices({"choices": ["session"], "smart_denied": True}) == FALLBACK_CHOICES
