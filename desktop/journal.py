"""The decision journal: one JSON object per line, so every write is one atomic append.

Greppable, and readable when a crash cut the last line; a later result is a line of its own.
A long command keeps its head *and* tail, so padding cannot hide a dangerous end.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import json
import logging
import os
import secrets
import stat
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import MISSING, asdict, dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.text_safety import reveal
from desktop.logsetup import redact
from desktop.platform.paths import data_dir, ensure_private_dir

if TYPE_CHECKING:  # it names the Surface defined here
    from desktop.model.bridge_events import DecisionMade

log = logging.getLogger(__name__)

JOURNAL_FILE_NAME = "decisions.jsonl"
MAX_UNWRITTEN = 1000  # lines held in memory while the journal cannot be written


class Surface(enum.Enum):
    """Where the person made the decision (the journal says *how* in the dialog too)."""

    DIALOG_BUTTON = "dialog.button"  # a row's choice button, clicked or pressed with Space
    DIALOG_KEYBOARD = "dialog.keyboard"  # a shortcut (A, D, S, Shift+A, Ctrl+Enter, Ctrl+Backspace)
    DIALOG_BATCH = "dialog.batch"  # "Approve all" / "Deny all" on a batch, and its follow-through
    NOTIFICATION = "notification"
    REASK = "tray.reask"  # the tray denied a re-ask of a command the person had denied
    NOBODY = "nobody"  # nobody answered in time: Hermes denied it
    HERMES = "hermes"  # no row here: Hermes ran it (allowed earlier, YOLO, or asked elsewhere)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One decision, as stored (already scrubbed, revealed and bounded)."""

    time: str  # ISO 8601, local time with its UTC offset
    gateway_id: str
    gateway_name: str
    session_id: str
    session_title: str
    command: str
    choice: str  # "once", "session", "always", "deny"
    surface: str  # a Surface value
    outcome: str  # as the gateway reported it, e.g. "approved", "denied", "expired"
    id: str = ""  # links later results to this line ("" on lines older than results)
    result: str = ""  # what became of the command: "ran, exit 2", "blocked", … ("" unknown)


_ENTRY_FIELDS = frozenset(f.name for f in fields(JournalEntry))
_REQUIRED_FIELDS = frozenset(f.name for f in fields(JournalEntry) if f.default is MISSING)
_RESULT_FIELDS = ("time", "decision", "result")  # a later result: the decision line's id


def local_now() -> datetime:
    return datetime.now().astimezone()


def bound_middle(text: str, limit: int, *, short: bool = False) -> str:
    """Head and tail kept: padding cannot hide a dangerous end, and ``…/iot/r1`` tells rows apart.

    The journal says how much went; ``short`` (a menu line) spends one ``…`` of ``limit`` instead.
    """
    if len(text) <= limit:
        return text
    if short:
        tail = (limit - 1) // 3
        return f"{text[: limit - 1 - tail]}…{text[len(text) - tail :]}"
    head, tail = limit - limit // 2, limit // 2
    return f"{text[:head]} …[{len(text) - limit} characters cut]… {text[len(text) - tail :]}"


