r"""Freedesktop desktop entries: render, parse, and quote ``Exec=`` correctly.

Why hand-written and not configparser: desktop entries are not INI files. Values have their own
escapes (``\s``, ``\n``, ``\\``), keys are case-sensitive, and ``Exec=`` has a quoting
language of its own on top of that -- a path with a space or a ``%`` written naively makes the
session manager run something else or nothing at all. The rules come from the Desktop Entry
Specification 1.5, "Recognized desktop entry keys" and "The Exec key".
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


def split_exec(value: str) -> list[str]:
    """The argument list an ``Exec=`` value stands for; ``value`` as :func:`parse` returns it."""
    text = value
    args: list[str] = []
    current: list[str] | None = None
    quoted = False
    index = 0
    while index < len(text):
        ch = text[index]
        if quoted:
            if ch == "\\" and index + 1 < len(text) and text[index + 1] in _QUOTED_ESCAPES:
                index += 1
                ch = text[index]
            elif ch == '"':
                quoted = False
                index += 1
                continue
        elif ch == '"':
            quoted, current = True, current if current is not None else []
            index += 1
            continue
        elif ch == " ":
            if current is not None:
                args.append("".join(current))
            current = None
            index += 1
            continue
        current = current if current is not None else []
        current.append(ch)
        index += 1
    if quoted:
        raise ValueError("unterminated quote in Exec value")
    if current is not None:
        args.append("".join(current))
    return [arg.replace("%%", "%") for arg in args]


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
