"""The ``hermes-tray`` command line, thin because the app and the doctor pull in Qt or asyncio.

They are imported only once the arguments are valid; a missing dependency is one clear line and
exit status 2, not a traceback. The token has its own options because every local user can read
a process's command line (a ``?token=`` in ``--gateway`` is still accepted, and warned about).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Literal, NoReturn

from desktop import __version__, logsetup

if TYPE_CHECKING:
    from desktop.gateway.endpoints import TokenSource

Command = Literal["run", "doctor", "explain"]

EXIT_UNAVAILABLE = 2  # the delegate or one of its dependencies is missing (as argparse's errors)
TOKEN_ENV = "HERMES_TRAY_TOKEN"  # the --gateway token, when no option names one
ARGV_TOKEN_WARNING = (
    "The token in --gateway is visible to every local user in the process list. Put it in a "
    f"0600 file (--token-file), the keyring (--token-keyring) or {TOKEN_ENV} instead."
)
log = logging.getLogger(__name__)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
# Doctor prints its own report, so its log lines would only clutter it; the tray logs its life.
DEFAULT_LOG_LEVEL: dict[Command, str] = {"run": "INFO", "doctor": "WARNING", "explain": "WARNING"}

DELEGATES: dict[Command, tuple[str, str]] = {
    "run": ("desktop.app", "run"),
    "doctor": ("desktop.gateway.doctor", "run"),
    "explain": ("desktop.risk.explain", "run"),
}


@dataclass(frozen=True, repr=False)
class CliOptions:
    """What the command line decided; ``explained`` "" reads stdin, ``cwd`` "" is unknown."""

    command: Command = "run"
    gateway: str | None = None
    demo: bool = False
    smoke: bool = False
    json: bool = False
    log_level: str = "INFO"
    token_file: str | None = None
    token_keyring: str | None = None
    token_env: str | None = None
    token_in_argv: bool = False
    explained: str = ""
    cwd: str = ""

    def token_source(self) -> TokenSource | None:
        from desktop.gateway.endpoints import TokenKind, TokenSource

        if self.token_file:
            return TokenSource(TokenKind.FILE, self.token_file)
        if self.token_keyring:
            return TokenSource(TokenKind.KEYRING, self.token_keyring)
        if self.token_env:
            return TokenSource(TokenKind.ENV, self.token_env)
        return None

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return logsetup.redact(f"CliOptions({shown})")  # the --gateway URL may carry a token


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose error messages cannot echo a token (``--gatway ws://..?token=``)."""

    def error(self, message: str) -> NoReturn:
        super().error(logsetup.redact(message))


def _log_level(text: str) -> str:
    level = text.upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"choose one of {', '.join(LOG_LEVELS)}")
    return level


def build_parser() -> argparse.ArgumentParser:
    # Options valid both before and after "doctor"; SUPPRESS keeps a subcommand's unset copy
    # from overwriting a value given before the subcommand.
    common = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument(
        "--gateway",
        metavar="URL",
        help="gateway WebSocket URL, e.g. ws://127.0.0.1:9119/api/ws (default: the configured one)",
    )
    common.add_argument(
        "--token-file",
        metavar="PATH",
        help="read the --gateway token from the first line of this 0600 file",
    )
    common.add_argument(
        "--token-keyring",
        metavar="ENTRY",
        help=f"read the --gateway token from this OS keyring entry (service hermes-tray); "
        f"without either option, {TOKEN_ENV} is used when set",
    )
    common.add_argument(
        "--log-level",
        type=_log_level,
        metavar="LEVEL",
        help="console log level: DEBUG, INFO, WARNING or ERROR (the log file keeps INFO)",
    )

    parser = _Parser(
        prog="hermes-tray",
        description="Approve or deny, from the tray, the commands a Hermes agent wants to run.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--demo", action="store_true", help="use the built-in demo gateway (no Hermes needed)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="start, check the wiring, then exit (for CI)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    doctor = commands.add_parser(
        "doctor",
        parents=[common],
        help="check the connection to Hermes and explain what is wrong",
        description="Check the connection to a Hermes gateway and explain what is wrong.",
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    explain = commands.add_parser(
        "explain",
        help="say how risky a command is and why, as the approval cards do",
        description="Say how risky one shell command is and why (the risk lens of the cards).",
    )
    explain.add_argument(
        "--cwd", metavar="DIR", default="", help="the folder it runs in (default: unknown)"
    )
    explain.add_argument("--json", action="store_true", help="print the verdict as JSON")
    explain.add_argument(
        "words", nargs="*", metavar="COMMAND", help="the command (after --); none: read stdin"
    )
    return parser


def parse_args(argv: Sequence[str] | None = None) -> CliOptions:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command = args.command if args.command in ("doctor", "explain") else "run"
    gateway: str | None = getattr(args, "gateway", None)
    if gateway is not None:
        logsetup.register_url_secrets(gateway)  # before anything could log or print it
        if not gateway.strip():
            parser.error("--gateway needs a URL")
    if args.demo and gateway is not None:
        parser.error("--demo and --gateway exclude each other: the demo is its own gateway")
    token_file: str | None = getattr(args, "token_file", None)
    token_keyring: str | None = getattr(args, "token_keyring", None)
    if token_file is not None and token_keyring is not None:
        parser.error("--token-file and --token-keyring exclude each other: give one")
    if (token_file is not None or token_keyring is not None) and gateway is None:
        parser.error("--token-file and --token-keyring name the token of --gateway; give both")
    token_env = TOKEN_ENV if gateway is not None and os.environ.get(TOKEN_ENV) else None
    if command != "run" and (args.demo or args.smoke):
        parser.error(f"--demo and --smoke start the tray; give them without '{command}'")
    return CliOptions(
        command=command,
        gateway=gateway,
        demo=args.demo,
        smoke=args.smoke,
        json=getattr(args, "json", False),
        log_level=getattr(args, "log_level", DEFAULT_LOG_LEVEL[command]),
        token_file=token_file,
        token_keyring=token_keyring,
        token_env=token_env,
        token_in_argv=gateway is not None and logsetup.redact(gateway) != gateway,
        explained=" ".join(getattr(args, "words", ())),
        cwd=getattr(args, "cwd", ""),
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    logsetup.configure(options.log_level)
    if options.token_in_argv:
        log.warning(ARGV_TOKEN_WARNING)
    module_name, attribute = DELEGATES[options.command]
    try:
        delegate: Callable[[CliOptions], int] = getattr(
            importlib.import_module(module_name), attribute
        )
    except ModuleNotFoundError as exc:
        missing = exc.name or module_name
        why = (
            f"is not available yet: {missing} is not part of this build"
            if missing.split(".")[0] == "desktop"
            else f"needs the Python package '{missing}', which is not installed; "
            "run: bash scripts/start.sh (or pip install -e .)"
        )
        print(f"hermes-tray: '{options.command}' {why}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        return int(delegate(options))
    except KeyboardInterrupt:  # Ctrl+C in the terminal that started us: quit without a traceback
        return 130
