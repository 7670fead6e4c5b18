"""Logging for Hermes Tray: one configuration for every entry point, and no secret in any line.

Why redaction lives here and not at each call site: a gateway URL carries ``?token=``, the
canonical gateway hands out ``hermes-gateway-ticket.<x>`` subprotocols, and websockets logs
whole handshakes (``Authorization``, ``X-Hermes-Session-Token``) at DEBUG. Asking every module
to be careful would fail once; a filter on every handler we install cannot forget. The filter
rewrites the record itself (message, args, exception text and stack), so whatever formats it
afterwards only ever sees the masked text.

What is masked (value replaced by ``***``, the name kept so the line still explains itself):

- query/form parameters whose name ends in token, ticket, secret, password or api_key, and the
  gateway's ``?pty=`` and ``?internal=`` credentials;
- quoted keys of that kind, plus ``authorization``, in JSON/dict/tuple form (``"token": "..."``);
- header lines ``Authorization:``, ``Proxy-Authorization:``, ``Cookie:``, ``X-...-Token:``;
- ``hermes-gateway-ticket.<ticket>`` subprotocol names and ``scheme://user:password@`` userinfo;
- any string registered at run time with :func:`register_secret` (and its URL-encoded forms),
  which :func:`register_url_secrets` does for a URL's password, secret-named query values and
  opaque path segments (``/api/ws/<40 random characters>``: some proxies put the token there).

:func:`mask_own_secrets` masks only the registered strings: it is for text the tray *shows*
(commands, titles, notices from the gateway), where masking every ``token=…`` shape would hide
what a command really does.

Qt's own messages reach logging through :func:`route_qt_message`; the UI installs the Qt
handler that calls it (this module stays Qt-free so every layer may import it).
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

__all__ = [
    "LOG_FILE_NAME",
    "MASK",
    "SECRET_QUERY_KEYS",
    "RedactingFilter",
    "SecretSet",
    "clear_secrets",
    "configure",
    "is_opaque_segment",
    "is_own_handler",
    "mask_own_secrets",
    "redact",
    "register_secret",
    "register_url_secrets",
    "route_qt_message",
    "url_secrets",
]

MASK = "***"
#: Query parameters that carry a credential on Hermes gateway URLs (protocol.md §1.1): masked in
#: logs and shown URLs, registered as secrets, and never saved in the settings file.
SECRET_QUERY_KEYS = frozenset({"token", "ticket", "pty", "internal"})
LOG_FILE_NAME = "hermes-tray.log"

_FILE_MAX_BYTES = 1_000_000
_FILE_BACKUPS = 3
_HANDLER_MARK = "_hermes_tray_handler"
_CONSOLE_FORMAT = "%(levelname)-7s %(name)s: %(message)s"
_FILE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

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


class SecretSet:
    """Strings to mask wherever they appear, with their URL-encoded forms; safe across threads.

    The log keeps one for the whole process; the journal keeps its own, so it scrubs what was
    registered with it even where logging was never configured.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._forms: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def add(self, secret: str) -> None:
        """Mask ``secret`` from now on; an empty string is ignored."""
        if not secret:
            return
        forms = {secret}
        # A lone surrogate cannot be URL-encoded (nor be in a URL), so the raw form suffices then.
        with contextlib.suppress(UnicodeEncodeError):
            forms.update({quote(secret, safe=""), quote_plus(secret)})
        with self._lock:
            self._forms.update(forms)
            ordered = sorted(self._forms, key=len, reverse=True)  # longest first: no partial masks
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def clear(self) -> None:
        with self._lock:
            self._forms.clear()
            self._pattern = None

    def mask(self, text: str, *, keep_length: bool = False) -> str:
        """``text`` with every secret masked (``keep_length``: by as many ``*`` as it is long)."""
        pattern = self._pattern
        if pattern is None:
            return text
        if keep_length:
            return pattern.sub(lambda match: "*" * len(match.group()), text)
        return pattern.sub(MASK, text)


_own_secrets = SecretSet()


def register_secret(secret: str) -> None:
    """Mask ``secret`` (and its URL-encoded forms) in every log record from now on.

    Call it as soon as a token, ticket or password is known, before anything can log it.
    Empty strings are ignored; every other string is masked, however short, because a
    readable log is worth less than a leaked credential.
    """
    _own_secrets.add(secret)


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
    """Mask the credentials in ``url`` (:func:`url_secrets`) in every log record from now on."""
    for secret in url_secrets(url):
        register_secret(secret)


