"""desktop.cli: argument parsing, hand-over to the app/doctor, and the "not built yet" path."""

from __future__ import annotations

import importlib
import importlib.metadata
import io
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import __version__, cli, logsetup
from desktop.cli import CliOptions, parse_args

Install = Callable[[str, str], None]

CANARY = "canary-0b7e41d2"
TOKEN_URL = f"ws://127.0.0.1:9119/api/ws?token={CANARY}"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], CliOptions()),
        (["--demo"], CliOptions(demo=True)),
        (["--smoke", "--demo"], CliOptions(demo=True, smoke=True)),
        (["--log-level", "debug"], CliOptions(log_level="DEBUG")),
        (["--gateway", "ws://h:1/api/ws"], CliOptions(gateway="ws://h:1/api/ws")),
        (["doctor"], CliOptions(command="doctor", log_level="WARNING")),
        (
            ["doctor", "--json", "--gateway", "ws://h:1/x"],
            CliOptions(command="doctor", json=True, gateway="ws://h:1/x", log_level="WARNING"),
        ),
        # Options shared by both commands may stand before or after "doctor":
        (
            ["--gateway", "ws://h:1/x", "--log-level", "ERROR", "doctor"],
            CliOptions(command="doctor", gateway="ws://h:1/x", log_level="ERROR"),
        ),
        (
            ["--gateway", "ws://a/", "doctor", "--gateway", "ws://b/"],
            CliOptions(command="doctor", gateway="ws://b/", log_level="WARNING"),
        ),
    ],
)
def test_parse_args(argv: list[str], expected: CliOptions) -> None:
    assert parse_args(argv) == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--demo", "--gateway", "ws://h/"], "--demo and --gateway exclude each other"),
        (["--smoke", "doctor"], "--demo and --smoke start the tray"),
        (["doctor", "--demo"], "unrecognized arguments: --demo"),
        (["--log-level", "loud"], "choose one of DEBUG, INFO, WARNING, ERROR"),
        (["--gateway", " "], "--gateway needs a URL"),
        (["--json"], "unrecognized arguments: --json"),
        (["serve"], "invalid choice: 'serve'"),
    ],
)
def test_misuse_exits_2_with_a_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"hermes-tray {__version__}\n"