class Journal:
    """Append-only and size-rotated; ``.1`` is the newest of the ``keep`` rotated files."""

    def __init__(
        self,
        directory: Path | None = None,
        *,
        max_bytes: int = 512 * 1024,
        keep: int = 3,
        command_limit: int = 4000,
        clock: Callable[[], datetime] = local_now,
    ) -> None:
        self._directory = directory or data_dir()
        self._max_bytes = max_bytes
        self._keep = keep
        self._command_limit = command_limit
        self._clock = clock
        self._unwritten: deque[bytes] = deque()
        self._dropped = 0  # lines lost because more than MAX_UNWRITTEN waited
        self._error = ""

    @property
    def problem(self) -> str:
        """Why decisions are not reaching the file, in words for the tray ("" while healthy)."""
        if not self._error:
            return ""
        held = len(self._unwritten)
        lost = f"; {self._dropped} older ones were lost" if self._dropped else ""
        return (
            f"The decision journal cannot be written ({self._error}); {held} "
            f"decision{'s' if held != 1 else ''} kept in memory until it can{lost}."
        )

    @property
    def unwritten(self) -> int:
        return len(self._unwritten)

    @property
    def path(self) -> Path:
        """The current journal file (for "Open journal"); it may not exist yet."""
        return self._directory / JOURNAL_FILE_NAME

    def _clean(self, text: str, limit: int) -> str:
        text = redact(reveal(redact(text)))
        return (
            text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"
        )

    def record(
        self,
        made: DecisionMade,
        outcome: str,
        *,
        result: str = "",
        at: datetime | None = None,
    ) -> JournalEntry:
        """Append ``made``, decided ``at`` (default: now); return it as stored. Never raises."""
        entry = JournalEntry(
            time=(at or self._clock()).isoformat(timespec="seconds"),
            gateway_id=self._clean(made.gateway_id, 300),
            gateway_name=self._clean(made.gateway_name, 300),
            session_id=self._clean(made.session_id, 300),
            session_title=self._clean(made.session_title, 300),
            command=bound_middle(redact(reveal(redact(made.command))), self._command_limit),
            choice=self._clean(made.choice.value if made.choice else "none", 40),
            surface=made.surface.value,
            outcome=self._clean(outcome, 300),
            id=secrets.token_hex(6),
            result=self._clean(result, 300),
        )
        self._append_line(asdict(entry))
        return entry

    def record_result(self, entry: JournalEntry, result: str) -> JournalEntry:
        cleaned = self._clean(result, 300)
        time = self._clock().isoformat(timespec="seconds")
        self._append_line(dict(zip(_RESULT_FIELDS, (time, entry.id, cleaned), strict=True)))
        return replace(entry, result=cleaned)

    def _append_line(self, record: dict[str, str]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        self._unwritten.append(line.encode("utf-8"))
        while len(self._unwritten) > MAX_UNWRITTEN:
            self._unwritten.popleft()
            self._dropped += 1
        self.retry()

    def retry(self) -> bool:
        """Write the lines kept in memory, oldest first. True when none is left waiting."""
        while self._unwritten:
            try:
                self._append(self._unwritten[0])
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                if reason != self._error:
                    log.error("Could not write the decision journal %s (%s)", self.path, exc)
                self._error = reason
                return False
            self._unwritten.popleft()
        if self._error:
            log.info("The decision journal %s is writable again", self.path)
            self._error = ""
            self._dropped = 0
        return True

    def recent(self, n: int = 10) -> list[JournalEntry]:
        """The last ``n`` decisions, newest first, each with its newest result."""
        entries: list[JournalEntry] = []
        results: dict[str, str] = {}  # decision id -> newest result, seen before its decision
        for line in self._lines_newest_first():
            item = _parse(line)
            if isinstance(item, tuple):
                results.setdefault(*item)
            elif item is not None:
                later = results.pop(item.id, None) if item.id else None
                entries.append(item if later is None else replace(item, result=later))
                if len(entries) >= n:
                    break
        return entries

    def _lines_newest_first(self) -> Iterator[str]:
        for data in reversed(self._unwritten):
            yield data.decode("utf-8")
        for path in self._files_newest_first():
            try:
                if not stat.S_ISREG(path.stat().st_mode):  # a device or FIFO would never end
                    continue
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            yield from reversed(lines)

    def _files_newest_first(self) -> list[Path]:
        rotated = (self._directory / f"{JOURNAL_FILE_NAME}.{i}" for i in range(1, self._keep + 1))
        return [self.path, *rotated]

    def _append(self, data: bytes) -> None:
        ensure_private_dir(self._directory)
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(data) > self._max_bytes:
            self._rotate()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            before = os.fstat(fd).st_size
            try:
                if os.write(fd, data) != len(data):
                    raise OSError(28, "No space left on device")
                os.fsync(fd)  # decisions are rare and worth keeping through a crash
            except OSError:
                # A half-written line would glue itself to the retried one: cut it off.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, before)
                raise
        finally:
            os.close(fd)

    def _rotate(self) -> None:
        """Each file moves one place older; the oldest (the current one when keep=0) goes."""
        files = self._files_newest_first()
        files[-1].unlink(missing_ok=True)
        for newer, older in reversed(list(itertools.pairwise(files))):
            if newer.exists():
                os.replace(newer, older)


def _parse(line: str) -> JournalEntry | tuple[str, str] | None:
    """One stored line: a decision, a later result (decision id, result), or None (cut, foreign)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    known = {k: v for k, v in data.items() if k in _ENTRY_FIELDS and isinstance(v, str)}
    if known.keys() >= _REQUIRED_FIELDS:
        return JournalEntry(**known)
    if all(isinstance(data.get(k), str) for k in _RESULT_FIELDS):
        return data["decision"], data["result"]
    return None
