"""Learn how long the gateway really waits on an approval (``approvals.timeout``).

A row must stop being answerable before Hermes gives up (on 0.19.0 a late answer resolves the
*next* command). A local gateway's profile names its HERMES_HOME, whose ``config.yaml`` is read
as Hermes reads it for every wait; only its path and the number are logged. With the gateway's
``approval_timeout_s`` setting too, the smaller wins (too long is the dangerous direction). A
value Hermes would not use (bad YAML, a ``${VAR}``) is unknown, not guessed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.model import Dialect
from desktop.core.settings import CoreSettings

log = logging.getLogger(__name__)

_CORE = CoreSettings()
HERMES_DEFAULT = {  # what Hermes uses when its config has none: the core's one definition
    Dialect.A: _CORE.a_approval_timeout,
    Dialect.B: _CORE.b_approval_timeout,
    Dialect.HERMES020: _CORE.b_approval_timeout,
}
MAX_SECONDS = 31_536_000  # newer Hermes clamps here (agent.deadline.MAX_SAFE_TIMEOUT_S)
MAX_CONFIG_BYTES = 1 << 20  # a config.yaml is a few KiB; a larger file is not read
SYSTEM_MANAGED_DIR = Path("/etc/hermes")
MANAGED_DIR_ENV = "HERMES_MANAGED_DIR"
_ABSENT = object()


class UnreadableConfigError(Exception):
    """The file does not tell what Hermes uses (the reason is for the log, never the content)."""


def effective_timeout(user: Any, managed: Any, dialect: Dialect) -> float | None:
    default = HERMES_DEFAULT[dialect]
    user = user or {}  # an empty file is no config at all
    if not isinstance(user, dict):
        return None  # Hermes cannot merge it and keeps its last good config
    if not isinstance(managed, dict):
        managed = {}  # Hermes ignores a managed file that is no mapping
    approvals: Any = {"timeout": default}
    approvals = _merge(approvals, user.get("approvals", _ABSENT))
    approvals = _merge(approvals, managed.get("approvals", _ABSENT))
    if not approvals:
        return float(default)  # `config.get("approvals") or {}`
    if not isinstance(approvals, dict):
        return None  # Hermes' own read of it fails
    return _seconds(approvals.get("timeout", default), default)


def _merge(base: Any, override: Any) -> Any:
    """Hermes' ``_deep_merge`` for the one block: None never replaces a mapping."""
    if override is _ABSENT or (isinstance(base, dict) and override is None):
        return base
    if isinstance(base, dict) and isinstance(override, dict):
        return {**base, **override}
    return override


def _seconds(value: Any, default: float) -> float | None:
    if isinstance(value, str) and "${" in value:
        return None  # expanded from the gateway's environment, which the tray cannot see
    try:
        seconds = int(value)
    except OverflowError:
        return None  # Hermes' own read raises here
    except (ValueError, TypeError):
        return float(default)
    return float(min(max(seconds, 0), MAX_SECONDS))


def load_yaml(path: Path, *, missing: Any) -> Any:
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return missing
    except OSError as exc:
        raise UnreadableConfigError(f"{path} could not be read ({type(exc).__name__})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise UnreadableConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes")
    import yaml  # here, not at the top: PyYAML is ~20 modules an idle tray does not need

    try:
        return yaml.safe_load(data.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError, RecursionError) as exc:
        # The parser's message quotes the offending line: never log it.
        raise UnreadableConfigError(
            f"{path} is not YAML Hermes can read ({type(exc).__name__})"
        ) from None


def managed_dir(environ: Mapping[str, str], system_dir: Path = SYSTEM_MANAGED_DIR) -> Path | None:
    override = environ.get(MANAGED_DIR_ENV, "").strip()
    if override:
        return Path(override) if Path(override).is_dir() else None
    return system_dir if system_dir.is_dir() else None


def read_timeout(home: Path, dialect: Dialect, managed: Path | None) -> float | None:
    if not home.is_absolute() or not home.is_dir():
        log.info("approval timeout: %s is no directory here; not learned from it", home)
        return None
    try:
        user = load_yaml(home / "config.yaml", missing={})
        extra = load_yaml(managed / "config.yaml", missing={}) if managed else {}
    except UnreadableConfigError as exc:
        log.warning("approval timeout: %s; keeping the assumed one", exc)
        return None
    return effective_timeout(user, extra, dialect)


def _signature(home: Path, managed: Path | None) -> tuple[tuple[int, int] | None, ...]:
    """(mtime, size) of both files: unchanged files need no second parse."""
    stamps: list[tuple[int, int] | None] = []
    for path in (home / "config.yaml", managed / "config.yaml" if managed else None):
        try:
            stat = path.stat() if path else None
        except OSError:
            stat = None
        stamps.append((stat.st_mtime_ns, stat.st_size) if stat else None)
    return tuple(stamps)


@dataclass
class Where:
    local: bool  # dialled on a loopback address: the gateway runs on this machine
    environ: Mapping[str, str] | None = None  # the gateway's environment, when known


ProfileCall = Callable[[], Awaitable[Mapping[str, Any]]]


class TimeoutLearner:
    def __init__(
        self, configured: float | None = None, *, system_managed_dir: Path = SYSTEM_MANAGED_DIR
    ) -> None:
        self.configured = configured
        self._system_dir = system_managed_dir
        self._home: Path | None = None
        self._managed: Path | None = None
        self._dialect = Dialect.A
        self._stamp: tuple[tuple[int, int] | None, ...] = ()
        self._from_file: float | None = None

    async def learn(self, dialect: Dialect, where: Where, ask_profile: ProfileCall) -> float | None:
        """None: keep the default."""
        self._home, self._dialect, self._stamp, self._from_file = None, dialect, (), None
        if dialect in HERMES_DEFAULT and where.local:
            try:
                home = (await ask_profile()).get("home")
            except Exception as exc:  # an older or other gateway, or the connection went
                log.info("approval timeout: no profile from the gateway (%s)", type(exc).__name__)
                home = None
            if isinstance(home, str) and home:
                self._home = Path(home)
                self._managed = managed_dir(where.environ or os.environ, self._system_dir)
                self._read()
        return self._combined()

    def forget(self) -> None:
        """The next connection is learned anew (maybe another server)."""
        self._home, self._stamp, self._from_file = None, (), None

    def relearn(self) -> float | None:
        if self._home is None or _signature(self._home, self._managed) == self._stamp:
            return None
        self._read()
        return self._combined()

    def _read(self) -> None:
        assert self._home is not None
        self._stamp = _signature(self._home, self._managed)
        found = read_timeout(self._home, self._dialect, self._managed)
        if found is None:
            return  # a running Hermes keeps its last good config: keep what was read from it
        self._from_file = found
        log.info("approval timeout: %gs from %s", found, self._home / "config.yaml")

    def _combined(self) -> float | None:
        known = [v for v in (self._from_file, self.configured) if v is not None]
        return min(known) if known else None
