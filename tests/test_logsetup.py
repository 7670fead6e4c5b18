"""desktop.logsetup: where logs go, and that no secret ever reaches them."""

from __future__ import annotations

import io
import logging
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop import logsetup
from desktop.platform import paths

CANARY = "canary-5f1c9e2b7d"  # a token that must never appear in any log output


@pytest.fixture
def console() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def log_file(tmp_path: Path, console: io.StringIO) -> Path:
    """Configure logging at DEBUG into ``console`` and a file under tmp_path; return the file."""
    path = logsetup.configure("DEBUG", log_dir=tmp_path / "logs", stream=console)
    assert path is not None
    return path


def read_all(console: io.StringIO, log_file: Path) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return console.getvalue() + log_file.read_text(encoding="utf-8")


def test_registered_canary_is_masked_everywhere_a_record_carries_text(
    console: io.StringIO, log_file: Path
) -> None:
    logsetup.register_secret(CANARY)
    log = logging.getLogger("desktop.test")
    log.info("as an argument: %s", CANARY)
    log.info(f"in the message itself: {CANARY}")
    log.debug("inside a structure: %r", {"nested": [CANARY]})
    try:
        raise RuntimeError(f"connect failed for {CANARY}")
    except RuntimeError:
        log.exception("with a traceback")
    log.warning("with a stack", stack_info=True, extra={"unused": CANARY})

    text = read_all(console, log_file)
    assert CANARY not in text
    assert text.count(logsetup.MASK) >= 5
    assert "connect failed for ***" in text  # the exception text is there, masked


def test_unregistered_secret_shapes_are_masked_by_pattern(
    console: io.StringIO, log_file: Path
) -> None:
    log = logging.getLogger("websockets.client")
    log.debug("> GET /api/ws?token=%s HTTP/1.1", CANARY)
    log.debug("> Authorization: Bearer %s", CANARY)
    log.debug("> X-Hermes-Session-Token: %s", CANARY)
    log.debug("> Sec-WebSocket-Protocol: hermes-gateway-v1, hermes-gateway-ticket.%s", CANARY)
    log.debug("frame %s", f'{{"method": "x", "params": {{"ticket": "{CANARY}"}}}}')

    text = read_all(console, log_file)
    assert CANARY not in text
    assert "token=***" in text
    assert "hermes-gateway-ticket.***" in text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ws://127.0.0.1:9119/api/ws?token=abc&x=1", "ws://127.0.0.1:9119/api/ws?token=***&x=1"),
        ("/api/ws?ticket=t1#frag", "/api/ws?ticket=***#frag"),
        ("/api/ws?pty=p1&internal=i1", "/api/ws?pty=***&internal=***"),
        ("session_token=abc; next", "session_token=***; next"),
        ('window.__HERMES_SESSION_TOKEN__="abc";', 'window.__HERMES_SESSION_TOKEN__="***";'),
        ('{"token": "a\\"b", "max_tokens": 5}', '{"token": "***", "max_tokens": 5}'),
        ("{'api_key': 'sk-1'}", "{'api_key': '***'}"),
        (
            "[('Authorization', 'Bearer q'), ('Host', 'h')]",
            "[('Authorization', '***'), ('Host', 'h')]",
        ),
        ("Authorization: Bearer abc.def", "Authorization: ***"),
        ("authorization: Basic dXNlcg==, next", "authorization: ***, next"),
        ("X-Hermes-Session-Token: abc", "X-Hermes-Session-Token: ***"),
        (
            "protocols ['hermes-gateway-v1', 'hermes-gateway-ticket.T1']",
            "protocols ['hermes-gateway-v1', 'hermes-gateway-ticket.***']",
        ),
        ("wss://user:pw@host/x", "wss://user:***@host/x"),
        # Words that merely look related stay readable:
        ("used 500 tokens, pattern_key=rm_rf", "used 500 tokens, pattern_key=rm_rf"),
        ('{"input_tokens": 12, "ticketing": "on"}', '{"input_tokens": 12, "ticketing": "on"}'),
    ],
)
def test_redact_patterns(raw: str, expected: str) -> None:
    assert logsetup.redact(raw) == expected


def test_url_encoded_forms_of_a_registered_secret_are_masked() -> None:
    logsetup.register_secret("p@ss word/1")
    assert logsetup.redact("q=p%40ss%20word%2F1 and p%40ss+word%2F1") == "q=*** and ***"


def test_register_url_secrets_masks_the_token_wherever_it_reappears() -> None:
    logsetup.register_url_secrets(f"ws://me:pw-{CANARY}@h/api/ws?token={CANARY}&page=2")
    assert logsetup.redact(f"echo {CANARY} and pw-{CANARY}") == "echo *** and ***"
    assert logsetup.redact("page 2") == "page 2"  # non-secret parameters are not registered


