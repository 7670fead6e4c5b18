"""Session names: unique in one folder, stable once shown, cut to the room a caller has."""

from __future__ import annotations

import pytest

from desktop.core.model import SessionState
from desktop.model.session_names import (
    SessionName,
    SessionNames,
    compose,
    fit,
    short_folder,
    unnamed,
)

PROMPT = "Please fix the failing login tests in the auth module and then run the whole suite"


def session(sid: str, title: str = "", cwd: str = "", stored: str = "") -> SessionState:
    return SessionState(sid, stored_session_id=stored, title=title, cwd=cwd)


def test_name_is_title_plus_short_folder() -> None:
    names = SessionNames()
    assert names.text("g", session("s1", "Fix login", "/home/ana/src/ux019")) == "Fix login · ux019"


def test_two_tasks_in_one_folder_differ() -> None:
    names = SessionNames()
    first = names.text("g", session("s1", "Fix login", "/srv/ux019"))
    second = names.text("g", session("s2", "Fix login", "/srv/ux019"))
    assert first != second
    assert second == "Fix login · ux019 (2)"
    # untitled sessions in one folder differ by their short id
    assert names.text("g", session("aaaaaa1", cwd="/srv/ux019")) == "ux019 · session aaaaaa"
    assert names.text("g", session("bbbbbb1", cwd="/srv/ux019")) == "ux019 · session bbbbbb"


def test_the_same_session_on_two_gateways_is_two_sessions() -> None:
    names = SessionNames()
    assert names.text("g1", session("s1", "T", "/x")) == "T · x"
    assert names.text("g2", session("s1", "T", "/x")) == "T · x (2)"


def test_a_name_does_not_change_once_shown() -> None:
    names = SessionNames()
    shown = names.text("g", session("s1", PROMPT, "/srv/ux019"), 200)
    renamed = names.text("g", session("s1", "Auth test fixes", "/srv/other"), 200)
    assert renamed == shown
    assert names.name("g", session("s1")) == names.name("g", session("s1", "x", "/y"))


def test_a_session_shown_without_a_title_keeps_its_name_and_says_the_title_after_it() -> None:
    names = SessionNames()
    assert names.text("g", session("abcdef99", cwd="/srv/ux019")) == "ux019 · session abcdef"
    titled = "ux019 · session abcdef · Deploy"
    assert names.text("g", session("abcdef99", "Deploy", "/srv/ux019")) == titled
    assert names.text("g", session("abcdef99", "Other", "/srv/ux019")) == titled
    # narrow: the late title goes before anything of the name is cut
    narrow = names.text("g", session("abcdef99", "Other", "/srv/ux019"), 30)
    assert narrow == "ux019 · session abcdef"


def test_a_long_prompt_uses_the_room_the_caller_has() -> None:
    name = compose(session("s1", PROMPT, "/srv/ux019"))
    wide = fit(name, 120)
    assert wide == f"{PROMPT} · ux019"
    narrow = fit(name, 40)
    assert len(narrow) <= 40
    assert narrow.endswith("… · ux019")
    assert narrow.startswith("Please fix the failing")
    assert len(fit(name, 8)) <= 8 + len(" · ux019")


@pytest.mark.parametrize("width", [8, 12, 20, 33, 60, 200])
def test_fit_never_exceeds_a_reasonable_budget(width: int) -> None:
    name = SessionName(PROMPT, "ux019", "abc", ordinal=3)
    text = fit(name, width)
    assert text.endswith(" (3)")
    assert len(text) <= max(width, 8) + 1


def test_title_whitespace_is_folded_and_hidden_characters_left_for_the_surface() -> None:
    name = compose(session("s1", "fix\n\n  the\u202etests", "/srv/a\u200bb"))
    assert name.title == "fix the\u202etests"  # each surface reveals it once (plain_text, texts)
    assert name.folder == "a\u200bb"


@pytest.mark.parametrize(
    ("cwd", "folder"),
    [
        ("", ""),
        ("/", "/"),
        ("/home/ana", "~"),
        ("/Users/bo/", "~"),
        ("~", "~"),
        ("/srv/www/site/", "site"),
        ("relative/dir", "dir"),
    ],
)
def test_short_folder(cwd: str, folder: str) -> None:
    assert short_folder(cwd) == folder


