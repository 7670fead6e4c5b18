"""Where a path a command deletes or changes lies, seen from the task's folder.

"Deletes folders recursively" tells a person nothing; the target tells ``rm -rf build`` (made
again by the next build) from ``rm -rf ~``. When the task's folder is unknown or no project
folder (``/``, a home, a system folder), and for paths only known when the command runs, the
target is outside: a guess must never make a command look safer.
"""

from __future__ import annotations

import enum
import fnmatch
import posixpath
import re
from dataclasses import dataclass

from .rules import DISK_DEVICE, REGENERABLE, SYSTEM_PATHS

_HOME_WORD = re.compile(r"(?:~|\$HOME|\$\{HOME\})(?=/|$)")
_HOME_PARENTS = frozenset({"home", "Users"})
_GLOB = re.compile(r"[*?\[]")
_TEMPORARY = ("/tmp", "/var/tmp")


class Where(enum.IntEnum):
    """Ordered from harmless to worst, so the worst target of a command is ``max``."""

    REGENERABLE = 0  # inside the task folder and made again by a build or an install
    INSIDE = 1  # inside the task folder: the person's work, but contained
    TEMPORARY = 2  # something inside /tmp or /var/tmp (not all of it)
    WHOLE_FOLDER = 3  # the task folder itself, or everything in it
    OUTSIDE = 4  # elsewhere on this machine
    UNKNOWN = 5  # only known when it runs, or relative to a folder the tray does not know
    REMOTE = 6  # on another machine (a script given to ssh)
    SYSTEM = 7  # a system folder or a disk
    HOME = 8  # the person's home folder itself
    ROOT = 9  # the whole file system


@dataclass(frozen=True, slots=True)
class Target:
    """One target path as written, where it lies, and (REGENERABLE) why it comes back."""

    path: str
    where: Where
    why: str = ""  # "rebuilt by the build", for REGENERABLE


def project_folder(cwd: str) -> str | None:
    """The task's folder when it is one a deletion may be contained in, else None."""
    if not cwd.startswith("/"):
        return None
    folder = normal_path(cwd)
    if folder == "/" or _is_home(folder):
        return None
    if is_system(folder) and folder.split("/")[1] != "root":  # root's own projects are not
        return None
    return folder


def locate(path: str | None, folder: str | None, *, remote: bool = False) -> Target:
    """Where ``path`` (already resolved against any ``cd``) lies, seen from ``folder``."""
    if path is None or path == "" or "$" in _HOME_WORD.sub("~", path) or "`" in path:
        return Target(path or "?", Where.UNKNOWN)
    if remote:
        return Target(path, Where.REMOTE)
    home_based = _HOME_WORD.match(path)
    if home_based:
        rest = path[home_based.end() :].strip("/")
        if rest in {"", "*", ".", ".*"}:
            return Target(path, Where.HOME)
        return Target(path, Where.OUTSIDE)
    if path.startswith("~"):  # ~user: another person's home
        return Target(path, Where.HOME if "/" not in path.rstrip("/") else Where.OUTSIDE)
    if path.startswith("/"):
        absolute = normal_path(path)
        if absolute == "/" or _GLOB.fullmatch(absolute.strip("/")):
            return Target(path, Where.ROOT)
        if _is_home(absolute.rstrip("*").rstrip("/") or "/"):
            return Target(path, Where.HOME)
        inside = folder is not None and not posixpath.relpath(absolute, folder).startswith("..")
        if not inside and (is_system(absolute) or DISK_DEVICE.fullmatch(absolute)):
            return Target(path, Where.SYSTEM)
        if folder is not None and inside:  # (a task folder is never a system folder itself)
            relative = posixpath.relpath(absolute, folder)
        elif _is_temporary(absolute):
            return Target(path, Where.TEMPORARY)
        else:
            return Target(path, Where.OUTSIDE)
    else:
        if folder is None:
            return Target(path, Where.UNKNOWN)
        relative = posixpath.normpath(path)
        if relative.startswith(".."):
            return Target(path, Where.OUTSIDE)
    return _inside(path, relative)


def _inside(path: str, relative: str) -> Target:
    parts = [p for p in relative.split("/") if p not in {"", "."}]
    if not parts or all(_GLOB.fullmatch(p) or p in {"*", ".*"} for p in parts[:1]):
        return Target(path, Where.WHOLE_FOLDER)
    for part in parts:
        why = regenerable(part)
        if why:
            return Target(path, Where.REGENERABLE, why)
    return Target(path, Where.INSIDE)


def regenerable(name: str) -> str:
    """Why a file or folder of this name comes back by itself ("" when it does not)."""
    for pattern, why in REGENERABLE:
        if fnmatch.fnmatchcase(name, pattern):
            return why
    return ""


def _is_temporary(path: str) -> bool:
    """Below a temporary folder, not the folder itself nor all of it (``/tmp/*``)."""
    for temporary in _TEMPORARY:
        rest = path[len(temporary) + 1 :] if path.startswith(temporary + "/") else ""
        if rest and not _GLOB.fullmatch(rest.split("/")[0]):
            return True
    return False


def normal_path(path: str) -> str:
    """An absolute path without ``.``, ``..`` or doubled slashes (``//etc`` is ``/etc``)."""
    return "/" + posixpath.normpath(path).lstrip("/")


def is_system(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in SYSTEM_PATHS)


def _is_home(path: str) -> bool:
    """``/home/ann`` (a home folder itself), ``/home`` (all of them) or ``/root``."""
    parts = path.strip("/").split("/")
    if parts[0] == "root":
        return len(parts) == 1
    return parts[0] in _HOME_PARENTS and len(parts) <= 2
