"""Record every ``connect``/``sendto``/``sendmsg`` of the gateway's process tree with strace.

Why, next to the /proc sampler in :mod:`tests.peers.netguard`: sampling misses short-lived
connections (measured: hermes-agent 0.19.0 opens and closes its model connections between two
250 ms samples), while strace sees every attempt, including failed ones and DNS lookups, from
every thread and child. ``--seccomp-bpf`` stops only on the traced syscalls, so the gateway
runs at close to full speed.

Limits: needs the ``strace`` binary (Debian package ``strace``) and ptrace permission (root or
``kernel.yama.ptrace_scope`` 0/1 for our own child); without it the harness falls back to the
sampler alone (``HermesServer.traced`` says which). Data sent on an already connected socket
is not an address event and is covered by the connect that preceded it.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.peers.netguard import is_local

STRACE_ENV = "HERMES_TRAY_PEER_STRACE"  # "0" turns tracing off
_INET = re.compile(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([0-9.]+)"\)')
_INET6 = re.compile(r'sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')
_CALL = re.compile(r"^(\d+)\s+(connect|sendto|sendmsg)\((.*)$")


@dataclass(frozen=True)
class Attempt:
    """One traced syscall that named an IP address."""

    pid: int
    call: str
    address: str
    port: int
    outcome: str  # what the syscall returned, e.g. "0" or "-1 ENETUNREACH (…)"

    @property
    def foreign(self) -> bool:
        return not is_local(ipaddress.ip_address(self.address))

    @property
    def endpoint(self) -> str:
        return (
            f"[{self.address}]:{self.port}"
            if ":" in self.address
            else f"{self.address}:{self.port}"
        )


def strace_path() -> str | None:
    """The strace binary to use, or None when unavailable or turned off."""
    if os.environ.get(STRACE_ENV, "1") == "0":
        return None
    return shutil.which("strace")


def command_prefix(strace: str, log: Path) -> list[str]:
    """Arguments that run the following command under strace, writing to ``log``."""
    return [
        strace,
        "-f",  # follow threads and children (terminal commands included)
        "-qq",
        "--seccomp-bpf",
        "-e", "trace=connect,sendto,sendmsg",
        "-e", "signal=none",
        "-s", "0",  # no payload bytes in the log
        "-o", str(log),
        "--",
    ]  # fmt: skip


def parse_trace(text: str) -> list[Attempt]:
    """IP-addressed attempts found in an strace log (unix, netlink and unset are skipped)."""
    attempts: list[Attempt] = []
    for line in text.splitlines():
        call = _CALL.match(line)
        if not call:
            continue
        rest = call.group(3)
        found = _INET.search(rest) or _INET6.search(rest)
        if not found:
            continue
        outcome = rest.rsplit(" = ", 1)[-1] if " = " in rest else "<unfinished>"
        pid, name = int(call.group(1)), call.group(2)
        attempts.append(Attempt(pid, name, found.group(2), int(found.group(1)), outcome))
    return attempts


def read_attempts(log: Path) -> list[Attempt]:
    try:
        return parse_trace(log.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []
