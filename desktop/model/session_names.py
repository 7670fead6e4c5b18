"""One name per session, the same in the menu, the dialog, a notification and the journal.

A registry, not a function: a name stays put once a person has seen it (a bubble's "Fix login
tests · ux019" must match the menu later, although the gateway may have retitled it), two tasks
in one folder are told apart (" (2)"), and words a session gains later only go at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from desktop.core.model import SessionState
from desktop.core.text_safety import ELLIPSIS

SEPARATOR = " · "
DEFAULT_WIDTH = 60
_FOLDER_WIDTH = 24
_ID_LENGTH = 6
_MEMORY = 4096  # sessions remembered per registry; the oldest are forgotten first


@dataclass(frozen=True, slots=True)
class SessionName:
    title: str  # "" when the session had no title when first shown
    folder: str  # last part of the working directory, "~" for home, "" when unknown
    short_id: str
    ordinal: int = 1  # 2, 3, … for later sessions with the same name and folder
    late_title: str = ""  # the title of a session first shown without one, said after the name
    late_folder: bool = False  # the folder came after the name was shown: it goes last


def _clean(text: str, limit: int) -> str:
    """Whitespace folded and cut to ``limit``; hidden characters stay (surfaces reveal them)."""
    folded = " ".join(text.split())
    return folded if len(folded) <= limit else folded[: limit - 1] + ELLIPSIS


def short_folder(cwd: str) -> str:
    """``/home/ana/src/ux019`` → ``ux019``; ``/home/ana`` → ``~``; ``/`` → ``/``."""
    path = cwd.strip()
    if not path:
        return ""
    stripped = path.rstrip("/")
    if not stripped:
        return "/"
    parts = stripped.split("/")
    if (len(parts) == 3 and parts[1] in {"home", "Users"}) or stripped == "~":
        return "~"
    return _clean(parts[-1], _FOLDER_WIDTH)


def short_id(session_id: str) -> str:
    """The random end of an id: stored ids read ``20261206_101342_9cbd2d``, live ones hex."""
    tail = session_id.rsplit("_", 1)[-1] or session_id
    return _clean(tail[:_ID_LENGTH], _ID_LENGTH)


def unnamed(session_id: str) -> str:
    return f"session {short_id(session_id)}"


def compose(session: SessionState) -> SessionName:
    """The name a session would get if it were shown now (no memory, no ordinal)."""
    return SessionName(
        title=_clean(session.title, 400),
        folder=short_folder(session.cwd),
        short_id=short_id(session.stored_session_id or session.session_id),
    )


def _cut_words(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = text[: width - 1]
    space = room.rfind(" ")
    if space >= width // 2:
        room = room[:space]
    return room.rstrip(" ,.;:-") + ELLIPSIS


def fit(name: SessionName, width: int = DEFAULT_WIDTH) -> str:
    """Render within ``width`` characters (at least 8): cut the title, keep folder and ordinal."""
    width = max(width, 8)
    suffix = f" ({name.ordinal})" if name.ordinal > 1 else ""
    unnamed_text = f"session {name.short_id}"
    if name.title:
        head, tail = name.title, name.folder
    elif name.folder and not name.late_folder:
        head, tail = name.folder, unnamed_text
    else:
        head, tail = unnamed_text, name.folder
    tail_text = f"{SEPARATOR}{tail}" if tail else ""
    room = width - len(tail_text) - len(suffix)
    if room < min(len(head), 12):  # too narrow for both: shorten the tail as well
        tail_text = _cut_words(tail_text, max(width - 12 - len(suffix), 0))
        room = width - len(tail_text) - len(suffix)
    text = _cut_words(head, max(room, 1)) + tail_text + suffix
    late_room = width - len(text) - len(SEPARATOR)
    if name.late_title and late_room >= min(len(name.late_title), 12):
        text += SEPARATOR + _cut_words(name.late_title, late_room)
    return text


class SessionNames:
    """The name each session was first shown under, by live and stored id (a resume keeps it)."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, str], SessionName] = {}
        # (gateway, live or stored id) -> the key its name is kept under
        self._aliases: dict[tuple[str, str], tuple[str, str]] = {}
        self._aliases_of: dict[tuple[str, str], set[tuple[str, str]]] = {}
        # (title or short id, folder) -> the ordinals in use, so " (2)" is found without a scan
        self._ordinals: dict[tuple[str, str], set[int]] = {}
        self._pinned: set[tuple[str, str]] = set()

    def _key(self, gateway_id: str, session: SessionState) -> tuple[str, str]:
        ids = [session.session_id, session.stored_session_id]
        known = [
            self._aliases[(gateway_id, i)] for i in ids if i and (gateway_id, i) in self._aliases
        ]
        key = known[0] if known else (gateway_id, session.session_id)
        for i in ids:
            if i:
                self._aliases[(gateway_id, i)] = key
                self._aliases_of.setdefault(key, set()).add((gateway_id, i))
        return key

    def pin(self, gateway_id: str, session: SessionState) -> None:
        """Something was announced under this session's name: it stays from now on."""
        self._pinned.add(self._key(gateway_id, session))

    def name(self, gateway_id: str, session: SessionState) -> SessionName:
        key = self._key(gateway_id, session)
        known = self._names.get(key)
        fresh = compose(session)
        bare = known is not None and not (known.title or known.folder or known.late_title)
        if known is not None and bare and key not in self._pinned:
            if not (fresh.title or fresh.folder):
                return known
            self._release(known)  # nothing said it yet: the better name takes its place
            known = None
        if known is not None:
            gains_title = not (known.title or known.late_title) and bool(fresh.title)
            gains_folder = not known.folder and bool(fresh.folder)
            if not (gains_title or gains_folder):
                return known
            # words for a session shown without them: added after the name, never in its place
            self._release(known)
            fresh = replace(
                known,
                folder=known.folder or fresh.folder,
                late_title=known.late_title or ("" if known.title else fresh.title),
                late_folder=known.late_folder or gains_folder,
            )
        ordinal = known.ordinal if known is not None else 1  # a "(2)" once shown stays
        taken = self._ordinals.setdefault(_unique_by(fresh), set())
        while ordinal in taken:
            ordinal += 1
        taken.add(ordinal)
        named = replace(fresh, ordinal=ordinal)
        self._names[key] = named
        while len(self._names) > _MEMORY:
            self._drop(next(iter(self._names)))
        return named

    def text(self, gateway_id: str, session: SessionState, width: int = DEFAULT_WIDTH) -> str:
        return fit(self.name(gateway_id, session), width)

    def _drop(self, key: tuple[str, str]) -> None:
        named = self._names.pop(key, None)
        self._pinned.discard(key)
        if named is not None:
            self._release(named)
        for alias in self._aliases_of.pop(key, set()):
            self._aliases.pop(alias, None)

    def _release(self, named: SessionName) -> None:
        unique_by = _unique_by(named)
        taken = self._ordinals.get(unique_by, set())
        taken.discard(named.ordinal)
        if not taken:
            self._ordinals.pop(unique_by, None)


def _unique_by(name: SessionName) -> tuple[str, str]:
    """What two names must not share: the title (or the short id) and the folder."""
    return name.title or f"session {name.short_id}", name.folder