def test_url_secrets_are_the_password_opaque_path_parts_and_credential_queries() -> None:
    url = "wss://me:pw@h/api/abcdefghij0123456789xyz/ws?token=t&page=2&PTY=p&api_key=k"
    assert logsetup.url_secrets(url) == ["pw", "abcdefghij0123456789xyz", "t", "p", "k"]
    assert logsetup.url_secrets("ws://[::1/?token=t") == []  # unparsable: the patterns mask it


@pytest.mark.parametrize("name", sorted(logsetup.SECRET_QUERY_KEYS))
def test_register_url_secrets_registers_every_credential_parameter(name: str) -> None:
    logsetup.register_url_secrets(f"ws://h/api/ws?{name}={CANARY}")
    assert logsetup.redact(f"echo {CANARY}") == "echo ***"


def test_empty_secret_is_ignored() -> None:
    logsetup.register_secret("")
    assert logsetup.redact("nothing to hide") == "nothing to hide"


@given(
    secret=st.text(st.characters(blacklist_characters="*"), min_size=1, max_size=20),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
)
def test_a_registered_secret_never_survives_redaction(secret: str, before: str, after: str) -> None:
    logsetup._secret_forms.clear()  # each example from none
    logsetup._secret_pattern = None
    logsetup.register_secret(secret)
    assert secret not in logsetup.redact(before + secret + after)


def test_configure_twice_replaces_its_handlers(tmp_path: Path, console: io.StringIO) -> None:
    logsetup.configure("INFO", log_dir=tmp_path, stream=console)
    logsetup.configure("INFO", log_dir=tmp_path, stream=console)
    own = [h for h in logging.getLogger().handlers if logsetup.is_own_handler(h)]
    assert len(own) == 2  # one console, one file
    logging.getLogger("x").info("once")
    assert console.getvalue().count("once") == 1


def test_file_keeps_info_when_console_is_quieter(tmp_path: Path, console: io.StringIO) -> None:
    path = logsetup.configure("WARNING", log_dir=tmp_path, stream=console)
    assert path is not None
    logging.getLogger("desktop.x").info("connected to the demo gateway")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert "connected to the demo gateway" not in console.getvalue()
    assert "connected to the demo gateway" in path.read_text(encoding="utf-8")


def test_log_file_is_private(log_file: Path) -> None:
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_file.parent.stat().st_mode) == 0o700


def test_unwritable_log_dir_falls_back_to_console(tmp_path: Path, console: io.StringIO) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    path = logsetup.configure("INFO", log_dir=blocker / "logs", stream=console)
    logging.getLogger("desktop.x").info("still logged")
    assert path is None
    assert "cannot write a log file" in console.getvalue()
    assert "still logged" in console.getvalue()


def test_default_log_dir_honours_the_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(paths.LOG_DIR_ENV, str(tmp_path / "elsewhere"))
    assert paths.log_dir() == tmp_path / "elsewhere"


def test_default_log_dir_is_the_platform_state_dir(
    monkeypatch: pytest.MonkeyPatch, isolated_env: Path
) -> None:
    monkeypatch.delenv(paths.LOG_DIR_ENV)
    # On Linux platformdirs puts logs under $XDG_STATE_HOME, which conftest isolated.
    assert paths.log_dir() == isolated_env / "xdg/state/hermes-tray/log"


def test_configure_defaults_to_the_env_log_dir(console: io.StringIO, isolated_env: Path) -> None:
    assert logsetup.configure("INFO", stream=console) == (
        isolated_env / "hermes-tray/log" / logsetup.LOG_FILE_NAME
    )


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log level 'LOUD'"):
        logsetup.configure("LOUD")


def test_a_broken_format_string_neither_raises_nor_leaks(
    console: io.StringIO, log_file: Path
) -> None:
    logsetup.register_secret(CANARY)
    logging.getLogger("desktop.x").info("%d items", CANARY)
    text = read_all(console, log_file)
    assert "unformattable log message" in text
    assert CANARY not in text


@pytest.mark.parametrize(
    ("kind", "category", "level", "logger"),
    [
        ("QtWarningMsg", "qt.qpa.xcb", logging.WARNING, "qt.qpa.xcb"),
        ("QtCriticalMsg", "default", logging.ERROR, "qt"),
        ("debug", None, logging.DEBUG, "qt"),
        ("QtInfoMsg", "widgets", logging.INFO, "qt.widgets"),
        ("QtFatalMsg", "qt.core", logging.CRITICAL, "qt.core"),
        ("SomethingNew", "qt.x", logging.WARNING, "qt.x"),
    ],
)
def test_route_qt_message(
    caplog: pytest.LogCaptureFixture, kind: str, category: str | None, level: int, logger: str
) -> None:
    caplog.set_level(logging.DEBUG)
    logsetup.route_qt_message(kind, "hello from Qt", category)
    [record] = caplog.records
    assert (record.name, record.levelno, record.getMessage()) == (logger, level, "hello from Qt")
