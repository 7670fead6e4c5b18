r"""Read a command with the bash grammar and see its simple commands as the shell would.

Why tree-sitter-bash: it reads all the bash agents write (here-docs, ``$( )``, ``case``,
``[[ ]]``, ``$(( ))``) and never raises; what it cannot read becomes ERROR/MISSING nodes we can
mark. bashlex raises on ``case`` and arithmetic, fails on ``[[ ]]`` and takes about 1 s for a
60,000-character command.

A :class:`Word`'s value is known before the command runs (``r''m`` and ``$'\x72m'`` are ``rm``,
``$X`` is what an earlier ``X=…`` set); ``disguised``: the written text differs from what runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

_LANGUAGE = Language(tree_sitter_bash.language())

# Node types that run something whose output becomes part of a word.
SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_EXPANSIONS = frozenset({"simple_expansion", "expansion"})
_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)")
_ANSI_SIMPLE = dict(zip("ntrabeEfv", "\n\t\r\a\b\x1b\x1b\f\v", strict=True))
_BACKSLASH = re.compile(r"\\(\n|.)", re.DOTALL)
_IN_DOUBLE_QUOTES = re.compile(r"\\([$`\"\\\n])")


# tree-sitter-bash (0.23.3 to 0.25.1) dies of SIGSEGV reading "{" followed by a code point from
# U+60000 up (found by tests/risk/test_fuzz.py): a command could crash the tray. Every code point
# from U+40000 up (unassigned planes, tags, private use: no shell syntax) is read as U+20000,
# which is as long in UTF-8, so every offset stays the same.
_HIGH_PLANES = re.compile(rb"[\xf1-\xf4][\x80-\xbf]{3}")
_STAND_IN = "\U00020000".encode()


def parse(source: bytes) -> Tree:
    """A fresh parser per call: Parser objects are not safe to share between threads."""
    return Parser(_LANGUAGE).parse(_HIGH_PLANES.sub(_STAND_IN, source))


def text_of(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


@dataclass(frozen=True, slots=True)
class Word:
    value: str | None  # None: only known when the command runs
    start: int  # byte offsets in the parsed source
    end: int
    disguised: bool  # written differently from what runs (quotes inside, escapes, $IFS, $X)
    node: Node


def _ansi_c(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        head = code[0]
        if head in "xuU" and len(code) > 1:
            return chr(min(int(code[1:], 16), 0x10FFFF))
        if head.isdigit():
            return chr(int(code, 8) & 0xFF)
        if head == "c":
            return chr(ord(code[1]) & 0x1F)
        return _ANSI_SIMPLE.get(code, code)

    return _ANSI_C.sub(one, body)


def word_value(node: Node, variables: dict[str, str]) -> tuple[str | None, bool]:
    """The value of one word node and whether it is disguised; ``(None, …)`` when dynamic."""
    kind = node.type
    raw = text_of(node)
    if kind in {"word", "number", "command_name"} and not node.named_child_count:
        value = _BACKSLASH.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
        return value, value != raw
    if kind == "raw_string":
        return raw[1:-1], True
    if kind == "ansi_c_string":
        return _ansi_c(raw[2:-1]), True
    if kind == "translated_string":  # $"…"
        return None, True
    if kind in _EXPANSIONS:
        name = next((text_of(c) for c in node.named_children if c.type == "variable_name"), "")
        plain = kind == "simple_expansion" or node.named_child_count == 1
        if name == "IFS" and plain:
            return " ", True
        if plain and name in variables:
            return variables[name], True
        return None, True
    if kind not in {"concatenation", "command_name", "string"}:
        return None, True
    parts: list[str] = []
    disguised = kind != "command_name"  # quotes or pieces glued together
    for child in node.named_children:
        if kind == "string" and child.type == "string_content":
            parts.append(_IN_DOUBLE_QUOTES.sub(r"\1", text_of(child)))
            continue
        part, hidden = word_value(child, variables)
        if part is None:
            return None, True
        parts.append(part)
        disguised = disguised or hidden
    return "".join(parts), disguised


def word(node: Node, variables: dict[str, str]) -> Word:
    value, disguised = word_value(node, variables)
    return Word(value, node.start_byte, node.end_byte, disguised, node)


def simple_command(node: Node, variables: dict[str, str]) -> tuple[Word, ...]:
    """Words of a ``command`` node, name first; prefix assignments (``X=rm $X``) apply to it."""
    words: list[Word] = []
    local = dict(variables)
    for child in node.named_children:
        if child.type == "variable_assignment":
            assign(child, local)
            continue
        if child.type == "command_name":
            inner = child.named_children
            if len(inner) == 1:
                words.append(word(inner[0], local))
            else:
                words.append(Word(None, child.start_byte, child.end_byte, True, child))
            continue
        if child.type in {"file_redirect", "heredoc_redirect", "herestring_redirect"}:
            continue
        words.append(word(child, local))
    return tuple(_split_ifs(words))


def _split_ifs(words: list[Word]) -> list[Word]:
    """Split words that expand ``$IFS``: ``rm${IFS}-rf${IFS}/`` is three words when it runs."""
    out: list[Word] = []
    for w in words:
        if (
            w.value is not None
            and w.node.type in {"concatenation", "simple_expansion", "expansion"}
            and "IFS" in text_of(w.node)
        ):
            out.extend(Word(part, w.start, w.end, True, w.node) for part in w.value.split())
        else:
            out.append(w)
    return out


def assign(node: Node, variables: dict[str, str]) -> None:
    """Record ``X=value`` when the value is static, forget ``X`` otherwise."""
    name_node = node.child_by_field_name("name")
    value_node = node.child_by_field_name("value")
    if name_node is None:
        return
    name = text_of(name_node)
    value = "" if value_node is None else word_value(value_node, variables)[0]
    if value is None:
        variables.pop(name, None)
    else:
        variables[name] = value
