"""The canary token and the log capture the secrets tests share.

Why a canary and not "any" token: a fixed, greppable string that appears nowhere else lets a
test look for it (and its URL-encoded forms) in *everything* the app produced — log stream,
log file, status texts, reprs, tracebacks, doctor output, journal — with no false positives.
"""

from __future__ import annotations

import io
import logging
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

from desktop import logsetup
from desktop.gateway.client import GatewayClient

CANARY = "cAnArY-7d3f0e9a1b2c4d5e6f708192a3b4c5d6"
FORMS = (CANARY, quote(CANARY, safe=""), quote_plus(CANARY))


def leaks(text: str) -> list[str]:
    return [form for form in FORMS if form in text]


class RawRecords(logging.Handler):
    """Every record as it was logged, before any redaction (installed first on the root)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            text = f"{record.msg!r} {record.args!r}"
        if record.exc_info:
            text += "".join(traceback.format_exception(*record.exc_info))
        self.lines.append((record.name, text))


@dataclass
class Capture:
    raw: RawRecords
    stream: io.StringIO
    log_dir: Path

    def app_output(self) -> str:
        files = "".join(p.read_text(errors="replace") for p in self.log_dir.glob("*.log*"))
        return self.stream.getvalue() + files

    def raw_from(self, prefix: str) -> list[str]:
        return [text for name, text in self.raw.lines if name.startswith(prefix) and leaks(text)]

    def raw_leaking_loggers(self) -> set[str]:
        return {name for name, text in self.raw.lines if leaks(text)}


@contextmanager
def capture_logs(tmp_path: Path) -> Iterator[Capture]:
    """Raw records first on the root, then the app's own redacting handlers at DEBUG."""
    raw = RawRecords()
    root = logging.getLogger()
    root.addHandler(raw)
    stream = io.StringIO()
    logsetup.configure("DEBUG", log_dir=tmp_path / "log", stream=stream)
    try:
        yield Capture(raw, stream, tmp_path / "log")
    finally:
        root.removeHandler(raw)


def every_text_of(client: GatewayClient, extra: list[object]) -> str:
    """Reprs and strings of everything a bug report or the UI might show."""
    parts: list[object] = [client.endpoint, client.status, client.dialer.endpoint, *extra]
    texts = [repr(p) for p in parts] + [str(p) for p in parts]
    for item in extra:
        if isinstance(item, BaseException):
            texts.append("".join(traceback.format_exception(item)))
    return "\n".join(texts)