def test_the_short_id_is_the_random_end_of_a_stored_id_never_its_date() -> None:
    assert compose(session("live123456", stored="20261129_101342_9cbd2d")).short_id == "9cbd2d"
    assert fit(compose(session("live123456"))) == "session live12"
    assert fit(compose(session("20261201_204146_5ab245"))) == "session 5ab245"  # 0.20 live ids
    assert unnamed("odd_") == "session odd_"


def test_sessions_of_one_month_in_one_folder_have_distinct_names() -> None:
    """hermes-0.19.0 ``concurrent``: three tray-started sessions in one folder, untitled."""
    names = SessionNames()
    stored = ["20261129_101352_0a103b", "20261129_101353_335fc4", "20261129_101353_e32137"]
    texts = [
        names.text("g", session(f"live{n}", cwd="/srv/peer/userhome", stored=s))
        for n, s in enumerate(stored)
    ]
    assert texts == [f"userhome · session {s[-6:]}" for s in stored]
    # colliding short ids still differ, and each keeps its "(2)"
    twin = names.text("g", session("live9", cwd="/srv/peer/userhome", stored="x_0a103b"))
    assert twin == "userhome · session 0a103b (2)"
    assert names.text("g", session("live9", "Titled", "/srv/peer/userhome")).startswith(twin)


def test_memory_is_bounded() -> None:
    names = SessionNames()
    first = names.text("g", session("s0", "T", "/x"))
    for i in range(1, 5000):
        names.name("g", session(f"s{i}", f"T{i}", "/x"))
    # the oldest was forgotten: another session gets "T · x", not "T · x (2)"
    assert names.text("g", session("other", "T", "/x")) == first


def test_a_resumed_session_keeps_its_name_through_its_stored_id() -> None:
    names = SessionNames()
    first = names.text("g", session("live-1", "Fix login", "/srv/ux019", stored="st-1"))
    resumed = names.text("g", session("live-2", "Fix login", "/srv/ux019", stored="st-1"))
    assert resumed == first == "Fix login · ux019"
    # the stored id learnt later joins the live id that was shown first
    late = names.text("g", session("live-3", "Deploy", "/srv"))
    assert names.text("g", session("live-3", "Deploy", "/srv", stored="st-3")) == late
    assert names.text("g", session("live-4", "Deploy", "/srv", stored="st-3")) == late


def test_a_session_first_shown_without_a_folder_gains_it_once_at_the_end() -> None:
    names = SessionNames()
    assert names.text("g", session("s1", "Clean up", "")) == "Clean up"
    assert names.text("g", session("s1", "Clean up", "/code/webshop")) == "Clean up · webshop"
    assert names.text("g", session("s1", "Renamed", "/elsewhere")) == "Clean up · webshop"
    assert names.text("g", session("abcdef1")) == "session abcdef"
    names.pin("g", session("abcdef1"))  # announced under the bare name: it stays the beginning
    assert names.text("g", session("abcdef1", cwd="/code/shop")) == "session abcdef · shop"
    assert names.text("g", session("abcdef1", "T", "/code/shop")) == "session abcdef · shop · T"


def test_a_bare_id_name_gives_way_to_the_title_until_something_is_announced_under_it() -> None:
    names = SessionNames()
    listed = SessionState("20261206_101342_9cbd2d")
    assert names.text("g", listed) == "session 9cbd2d"  # listed before its info came
    titled = SessionState(listed.session_id, title="Clean up the build", cwd="/home/a/webshop")
    assert names.text("g", titled) == "Clean up the build · webshop"
    other = SessionState("20261206_101342_aaaaaa")
    names.text("g", other)
    names.pin("g", other)  # a row was announced as "session aaaaaa": it stays its beginning
    later = SessionState(other.session_id, title="Fix tests", cwd="/home/a/webshop")
    assert names.text("g", later).startswith("session aaaaaa")