def clear_secrets() -> None:
    """Forget every registered secret (for tests, and when a session's credentials change)."""
    _own_secrets.clear()


def mask_own_secrets(text: str, *, keep_length: bool = False) -> str:
    """``text`` with every registered secret masked, and nothing else changed (for display).

    ``keep_length`` masks each secret with as many ``*`` as it has characters, so offsets
    computed on the original text (the risk lens' marks on a command) still fit.
    """
    return _own_secrets.mask(text, keep_length=keep_length)


def redact(text: str) -> str:
    """Return ``text`` with every known secret shape and registered secret replaced by ``***``."""
    text = _own_secrets.mask(text)
    for regex, replacement in _PATTERNS:
        text = regex.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Handler filter that masks secrets in the record's message, args, exception and stack.

    It formats the message once (``msg % args``), masks it and stores the result with
    ``args=None``, so no later formatter can re-insert a secret from the raw arguments.
    """

    _exception_formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the record in place; always keep it."""
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
    return bool(getattr(handler, _HANDLER_MARK, False))


def _level_number(level: str | int) -> int:
    if isinstance(level, int):
        return level
    number = logging.getLevelName(level.upper())
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {level!r}; use DEBUG, INFO, WARNING or ERROR")
    return number


def _open_file_handler(log_dir: Path) -> logging.Handler:
    log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = log_dir / LOG_FILE_NAME
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=_FILE_MAX_BYTES, backupCount=_FILE_BACKUPS, encoding="utf-8"
    )
    path.chmod(0o600)  # commands and session titles are private even with secrets masked
    return handler


def configure(
    level: str | int = "INFO", *, log_dir: Path | None = None, stream: TextIO | None = None
) -> Path | None:
    """Send logging to ``stream`` (stderr) at ``level`` and to a rotating file, both redacted.

    The file keeps at least INFO even when the console is quieter, so a bug report has history.
    Calling it again replaces the handlers it installed before (and only those).

    Returns:
        The log file's path, or None when the file could not be opened (console only, warned).
    """
    numeric = _level_number(level)
    root = logging.getLogger()
    for old in [h for h in root.handlers if is_own_handler(h)]:
        root.removeHandler(old)
        old.close()

    console = logging.StreamHandler(stream if stream is not None else sys.stderr)
    console.setLevel(numeric)
    console.setFormatter(logging.Formatter(_CONSOLE_FORMAT))
    handlers: list[logging.Handler] = [console]

    from desktop.platform import paths  # here: the core imports this module, not platformdirs

    directory = log_dir if log_dir is not None else paths.log_dir()
    log_path: Path | None = directory / LOG_FILE_NAME
    file_level = min(numeric, logging.INFO)
    failure: str | None = None
    try:
        file_handler = _open_file_handler(directory)
    except OSError as exc:
        log_path, file_level = None, numeric
        failure = f"cannot write a log file in {directory} ({exc.strerror}); using stderr only"
    else:
        file_handler.setLevel(file_level)
        file_handler.setFormatter(logging.Formatter(_FILE_FORMAT))
        handlers.append(file_handler)

    for handler in handlers:
        setattr(handler, _HANDLER_MARK, True)
        handler.addFilter(RedactingFilter())
        root.addHandler(handler)
    root.setLevel(min(numeric, file_level))
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
    """Log one Qt message; the hook the UI's ``qInstallMessageHandler`` callback calls.

    Args:
        kind: the ``QtMsgType`` name (``"QtWarningMsg"``) or its short form (``"warning"``).
        message: Qt's text.
        category: the logging category (``"qt.qpa.xcb"``); the logger is named after it.

    Under pytest, pytest-qt installs its own handler to fail tests on Qt warnings, so the app
    must only install its handler outside tests or chain to the previous one.
    """
    short = kind.lower().removeprefix("qt").removesuffix("msg")
    level = _QT_LEVELS.get(short, logging.WARNING)
    name = category if category and category != "default" else "qt"
    if not name.startswith("qt"):
        name = f"qt.{name}"
    logging.getLogger(name).log(level, "%s", message)
