"""Own a ``hermes serve`` backend: start it, learn its port, stop it.

On 0.19.0 nothing can be discovered, so the tray starts one with a fresh token per start (a
restarted backend is never reached with a stale one). Its output is drained (a full pipe would
block it) into a log with the token masked. Restarts are paced by the client's backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import signal
from collections.abc import Mapping
from typing import IO

from desktop.gateway.errors import ConnectError
from desktop.logsetup import redact, register_secret
from desktop.platform.paths import log_dir

log = logging.getLogger(__name__)

READY_RE = re.compile(rb"HERMES_(?:BACKEND|DASHBOARD)_READY\s+port=(\d+)")
TOKEN_ENV = "HERMES_DASHBOARD_SESSION_TOKEN"


class OwnedBackend:
    def __init__(
        self,
        executable: str,
        *,
        name: str = "owned",
        hermes_home: str = "",
        ready_timeout: float = 90.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.executable = executable
        self.name = name
        self.hermes_home = hermes_home
        self.ready_timeout = ready_timeout
        self._environ = dict(os.environ if environ is None else environ)
        self._proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self._log: IO[bytes] | None = None
        self._token = ""
        self._port = 0
        self.log_path = log_dir(self._environ) / f"hermes-serve-{name}.log"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None and self._port > 0

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def url(self) -> str:
        """The dial URL with the current token (secret: never log it)."""
        return f"ws://127.0.0.1:{self._port}/api/ws?token={self._token}"

    @property
    def environ(self) -> dict[str, str]:
        """A copy of the environment the child starts with (without its token)."""
        return dict(self._environ)

    async def ensure_running(self) -> str:
        """Start the child if it is not running (first time or after a crash); return its URL."""
        if not self.running:
            await self.stop()
            await self._start()
        return self.url()

    async def _start(self) -> None:
        self._token = secrets.token_urlsafe(32)
        register_secret(self._token)
        env = dict(self._environ)
        env[TOKEN_ENV] = self._token
        if self.hermes_home:
            env["HERMES_HOME"] = self.hermes_home
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        argv = [self.executable, "serve", "--host", "127.0.0.1", "--port", "0", "--isolated"]
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *argv,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=self._log,
                start_new_session=True,
            )
        except OSError as exc:
            self._close_log()
            raise ConnectError(
                f"Could not start {self.executable} serve: {exc.strerror}. "
                "Check the Hermes executable in Settings.",
                fatal=True,
            ) from None
        try:
            self._port = await asyncio.wait_for(self._read_ready(), self.ready_timeout)
        except (TimeoutError, ConnectError) as exc:
            await self.stop()
            detail = (
                str(exc)
                if isinstance(exc, ConnectError)
                else (f"printed no READY line within {self.ready_timeout:.0f}s")
            )
            raise ConnectError(
                f"The Hermes backend {detail}. See its log: {self.log_path}"
            ) from None
        self._drain = asyncio.create_task(self._copy_output(), name=f"hermes-serve-{self.name}")
        log.info("owned backend %s started (pid %s, port %s)", self.name, self.pid, self._port)

    async def _read_ready(self) -> int:
        assert self._proc is not None
        assert self._proc.stdout is not None
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                code = await self._proc.wait()
                raise ConnectError(f"exited with code {code} before it was ready")
            self._write_log(line)
            match = READY_RE.search(line)
            if match:
                return int(match.group(1))

    async def _copy_output(self) -> None:
        assert self._proc is not None
        assert self._proc.stdout is not None
        while line := await self._proc.stdout.readline():
            self._write_log(line)
        code = await self._proc.wait()
        log.warning("owned backend %s exited with code %s; see %s", self.name, code, self.log_path)

    def _write_log(self, line: bytes) -> None:
        if self._log is not None:
            text = redact(line.decode("utf-8", "replace"))  # the token is registered
            self._log.write(text.encode())
            self._log.flush()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    async def stop(self, *, grace: float = 5.0) -> None:
        """Terminate the child (SIGTERM, then SIGKILL of its process group after ``grace``)."""
        proc, self._proc, self._port = self._proc, None, 0
        if proc is not None and proc.returncode is None:
            # End the child's whole group: the agent's commands must not outlive it.
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
        if self._drain is not None:
            await asyncio.gather(self._drain, return_exceptions=True)
            self._drain = None
        elif proc is not None and proc.stdout is not None:
            proc.stdout.feed_eof()
        if proc is not None:
            await proc.wait()
            transport = getattr(proc, "_transport", None)
            if transport is not None:
                transport.close()
        self._close_log()
