"""Make hidden characters in agent-supplied text visible before a person decides on it.

A command is model-written, so attacker-influenced: bidi overrides, zero-width and control
characters can make a dangerous command *look* harmless. Everything shown goes through
:func:`reveal` or :func:`bound_text`: a hidden character, or a letter of another alphabet in a
word mixing it with Latin (TR39 mixed-script), becomes ``⟨U+XXXX⟩``, and ``⟨`` itself is
escaped too, so two commands never render the same.
"""

from __future__ import annotations

import re
import unicodedata

ESCAPE_OPEN = "\u27e8"  # ⟨
ESCAPE_CLOSE = "\u27e9"  # ⟩
ELLIPSIS = "\u2026"

_KEPT = frozenset("\n\t")
MAYBE_HIDDEN = re.compile(r"[^\x20-\x7e\n\t]")  # text without one has nothing hidden
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_INVISIBLE_OTHERS = frozenset(  # letters and marks that draw nothing
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0),
        *range(0xFE00, 0xFE10),  # variation selectors 1-16
        *range(0xE0100, 0xE01F0),  # variation selectors 17-256
    ]
)
_CATEGORY_NAMES = {
    "Cc": "control character",
    "Cf": "format character",
    "Co": "private-use character",
    "Cs": "lone surrogate",
    "Cn": "unassigned code point",
}
_CONTROL_NAMES = {
    0x00: "NULL",
    0x07: "BELL",
    0x08: "BACKSPACE",
    0x0B: "LINE TABULATION",
    0x0C: "FORM FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESCAPE",
    0x7F: "DELETE",
}


def is_hidden(char: str) -> bool:
    """Whether one character would be invisible or misleading if drawn as is."""
    if char in _KEPT:
        return False
    category = unicodedata.category(char)
    if category in _HIDDEN_CATEGORIES:
        return True
    if category == "Zs":
        return char != " "
    return ord(char) in _INVISIBLE_OTHERS


WORD = re.compile(r"[^\s'\"`;&|()<>{}$=,]+")  # as a person reads one: look-alikes hide inside


# Script-less symbols of the tray's labels: no confusable_homoglyphs look-up (15 MiB, 0.1 s).
SCRIPTLESS = frozenset("…—·→←•“”⟨⟩")


def lookalike_words(text: str) -> list[tuple[int, int]]:
    """Spans of words mixing Latin letters with another alphabet's (TR39 mixed-script)."""
    if text.isascii():
        return []
    words = [match for match in WORD.finditer(text) if _mixes_latin(match.group())]
    if not words:
        return []
    from confusable_homoglyphs import confusables

    return [
        (match.start(), match.end())
        for match in words
        if confusables.is_mixed_script(match.group())
    ]


def _mixes_latin(word: str) -> bool:
    """ASCII letters with others: Japanese or Russian words alone are text, not disguise."""
    return (
        not word.isascii()
        and any(c.isascii() and c.isalpha() for c in word)
        and not all(c.isascii() or c in SCRIPTLESS for c in word)
    )


def lookalike_positions(text: str) -> frozenset[int]:
    """Where the letters of another alphabet in those words are: they are shown escaped."""
    return frozenset(
        i
        for start, end in lookalike_words(text)
        for i in range(start, end)
        if not text[i].isascii()
        and text[i].isalpha()
        and not unicodedata.name(text[i], "").startswith("LATIN")
    )


def escape(char: str) -> str:
    return f"{ESCAPE_OPEN}U+{ord(char):04X}{ESCAPE_CLOSE}"


def reveal(text: str) -> str:
    """``text`` with every hidden character (and ``⟨``) escaped; newlines and tabs are kept."""
    return _escaped(text, ESCAPE_OPEN)


def _escaped(text: str, also: str) -> str:
    if MAYBE_HIDDEN.search(text) is None:
        return text
    looks = lookalike_positions(text)
    return "".join(
        escape(c) if c == also or is_hidden(c) or i in looks else c for i, c in enumerate(text)
    )


def hidden_characters(text: str) -> tuple[str, ...]:
    """Names of the distinct hidden characters, first seen first ("U+202E RIGHT-TO-LEFT ...")."""
    if MAYBE_HIDDEN.search(text) is None:
        return ()
    seen: dict[str, str] = {}
    for char in text:
        if char not in seen and is_hidden(char):
            seen[char] = _describe(char)
    return tuple(seen.values())


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    """``(text, was_cut)``: at most ``limit`` (>= 1) characters, ``…`` when cut, no escape split.

    ``⟨`` is not escaped here, so already revealed text passes unchanged but for its length.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    safe = _escaped(text, "")
    if len(safe) <= limit:
        return safe, False
    cut = limit - 1
    opening = safe.rfind(ESCAPE_OPEN, 0, cut)
    if opening >= 0 and safe.find(ESCAPE_CLOSE, opening, cut) < 0:
        cut = opening  # the escape starting here does not fit whole: drop all of it
    return safe[:cut] + ELLIPSIS, True


def _describe(char: str) -> str:
    code = ord(char)
    name = _CONTROL_NAMES.get(code) or unicodedata.name(char, "")
    if not name:
        category = unicodedata.category(char)
        name = _CATEGORY_NAMES.get(category, "invisible character")
    return f"U+{code:04X} {name}"
