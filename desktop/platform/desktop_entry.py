r"""Freedesktop desktop entries (Desktop Entry Specification 1.5): render, parse, quote ``Exec``.

Not configparser: values have their own escapes (``\s``, ``\n``), keys are case-sensitive, and
``Exec=`` has a quoting language on top, where a naive space or ``%`` runs something else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

GROUP = "[Desktop Entry]"
_RESERVED = set(" \t\n\"'\\><~|&;$*?#`()")
_QUOTED_ESCAPES = set('"`$\\')
_VALUE_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def escape_value(text: str) -> str:
    """Escape a string value (backslash, newline, tab, carriage return, a leading space)."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return "\\s" + text[1:] if text.startswith(" ") else text  # readers strip leading spaces


def unescape_value(text: str) -> str:
    r"""Undo :func:`escape_value` (and ``\s``); an unknown escape is kept as written."""
    out: list[str] = []
    chars = iter(text)
    for ch in chars:
        if ch != "\\":
            out.append(ch)
            continue
        following = next(chars, "")
        out.append(_VALUE_ESCAPES.get(following, "\\" + following))
    return "".join(out)


def _quote_arg(arg: str) -> str:
    if "\n" in arg or "\r" in arg:
        raise ValueError(f"a command argument cannot contain a line break: {arg!r}")
    arg = arg.replace("%", "%%")  # field codes: a literal percent is written twice
    if arg and not (_RESERVED & set(arg)):
        return arg
    escaped = "".join("\\" + ch if ch in _QUOTED_ESCAPES else ch for ch in arg)
    return f'"{escaped}"'


def exec_value(command: Sequence[str]) -> str:
    """The ``Exec=`` value (already value-escaped) that runs ``command`` exactly."""
    if not command:
        raise ValueError("an Exec line needs a program")
    return escape_value(" ".join(_quote_arg(arg) for arg in command))


def render(entries: Iterable[tuple[str, str]]) -> str:
    """A ``[Desktop Entry]`` group from (key, already-escaped value) pairs, in order."""
    return "\n".join([GROUP, *(f"{key}={value}" for key, value in entries)]) + "\n"


def parse(text: str) -> dict[str, str]:
    """The ``[Desktop Entry]`` group's keys with unescaped values (other groups ignored)."""
    values: dict[str, str] = {}
    in_group = False
    for raw_line in text.split("\n"):  # only \n ends a line; str.splitlines() knows many more
        line = raw_line.rstrip("\r")
        head = line.strip()
        if not head or head.startswith("#"):
            continue
        if head.startswith("["):
            in_group = head == GROUP
            continue
        if in_group and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = unescape_value(value.lstrip(" \t"))
    return values
