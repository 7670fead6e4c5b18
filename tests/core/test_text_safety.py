"""reveal / hidden_characters / bound_text: hidden characters can never hide in what is shown."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.text_safety import (
    ESCAPE_CLOSE,
    ESCAPE_OPEN,
    SCRIPTLESS,
    bound_text,
    hidden_characters,
    is_hidden,
    lookalike_words,
    reveal,
)

_TOKEN = re.compile(f"{ESCAPE_OPEN}U\\+([0-9A-F]{{4,6}}){ESCAPE_CLOSE}")


def unreveal(shown: str) -> str:
    """Read revealed text back (the test's own decoder: proves reveal is injective)."""
    out, position = [], 0
    while position < len(shown):
        if shown[position] == ESCAPE_OPEN:
            match = _TOKEN.match(shown, position)
            assert match is not None, f"a bare {ESCAPE_OPEN} at {position} in {shown!r}"
            out.append(chr(int(match.group(1), 16)))
            position = match.end()
        else:
            out.append(shown[position])
            position += 1
    return "".join(out)


@pytest.mark.parametrize(
    ("raw", "code_point"),
    [
        ("rm -rf /\u202e", 0x202E),  # right-to-left override
        ("a\u200bb", 0x200B),  # zero width space
        ("a\u200fb", 0x200F),  # right-to-left mark
        ("a\u2066b", 0x2066),  # left-to-right isolate
        ("a\u2069b", 0x2069),  # pop directional isolate
        ("a\u061cb", 0x061C),  # arabic letter mark
        ("a\ufeffb", 0xFEFF),  # byte order mark / zero width no-break space
        ("a\u2060b", 0x2060),  # word joiner
        ("a\u2064b", 0x2064),  # invisible plus
        ("a\x1b[31mred", 0x1B),  # terminal escape
        ("a\rb", 0x0D),  # carriage return: would let a line overwrite itself
        ("a\x00b", 0x00),
        ("a\x7fb", 0x7F),
        ("a\u00adb", 0x00AD),  # soft hyphen
        ("a\ue000b", 0xE000),  # private use
        ("a\ud800b", 0xD800),  # lone surrogate
        ("a\u2028b", 0x2028),  # line separator
        ("a\u00a0b", 0x00A0),  # no-break space: looks like a space
        ("a\u3164b", 0x3164),  # hangul filler: a letter that draws nothing
        ("a\ufe0fb", 0xFE0F),  # variation selector
        ("a\U000e0041b", 0xE0041),  # tag latin capital A
    ],
)
def test_reveal_escapes_each_kind_of_hidden_character(raw: str, code_point: int) -> None:
    shown = reveal(raw)
    assert chr(code_point) not in shown
    assert f"{ESCAPE_OPEN}U+{code_point:04X}{ESCAPE_CLOSE}" in shown
    assert hidden_characters(raw)[0].startswith(f"U+{code_point:04X} ")


@pytest.mark.parametrize(
    "text",
    [
        "rm -rf build/",
        "line one\nline two",
        "col\tcol",
        "grüße ünïcödé",
        "日本語のコマンド",
        "emoji 😀",
    ],
)
def test_visible_text_is_left_as_is(text: str) -> None:
    assert reveal(text) == text
    assert hidden_characters(text) == ()


def test_the_ascii_shortcut_agrees_with_the_character_rules_for_every_ascii_character() -> None:
    for char in map(chr, range(0x80)):
        hidden = is_hidden(char)
        assert (reveal(f"a{char}b") == f"a{char}b") is not hidden, repr(char)
        assert bool(hidden_characters(f"a{char}")) is hidden, repr(char)
        assert (bound_text(f"a{char}", 10)[0] == f"a{char}") is not hidden, repr(char)


def test_the_escape_bracket_itself_is_escaped_so_a_literal_cannot_pose_as_an_escape() -> None:
    forged = f"rm {ESCAPE_OPEN}U+202E{ESCAPE_CLOSE}"
    real = "rm \u202e"
    assert reveal(forged) != reveal(real)
    assert hidden_characters(forged) == ()  # the bracket is escaped but is not "hidden"


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ("a\u202eb\u202ec", ("U+202E RIGHT-TO-LEFT OVERRIDE",)),
        ("\x1b\u200b", ("U+001B ESCAPE", "U+200B ZERO WIDTH SPACE")),
        ("\ue000", ("U+E000 private-use character",)),
        ("\ud800", ("U+D800 lone surrogate",)),
        ("\x01", ("U+0001 control character",)),
    ],
)
def test_hidden_characters_names_each_distinct_character_once(
    raw: str, names: tuple[str, ...]
) -> None:
    assert hidden_characters(raw) == names


