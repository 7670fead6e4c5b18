"""The argument list an ``Exec=`` value stands for: the oracle for ``exec_value`` tests."""

from __future__ import annotations

from desktop.platform.desktop_entry import _QUOTED_ESCAPES


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