def test_help_names_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = capsys.readouterr().out
    for option in (
        "--demo",
        "--gateway URL",
        "--smoke",
        "--log-level LEVEL",
        "--version",
        "doctor",
    ):
        assert option in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--demo", "--gateway", TOKEN_URL],  # an error about the URL's option
        ["--gatway", TOKEN_URL],  # a typo: argparse echoes unknown arguments
        [TOKEN_URL],  # a URL where the subcommand goes
    ],
)
def test_errors_never_print_the_token(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    assert "error:" in captured.err


def test_options_repr_masks_the_token() -> None:
    options = parse_args(["--gateway", TOKEN_URL])
    assert options.gateway == TOKEN_URL  # the app still gets the real URL
    assert CANARY not in repr(options)
    assert "token=***" in repr(options)


def test_parsing_a_gateway_url_registers_its_token_for_redaction() -> None:
    parse_args(["--gateway", TOKEN_URL])
    assert logsetup.redact(f"the gateway said {CANARY}") == "the gateway said ***"


def test_missing_delegate_module_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(cli.DELEGATES, "run", ("desktop.not_written_yet", "run"))
    assert cli.main([]) == cli.EXIT_UNAVAILABLE
    err = capsys.readouterr().err
    assert err == (
        "hermes-tray: 'run' is not available yet: desktop.not_written_yet is not part of this "
        "build\n"
    )


def test_missing_doctor_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(cli.DELEGATES, "doctor", ("desktop.gateway.no_doctor_here", "run"))
    assert cli.main(["doctor", "--gateway", TOKEN_URL]) == 2
    captured = capsys.readouterr()
    assert "'doctor' is not available yet" in captured.err
    assert CANARY not in captured.out + captured.err


def test_every_command_hands_over_to_a_function() -> None:
    for module, attribute in cli.DELEGATES.values():
        assert callable(getattr(importlib.import_module(module), attribute))


@pytest.fixture
def delegate_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Install:
    """Write a throwaway delegate module; return a function that installs it as 'run'."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def install(name: str, source: str) -> None:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        monkeypatch.setitem(cli.DELEGATES, "run", (name, "run"))
        monkeypatch.delitem(sys.modules, name, raising=False)

    return install


def test_delegate_needing_a_missing_package_names_it(
    delegate_module: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    delegate_module("tray_needs_pkg", "import no_such_package_4242\n")
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert "needs the Python package 'no_such_package_4242'" in err
    assert "bash scripts/start.sh" in err


def test_delegate_needing_an_unbuilt_internal_module_says_so(
    delegate_module: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    delegate_module("tray_needs_internal", "import desktop.ui.not_written_yet\n")
    assert cli.main([]) == 2
    assert "desktop.ui.not_written_yet is not part of this build" in capsys.readouterr().err


def test_main_hands_over_options_and_returns_the_exit_status(
    delegate_module: Install, isolated_env: Path
) -> None:
    delegate_module(
        "tray_ok",
        """
        import logging
        SEEN = []
        def run(options):
            SEEN.append(options)
            logging.getLogger("tray_ok").warning("dialing %s", options.gateway)
            return 7
        """,
    )
    assert cli.main(["--gateway", TOKEN_URL, "--log-level", "ERROR"]) == 7
    [options] = sys.modules["tray_ok"].SEEN
    assert options == CliOptions(gateway=TOKEN_URL, log_level="ERROR", token_in_argv=True)
    # main() configured logging: the file exists and got the line, with the token masked.
    log_text = (isolated_env / "hermes-tray/log" / logsetup.LOG_FILE_NAME).read_text("utf-8")
    assert "dialing ws://127.0.0.1:9119/api/ws?token=***" in log_text
    assert CANARY not in log_text


def test_ctrl_c_in_the_app_exits_130(delegate_module: Install) -> None:
    delegate_module("tray_interrupted", "def run(options):\n    raise KeyboardInterrupt\n")
    assert cli.main([]) == 130


def test_python_dash_m_desktop_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "desktop", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout) == (0, f"hermes-tray {__version__}\n")


def test_console_script_is_declared() -> None:
    try:
        distribution = importlib.metadata.distribution("hermes-tray")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("hermes-tray is not installed in this environment (pip install -e .)")
    scripts = {
        ep.name: ep.value for ep in distribution.entry_points if ep.group == "console_scripts"
    }
    assert scripts == {"hermes-tray": "desktop.cli:main"}
    assert distribution.version == __version__


PATH_TOKEN = "Zk3j9dS0aLq2PvX8mW4nT7yBc41"
PATH_URL = f"ws://127.0.0.1:9/api/ws/{PATH_TOKEN}"


def test_a_token_file_or_keyring_entry_names_the_gateways_token(tmp_path: Path) -> None:
    from desktop.gateway.endpoints import TokenKind, TokenSource

    path = str(tmp_path / "token")
    options = parse_args(["--gateway", "ws://h:1/api/ws", "--token-file", path])
    assert options.token_source() == TokenSource(TokenKind.FILE, path)
    assert not options.token_in_argv
    keyring = parse_args(["doctor", "--gateway", "ws://h:1/api/ws", "--token-keyring", "home"])
    assert keyring.token_source() == TokenSource(TokenKind.KEYRING, "home")


def test_the_environment_supplies_the_token_when_no_option_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.gateway.endpoints import TokenKind, TokenSource

    monkeypatch.setenv(cli.TOKEN_ENV, CANARY)
    options = parse_args(["--gateway", "ws://h:1/api/ws"])
    assert options.token_source() == TokenSource(TokenKind.ENV, cli.TOKEN_ENV)
    assert CANARY not in repr(options)
    assert parse_args([]).token_source() is None  # no --gateway: the configured gateways


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--token-file", "/x"], "give both"),
        (["--gateway", "ws://h:1/", "--token-file", "/x", "--token-keyring", "k"], "one"),
    ],
)
def test_token_options_misuse_exits_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        parse_args(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_token_on_the_command_line_is_accepted_and_warned_about(
    delegate_module: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    delegate_module(
        "argv_token_delegate",
        """
        def run(options):
            return 0 if options.gateway.endswith("token=canary-0b7e41d2") else 9
        """,
    )
    assert cli.main(["--gateway", TOKEN_URL]) == 0
    err = capsys.readouterr().err
    assert "visible to every local user" in err
    assert "--token-file" in err
    assert CANARY not in err


def test_a_token_in_a_url_path_segment_never_reaches_stderr(
    delegate_module: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    delegate_module(
        "path_token_delegate",
        """
        import logging

        def run(options):
            logging.getLogger("desktop.test").warning("dialling %s failed", options.gateway)
            raise SystemExit(f"could not reach {options.gateway}")
        """,
    )
    with pytest.raises(SystemExit):
        cli.main(["--gateway", PATH_URL])
    err = capsys.readouterr().err
    assert "dialling ws://127.0.0.1:9/api/ws/*** failed" in err
    assert PATH_TOKEN not in err


def test_redact_url_masks_an_opaque_path_segment_but_not_ordinary_ones() -> None:
    from desktop.gateway.endpoints import redact_url

    assert redact_url(PATH_URL) == "ws://127.0.0.1:9/api/ws/***"
    assert redact_url("ws://127.0.0.1:9/api/ws") == "ws://127.0.0.1:9/api/ws"
    assert redact_url("wss://h/hermes-gateway/api/ws") == "wss://h/hermes-gateway/api/ws"


def test_doctor_reaches_a_gateway_with_the_token_from_a_file(
    tmp_path: Path, arun: Callable[..., object]
) -> None:
    from desktop.gateway import doctor
    from tests.gateway.mini_server import MiniGateway

    token_file = tmp_path / "token"
    token_file.write_text(CANARY + "\n", encoding="utf-8")
    token_file.chmod(0o600)

    async def scenario() -> tuple[int, str]:
        async with MiniGateway(token=CANARY) as server:
            url = f"ws://127.0.0.1:{server.port}/api/ws"
            options = parse_args(["doctor", "--gateway", url, "--token-file", str(token_file)])
            out = io.StringIO()
            return await doctor.check(options, out), out.getvalue()

    code, text = arun(scenario())  # type: ignore[misc]
    assert code == doctor.EXIT_OK, text  # the gateway accepted the token from the file
    assert "State:   connected" in text
    assert CANARY not in text
