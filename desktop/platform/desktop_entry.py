r"""Freedesktop desktop entries (Desktop Entry Specification 1.5), and the app's own launcher.

Not configparser: values have their own escapes (``\s``, ``\n``), keys are case-sensitive, and
``Exec=`` has a quoting language on top, where a naive space or ``%`` runs something else.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import platformdirs

from desktop.platform.files import atomic_write_bytes
from desktop.platform.paths import APP_ID, APP_NAME

log = logging.getLogger(__name__)

COMMENT = "Approve or deny the commands your AI agent wants to run"
GROUP = "[Desktop Entry]"
_RESERVED = set(" \t\n\"'\\><~|&;$*?#`()")
_QUOTED_ESCAPES = set('"`$\\')
_VALUE_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def escape_value(text: str) -> str:
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


class XdgEntry:
    folder = "applications"
    config = False  # XDG_CONFIG_HOME/_DIRS, else XDG_DATA_HOME/_DIRS

    def __init__(self, home: Path | None = None, system_dirs: Sequence[Path] | None = None):
        xdg = platformdirs.PlatformDirs(multipath=True)  # the XDG variables, as specified
        user, site = xdg.user_data_dir, xdg.site_data_dir
        if self.config:
            user, site = xdg.user_config_dir, xdg.site_config_dir
        self._home = home or Path(user)
        system = system_dirs if system_dirs is not None else site.split(os.pathsep)
        self._system = [Path(p) for p in system]

    @property
    def path(self) -> Path:
        return self._home / self.folder / f"{APP_ID}.desktop"

    def system_entry(self) -> Path | None:
        candidates = (d / self.folder / f"{APP_ID}.desktop" for d in self._system)
        return next((p for p in candidates if p.is_file()), None)


def application_entry(command: Sequence[str]) -> str:
    """The shipped ``resources/linux`` entry is this for ``["hermes-tray"]``."""
    return render(
        [
            ("Type", "Application"),
            ("Name", APP_NAME),
            ("GenericName", "Agent Command Approvals"),
            ("Comment", COMMENT),
            ("Exec", exec_value(command)),
            ("TryExec", escape_value(command[0])),
            ("Icon", APP_ID),
            ("Terminal", "false"),
            ("StartupNotify", "false"),
            ("Categories", "Utility;"),
            ("Keywords", "AI;agent;Hermes;approve;deny;approval;terminal;command;tray;"),
            ("X-GNOME-UsesNotifications", "true"),
        ]
    )


class XdgLauncher(XdgEntry):
    """For a pip or ``.venv`` install: with no entry of the app's id GNOME shows the raw id."""

    @property
    def icon_path(self) -> Path:
        return self._home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"

    def install(self, command: Sequence[str], icon_svg: Path) -> bool:
        """Write the entry and the icon where they differ; True when anything was written."""
        if os.environ.get("FLATPAK_ID") or self.system_entry() is not None:
            return False
        wrote = _write_if_changed(self.path, application_entry(command).encode())
        try:
            icon = icon_svg.read_bytes()
        except OSError as error:
            log.warning("app icon %s not readable: %s", icon_svg, error)
            return wrote
        return _write_if_changed(self.icon_path, icon) or wrote


def _write_if_changed(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass  # not there yet (or unreadable): write it
    atomic_write_bytes(path, data, mode=0o644)
    return True