@pytest.mark.parametrize(
    ("raw", "limit", "expected", "cut"),
    [
        ("short", 10, "short", False),
        ("exactly10!", 10, "exactly10!", False),
        ("abcdefghijk", 5, "abcd…", True),
        ("ab\u202ecdefgh", 6, "ab…", True),  # the escape does not fit whole: dropped, not split
        ("ab\u202ecdefgh", 12, "ab⟨U+202E⟩c…", True),
        ("x", 1, "x", False),
        ("xy", 1, "…", True),
    ],
)
def test_bound_text_cuts_without_splitting_escapes(
    raw: str, limit: int, expected: str, cut: bool
) -> None:
    assert bound_text(raw, limit) == (expected, cut)


def test_bound_text_of_revealed_text_only_shortens_it() -> None:
    shown = reveal("rm \u202e ⟨x⟩ -rf")
    assert bound_text(shown, 1000) == (shown, False)


def test_bound_text_refuses_a_limit_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        bound_text("x", 0)


@given(st.text(alphabet=st.characters(codec=None), max_size=200))
def test_revealed_text_contains_no_hidden_character(raw: str) -> None:
    assert not any(is_hidden(char) for char in reveal(raw))


@given(st.text(max_size=200))
def test_reveal_can_be_read_back_exactly(raw: str) -> None:
    assert unreveal(reveal(raw)) == raw


@given(st.text(max_size=60), st.text(max_size=60))
def test_two_different_commands_never_render_the_same(first: str, second: str) -> None:
    if first != second:
        assert reveal(first) != reveal(second)


@given(st.text(max_size=300), st.integers(min_value=1, max_value=80))
def test_bound_text_is_bounded_and_safe(raw: str, limit: int) -> None:
    shown, cut = bound_text(raw, limit)
    assert len(shown) <= limit
    assert not any(is_hidden(char) for char in shown)
    assert cut == (len(reveal(raw).replace(f"{ESCAPE_OPEN}U+27E8{ESCAPE_CLOSE}", "_")) > limit)


@given(st.characters(codec=None))
def test_every_character_is_either_kept_or_escaped(char: str) -> None:
    shown = reveal(char)
    if is_hidden(char) or char == ESCAPE_OPEN:
        assert shown == f"{ESCAPE_OPEN}U+{ord(char):04X}{ESCAPE_CLOSE}"
    else:
        assert shown == char
        assert unicodedata.category(char) not in {"Cc", "Cf", "Cs", "Co", "Cn"} or char in "\n\t"


def test_the_scriptless_characters_belong_to_no_script() -> None:
    from confusable_homoglyphs import categories

    assert {c: categories.alias(c) for c in SCRIPTLESS} == dict.fromkeys(SCRIPTLESS, "COMMON")


def test_a_label_with_only_scriptless_characters_needs_no_lookalike_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "confusable_homoglyphs", None)  # importing it would fail
    label = "No gateway configured — see Settings… → “Hermes”"
    assert lookalike_words(label) == []
    assert reveal(label) == label


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("open g\u0456thub.com…", ["g\u0456thub.com…"]),  # a Cyrillic i among Latin letters
        ("paypa\u0661.com", ["paypa\u0661.com"]),  # an Arabic-Indic one for an l
        ("caf\u00e9 — Settings…", []),  # Latin letters only
        ("\u043f\u0440\u0438\u0432\u0435\u0442 world", []),  # a Russian word on its own
    ],
)
def test_lookalike_words_are_words_mixing_latin_with_another_script(
    text: str, words: list[str]
) -> None:
    assert [text[start:end] for start, end in lookalike_words(text)] == words
