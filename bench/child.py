"""Start a benchmark child process and talk to it in JSON lines, always with a deadline.

Why a line protocol on stdout: children print ``BENCH {json}`` lines for the parent (markers,
results) while the app's own logging goes to stderr, which is kept in a file for diagnosis.
Every read has a deadline and every child is killed on exit, so a hung child costs at most
its timeout and never outlives the bench.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.env import ROOT, child_env, python
from bench.lines import PREFIX


class ChildError(RuntimeError):
    """A child died, timed out or said something unexpected."""


class Child:
    """One child process (``python -m <module> <args>``) with a JSON-line stdout."""

    def __init__(self, module: str, args: Sequence[str], scratch: Path, name: str) -> None:
        self.name = name
        self.stderr_path = scratch / f"{name}.stderr.log"
        self._stderr = self.stderr_path.open("ab")
        self.started_at = time.monotonic()  # just before the fork: the cold-start origin
        self.proc = subprocess.Popen(
            [python(), "-m", module, *args],
            cwd=ROOT,
            env=child_env(scratch),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
        )
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._closed = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, command: str, **fields: Any) -> None:
        """Write one JSON command line to the child's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"cmd": command, **fields}) + "\n").encode())
        self.proc.stdin.flush()

    def expect(self, event: str, timeout: float) -> dict[str, Any]:
        """Wait for the next ``BENCH`` line with ``event`` (others are skipped); or raise."""
        deadline = time.monotonic() + timeout
        while True:
            message = self._next_message(deadline)
            if message.get("event") == event:
                return message
            if message.get("event") == "error":
                raise ChildError(f"{self.name}: {message.get('error')}")

    def _next_message(self, deadline: float) -> dict[str, Any]:
        while True:
            line, sep, rest = self._buffer.partition(b"\n")
            if sep:
                self._buffer = rest
                text = line.decode("utf-8", "replace")
                if text.startswith(PREFIX):
                    parsed: dict[str, Any] = json.loads(text[len(PREFIX) :])
                    return parsed
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildError(f"{self.name}: timed out; see {self.stderr_path}")
            if not self._selector.select(min(remaining, 1.0)):
                continue
            assert self.proc.stdout is not None
            chunk = self.proc.stdout.read(65536)
            if not chunk:  # EOF: the child is gone
                code = self.proc.wait(timeout=5)
                raise ChildError(f"{self.name} exited with {code}; see {self.stderr_path}")
            self._buffer += chunk

    def stop(self, grace: float = 3.0, *, ask_first: bool = True) -> None:
        """End the child: close stdin (probes treat EOF as "quit"), then terminate, then kill.

        ``ask_first=False`` terminates at once (the app itself does not read stdin).
        """
        if self._closed:
            return
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        if ask_first:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=grace)
        self._close()

    def kill(self) -> None:
        """Kill at once (cold-start runs: nothing to wait for)."""
        if self._closed:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)
        self._close()

    def _close(self) -> None:
        self._closed = True
        self._selector.close()
        self._stderr.close()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop(ask_first=False)
