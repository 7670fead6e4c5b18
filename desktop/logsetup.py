"""Logging with no secret in any line: a filter on every handler, not care at each call site.

Gateway URLs carry ``?token=``, tickets travel as ``hermes-gateway-ticket.<x>`` subprotocols and
websockets logs whole handshakes at DEBUG: asking every module to be careful would fail once.
The filter rewrites the record itself, so no later formatter sees the raw text. Text the tray
*shows* uses :func:`mask_own_secrets`: masking every ``token=…`` there would hide what runs.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import re
import sys
import threading
from pathlib import Path
from typing import TextIO
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

MASK = "***"
#: Query parameters that carry a credential on Hermes gateway URLs (protocol.md §1.1): masked in
#: logs and shown URLs, registered as secrets, and never saved in the settings file.
SECRET_QUERY_KEYS = frozenset({"token", "ticket", "pty", "internal"})
LOG_FILE_NAME = "hermes-tray.log"

# A name that smells of a credential: "token", "session_token", "ticket", "api_key", ...
_SECRET_NAME = r"[\w.-]*?(?:token|ticket|secret|password|passwd|api[_-]?key)_*"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+(@)", re.IGNORECASE), rf"\1{MASK}\2"),
    # ?token=abc&ticket=def, plain "token=abc" text, __HERMES_SESSION_TOKEN__="abc"
    (re.compile(rf"(\b{_SECRET_NAME}=)([\"']?)[^&#\s\"'<>;,)\]]+", re.IGNORECASE), rf"\1\2{MASK}"),
    # the gateway's other credential parameters: ?pty=<child credential>, ?internal=<process cred>
    (re.compile(r"([?&;](?:pty|internal)=)[^&#\s\"'<>;,)\]]+", re.IGNORECASE), rf"\1{MASK}"),
    # "token": "abc" / 'Authorization': 'Bearer abc' / ('X-Hermes-Session-Token', 'abc')
    (
        re.compile(
            rf"""(["'](?:{_SECRET_NAME}|authorization|proxy-authorization|cookie)["']\s*[:,]\s*)"""
            r"""(["'])(?:\\.|(?!\2).)*\2""",
            re.IGNORECASE,
        ),
        rf"\1\2{MASK}\2",
    ),
    # Authorization: Bearer abc  /  X-Hermes-Session-Token: abc  (header lines)
    (
        re.compile(
            r"(\b(?:proxy-)?authorization|\bcookie|\bset-cookie|\bx-[\w-]*?(?:token|ticket))"
            r"(\s*:\s*)(?:(?:bearer|basic|token)\s+)?[^\s,;'\"]+",
            re.IGNORECASE,
        ),
        rf"\1\2{MASK}",
    ),
    # Sec-WebSocket-Protocol: hermes-gateway-ticket.<ticket>
    (re.compile(r"(hermes-gateway-ticket\.)[^\s,;'\"\])]+", re.IGNORECASE), rf"\1{MASK}"),
)


_secrets_lock = threading.Lock()
_secret_forms: set[str] = set()  # every registered secret and its URL-encoded forms
_secret_pattern: re.Pattern[str] | None = None  # all of them, longest first: no partial masks


def register_secret(secret: str) -> None:
    """Mask ``secret`` and its URL-encoded forms from now on; short ones too (a leak costs more)."""
    global _secret_pattern
    if not secret:
        return
    forms = {secret}
    # A lone surrogate cannot be URL-encoded (nor be in a URL), so the raw form suffices then.
    with contextlib.suppress(UnicodeEncodeError):
        forms.update({quote(secret, safe=""), quote_plus(secret)})
    with _secrets_lock:
        _secret_forms.update(forms)
        ordered = sorted(_secret_forms, key=len, reverse=True)
        _secret_pattern = re.compile("|".join(re.escape(s) for s in ordered))


def mask_own_secrets(text: str, *, keep_length: bool = False) -> str:
    """Registered secrets only (for display); ``keep_length`` keeps the risk lens' offsets."""
    pattern = _secret_pattern
    if pattern is None:
        return text
    if keep_length:
        return pattern.sub(lambda match: "*" * len(match.group()), text)
    return pattern.sub(MASK, text)


