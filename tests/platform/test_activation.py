"""The activation rule, the token checks and the single-instance token line, by plain calls."""

from __future__ import annotations

import pytest

from desktop.platform.activation import (
    MAX_TOKEN,
    SAY_WHERE_QUIET_S,
    STARTUP_ID_ENV,
    TOKEN_ENV,
    Activation,
    EventToken,
    launch_token,
    plan_activation,
    should_say_where,
    token_from_line,
    token_line,
    valid_token,
)


@pytest.mark.parametrize(
    "raw",
    ["", "two words", "tab\there", "t" * (MAX_TOKEN + 1), "é", "\x1b[2J", "line\n"],
)
def test_what_cannot_be_a_token_is_dropped(raw: str) -> None:
    assert valid_token(raw) == ""


@pytest.mark.parametrize(
    "raw", ["a1b2c3", "gnome-shell/firefox/1234-0-host_TIME42", "t" * MAX_TOKEN]
)
def test_real_shaped_tokens_pass(raw: str) -> None:
    assert valid_token(raw) == raw


def test_a_launch_token_is_taken_out_of_the_environment_wayland_first() -> None:
    environ = {TOKEN_ENV: "wl-token", STARTUP_ID_ENV: "x11-id", "HOME": "/h"}
    assert launch_token(environ) == "wl-token"
    assert environ == {"HOME": "/h"}  # neither left for a later window or a child


def test_x11_startup_id_when_there_is_no_wayland_token() -> None:
    environ = {TOKEN_ENV: "bad token", STARTUP_ID_ENV: "xfce4-panel_TIME7"}
    assert launch_token(environ) == "xfce4-panel_TIME7"
    assert launch_token({}) == ""


def test_token_line_round_trip_and_hostile_lines() -> None:
    line = token_line("abc")
    assert line == "activation-token abc"
    assert token_from_line(line) == "abc"
    assert token_line("bad token") == ""  # nothing sent rather than something unusable
    assert token_from_line("activation-token two words") == ""
    assert token_from_line("activation-token") == ""
    assert token_from_line("show-approvals") is None


def test_wayland_uses_the_token_and_looks_once_whether_it_worked() -> None:
    assert plan_activation("wayland", "tok", already_active=False) == Activation("tok", True)
    assert plan_activation("wayland", "", already_active=False) == Activation("", True)
    assert plan_activation("wayland", "bad token", already_active=False) == Activation("", True)


def test_nothing_to_do_when_active_or_off_wayland() -> None:
    assert plan_activation("wayland", "tok", already_active=True) == Activation("", False)
    for platform in ("xcb", "windows", "cocoa", "offscreen"):
        assert plan_activation(platform, "tok", already_active=False) == Activation("", False)


def test_saying_where_is_not_repeated_within_the_quiet_time() -> None:
    assert should_say_where(None, 5.0)
    assert not should_say_where(100.0, 100.0 + SAY_WHERE_QUIET_S - 1)
    assert should_say_where(100.0, 100.0 + SAY_WHERE_QUIET_S)


def test_an_event_token_lives_only_while_its_event_is_handled_and_is_used_once() -> None:
    holder = EventToken()
    with holder.handling("tok"):
        assert holder.take() == "tok"
        assert holder.take() == ""  # single use, like the compositor's
    with holder.handling("tok"):
        pass
    assert holder.take() == ""  # never outlives its event
    with holder.handling("two words"):
        assert holder.take() == ""