_OPAQUE_SEGMENT = re.compile(r"(?=[^/]*\d)(?=[^/]*[A-Za-z])[A-Za-z0-9_~.=+%-]{20,}")


def is_opaque_segment(segment: str) -> bool:
    """True for a URL path segment that reads like a credential: 20+ token characters, mixed."""
    return len(segment) <= 4096 and _OPAQUE_SEGMENT.fullmatch(segment) is not None


def url_secrets(url: str) -> list[str]:
    """The credentials in ``url``: password, secret-named queries, opaque path parts."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # malformed port or netloc: the patterns still mask what they can
        return []
    found = [password] if password else []
    found += [segment for segment in parts.path.split("/") if is_opaque_segment(segment)]
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if name.lower() in SECRET_QUERY_KEYS or re.fullmatch(_SECRET_NAME, name, re.IGNORECASE):
            found.append(value)
    return found


def register_url_secrets(url: str) -> None:
    for secret in url_secrets(url):
        register_secret(secret)


def redact(text: str) -> str:
    text = mask_own_secrets(text)
    for regex, replacement in _PATTERNS:
        text = regex.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Masks the record's message, exception and stack; ``args=None`` keeps them out for good."""

    _exception_formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken %-format must not crash the caller, nor leak its args
            message = f"<unformattable log message {record.msg!r} with args {record.args!r}>"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._exception_formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def is_own_handler(handler: logging.Handler) -> bool:
    """True for the handlers :func:`configure` installed (tests use it to undo them)."""
    return any(isinstance(f, RedactingFilter) for f in handler.filters)


def configure(
    level: str | int = "INFO", *, log_dir: Path | None = None, stream: TextIO | None = None
) -> Path | None:
    """Log to ``stream`` (stderr) at ``level`` and to a private rotating file, both redacted.

    The file keeps at least INFO, so a bug report has history; a second call replaces only the
    handlers the first installed. None: no file could be opened (console only).
    """
    numeric = level if isinstance(level, int) else logging.getLevelNamesMapping().get(level.upper())
    if numeric is None:
        raise ValueError(f"unknown log level {level!r}; use DEBUG, INFO, WARNING or ERROR")
    root = logging.getLogger()
    for old in [h for h in root.handlers if is_own_handler(h)]:
        root.removeHandler(old)
        old.close()
    from desktop.platform import paths  # here: the core imports this module, not platformdirs

    console = logging.StreamHandler(stream if stream is not None else sys.stderr)
    console.setLevel(numeric)
    console.setFormatter(logging.Formatter("%(levelname)-7s %(name)s: %(message)s"))
    handlers: list[logging.Handler] = [console]
    directory = log_dir if log_dir is not None else paths.log_dir()
    log_path: Path | None = directory / LOG_FILE_NAME
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        file_handler = logging.handlers.RotatingFileHandler(
            directory / LOG_FILE_NAME, maxBytes=1_000_000, backupCount=3, encoding="utf-8"
        )
        (directory / LOG_FILE_NAME).chmod(0o600)  # commands and titles are private, masked or not
    except OSError as exc:
        log_path = None
        failure = f"cannot write a log file in {directory} ({exc.strerror}); using stderr only"
    else:
        failure = ""
        file_handler.setLevel(min(numeric, logging.INFO))
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s")
        )
        handlers.append(file_handler)
    for handler in handlers:
        handler.addFilter(RedactingFilter())
        root.addHandler(handler)
    root.setLevel(min(handler.level for handler in handlers))
    if failure:
        logging.getLogger(__name__).warning("%s", failure)
    return log_path


_QT_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "critical": logging.ERROR,
    "system": logging.ERROR,
    "fatal": logging.CRITICAL,
}


def route_qt_message(kind: str, message: str, category: str | None = None) -> None:
    """Log one Qt message (``kind``: ``"QtWarningMsg"`` or ``"warning"``) as logger ``category``."""
    short = kind.lower().removeprefix("qt").removesuffix("msg")
    level = _QT_LEVELS.get(short, logging.WARNING)
    name = category if category and category != "default" else "qt"
    if not name.startswith("qt"):
        name = f"qt.{name}"
    logging.getLogger(name).log(level, "%s", message)
